/** HTTP helpers of the mock LLM: JSON and OpenAI-style error replies, usage, embeddings. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_EMBEDDING_DIMENSIONS, hashEmbedding } from '../../../src/model/providers/hash-embedding';
import type { MockMessage, MockRequestBody } from './mock-llm';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export function usageOf(body: MockRequestBody, completionTokens: number): Usage {
  let chars = 0;
  for (const m of body.messages ?? []) chars += textOf(m).length;
  const promptTokens = Math.ceil(chars / 4);
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

export function embeddings(res: ServerResponse, body: MockRequestBody): void {
  const dims = typeof body.dimensions === 'number' && body.dimensions > 0 ? Math.floor(body.dimensions) : DEFAULT_EMBEDDING_DIMENSIONS;
  const raw = body.input;
  const inputs: unknown[] = Array.isArray(raw) && !raw.every((x) => typeof x === 'number') ? raw : [raw];
  let tokens = 0;
  const data = inputs.map((input, index) => {
    const text = typeof input === 'string' ? input : JSON.stringify(input ?? '');
    tokens += Math.ceil(text.length / 4);
    const vector = hashEmbedding(text, dims);
    const embedding = body.encoding_format === 'base64'
      ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')
      : Array.from(vector);
    return { object: 'embedding', index, embedding };
  });
  sendJson(res, 200, { object: 'list', data, model: body.model ?? 'mock-embedding', usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

const ERROR_TYPES: Record<number, [type: string, code: string | null, message: string]> = {
  400: ['invalid_request_error', null, 'The request is invalid.'],
  401: ['invalid_request_error', 'invalid_api_key', 'Incorrect API key provided.'],
  403: ['permission_error', null, 'You are not allowed to use this model.'],
  404: ['invalid_request_error', 'model_not_found', 'The model does not exist.'],
  408: ['timeout_error', null, 'The request timed out.'],
  429: ['rate_limit_error', 'rate_limit_exceeded', 'Rate limit reached for requests.'],
};

export function sendError(res: ServerResponse, status: number, message?: string, code?: string, retryAfter?: number): void {
  const [type, defaultCode, defaultMessage] = ERROR_TYPES[status] ?? ['server_error', null, `The server had an error (${status}).`];
  const headers: Record<string, string> = {};
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  sendJson(res, status, { error: { message: message ?? defaultMessage, type, param: null, code: code ?? defaultCode } }, headers);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

export function textOf(message: MockMessage): string {
  const c = message.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((part) => part.text ?? '').join('');
  return '';
}
