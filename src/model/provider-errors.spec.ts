import { createServer } from 'node:net';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { startMockLlm, type MockLlm } from '../../test/support/mock-llm/mock-llm';
import { buildModelStack } from './model-testing';
import { ModelError, type ModelChunk, type ModelRequest } from './model.types';
import { classifyStatus, humanMessage, MODEL_ERROR_MESSAGES, parseRetryAfter, toModelError } from './provider-errors';

const model = { provider: 'openai', modelId: 'mock-model' };

async function failure(stream: AsyncIterable<ModelChunk>): Promise<ModelError> {
  try {
    for await (const _ of stream) {
      // drain
    }
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected the stream to fail');
}

describe('provider error mapping', () => {
  it.each([
    [400, 'bad_request', false],
    [401, 'auth_failed', false],
    [403, 'auth_failed', false],
    [404, 'model_not_found', false],
    [408, 'timeout', false],
    [409, 'provider_unavailable', true],
    [413, 'bad_request', false],
    [422, 'bad_request', false],
    [429, 'rate_limited', true],
    [500, 'provider_unavailable', true],
    [502, 'provider_unavailable', true],
    [503, 'provider_unavailable', true],
  ])('status %i → %s (retryable %s)', (status, code, retryable) => {
    expect(classifyStatus(status)).toEqual({ code, retryable });
  });

  it('has one human sentence per code, naming the model where useful', () => {
    for (const message of Object.values(MODEL_ERROR_MESSAGES)) expect(message).toMatch(/^[A-Z].*\.$/);
    expect(humanMessage('model_not_found', { provider: 'openai', modelId: 'nope' })).toBe(
      'The model openai:nope was not found at its provider; check the model id.',
    );
    expect(humanMessage('bad_request', undefined, 'context too long')).toBe(
      'The model provider rejected the request as invalid. context too long',
    );
  });

  it('parses retry-after as seconds, HTTP date or retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:07 GMT' }), now)).toBe(7000);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });

  it('maps SDK error classes and raw network errors', () => {
    expect(toModelError(new APIUserAbortError()).code).toBe('aborted');
    expect(toModelError(new APIConnectionTimeoutError()).code).toBe('timeout');
    const refused = toModelError(new APIConnectionError({ message: 'Connection error.', cause: new Error('ECONNREFUSED') }));
    expect([refused.code, refused.retryable]).toEqual(['provider_unavailable', true]);
    const terminated = toModelError(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }));
    expect([terminated.code, terminated.retryable]).toEqual(['provider_unavailable', true]);
    expect(toModelError(new SyntaxError('Unexpected token')).retryable).toBe(true);
    // an error object inside the stream, without HTTP status
    expect(toModelError(new APIError(undefined, { message: 'slow down', code: '429' }, undefined, undefined)).code).toBe('rate_limited');
    const quota = toModelError(APIError.generate(429, { error: { message: 'quota', code: 'insufficient_quota' } }, undefined, new Headers()));
    expect([quota.code, quota.retryable]).toEqual(['rate_limited', false]);
    // a bug is reported, not retried
    const bug = toModelError(new RangeError('oops'));
    expect([bug.code, bug.retryable]).toEqual(['provider_unavailable', false]);
  });

  describe('through the real SDK against the mock', () => {
    let mock: MockLlm;
    beforeAll(async () => {
      mock = await startMockLlm();
    });
    afterAll(() => mock.close());

    function gatewayFor(baseURL: string, requestTimeoutMs?: number) {
      return buildModelStack({
        env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: baseURL },
        gateway: { maxRetries: 0, requestTimeoutMs, idleTimeoutMs: 200 },
      }).gateway;
    }
    const ask = (content: string): ModelRequest => ({ model, messages: [{ role: 'user', content }] });

    it.each([
      [400, 'bad_request', 'The model provider rejected the request as invalid. The request is invalid.'],
      [401, 'auth_failed', 'The model provider rejected the credentials; check the API key configured for openai:mock-model.'],
      [403, 'auth_failed', 'The model provider rejected the credentials; check the API key configured for openai:mock-model.'],
      [404, 'model_not_found', 'The model openai:mock-model was not found at its provider; check the model id.'],
      [408, 'timeout', MODEL_ERROR_MESSAGES.timeout],
      [429, 'rate_limited', MODEL_ERROR_MESSAGES.rate_limited],
      [500, 'provider_unavailable', MODEL_ERROR_MESSAGES.provider_unavailable],
      [502, 'provider_unavailable', MODEL_ERROR_MESSAGES.provider_unavailable],
      [503, 'provider_unavailable', MODEL_ERROR_MESSAGES.provider_unavailable],
    ])('HTTP %i → %s', async (status, code, message) => {
      const error = await failure(gatewayFor(mock.url).stream(ask(`MOCK:{"status":${status}}`)));
      expect(error.code).toBe(code);
      expect(error.message).toBe(message);
      expect(error.status).toBe(status);
    });

    it('connection refused → provider_unavailable', async () => {
      const port = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, '127.0.0.1', () => {
          const { port } = server.address() as { port: number };
          server.close(() => resolve(port));
        });
      });
      const error = await failure(gatewayFor(`http://127.0.0.1:${port}/v1`).stream(ask('hi')));
      expect(error.code).toBe('provider_unavailable');
      expect(error.message).toBe(MODEL_ERROR_MESSAGES.provider_unavailable);
      expect(error.detail).toMatch(/ECONNREFUSED|fetch failed|Connection error/);
    });

    it('no response headers within the request timeout → timeout', async () => {
      const error = await failure(gatewayFor(mock.url, 150).stream(ask('MOCK:{"hang":true}')));
      expect(error.code).toBe('timeout');
      expect(error.message).toBe(MODEL_ERROR_MESSAGES.timeout);
    });

    it('a stream that goes silent mid-answer → timeout, after the tokens already sent', async () => {
      const chunks: ModelChunk[] = [];
      const gateway = gatewayFor(mock.url);
      const error = await failure(
        (async function* () {
          for await (const chunk of gateway.stream(ask('MOCK:{"tokens":3,"delayMs":5000}'))) {
            chunks.push(chunk);
            yield chunk;
          }
        })(),
      );
      expect(error.code).toBe('timeout');
      expect(chunks).toEqual([{ type: 'text', text: 't1 ' }]);
    });
  });
});
