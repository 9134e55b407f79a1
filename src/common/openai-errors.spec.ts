import { OpenAiError, isOpenAiPath, openAiErrorBody, openAiParam } from './openai-errors';

describe('openAiErrorBody', () => {
  it.each([
    [400, 'invalid_request_error', 'invalid_value'],
    [401, 'invalid_request_error', 'invalid_api_key'],
    [403, 'permission_error', 'permission_denied'],
    [404, 'invalid_request_error', 'not_found'],
    [409, 'invalid_request_error', 'conflict'],
    [413, 'invalid_request_error', 'request_too_large'],
    [415, 'invalid_request_error', 'unsupported_media_type'],
    [429, 'rate_limit_error', 'rate_limit_exceeded'],
    [500, 'server_error', 'internal_error'],
    [503, 'server_error', 'service_unavailable'],
  ])('answers status %i with type %s and code %s', (status, type, code) => {
    expect(openAiErrorBody(status, 'Something happened')).toEqual({ error: { message: 'Something happened', type, param: null, code } });
  });

  it.each([
    [422, 'invalid_request_error'],
    [502, 'server_error'],
    [504, 'server_error'],
  ])('answers status %i, which has no code of its own, with type %s and a null code', (status, type) => {
    expect(openAiErrorBody(status, 'x').error).toEqual({ message: 'x', type, param: null, code: null });
  });

  it('keeps the code and param an error carries', () => {
    expect(openAiErrorBody(404, 'No such model', { code: 'model_not_found', param: 'model' }).error).toEqual({ message: 'No such model', type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
  });

  it('names the first validation problem in OpenAI’s bracket form', () => {
    const body = openAiErrorBody(400, 'invalid', {
      problems: [
        { path: 'messages.0.role', constraint: 'isIn' },
        { path: 'model', constraint: 'isString' },
      ],
    });
    expect(body.error).toMatchObject({ param: 'messages[0].role', code: 'invalid_value', type: 'invalid_request_error' });
  });

  it('answers unknown_parameter for a field the API does not have (whitelistValidation)', () => {
    expect(openAiErrorBody(400, 'property foo should not exist', { problems: [{ path: 'foo', constraint: 'whitelistValidation' }] }).error).toMatchObject({ param: 'foo', code: 'unknown_parameter' });
  });

  it('prefers the param an error names over its validation problems', () => {
    expect(openAiErrorBody(400, 'x', { param: 'tools', code: 'invalid_value', problems: [{ path: 'model', constraint: 'whitelistValidation' }] }).error).toMatchObject({ param: 'tools', code: 'invalid_value' });
  });
});

describe('openAiParam', () => {
  it.each([
    ['messages.0.content', 'messages[0].content'],
    ['messages.0.content.1.type', 'messages[0].content[1].type'],
    ['stop.3', 'stop[3]'],
    ['model', 'model'],
    ['metadata.v2', 'metadata.v2'],
  ])('writes %s as %s', (path, param) => {
    expect(openAiParam(path)).toBe(param);
  });
});

describe('isOpenAiPath', () => {
  it.each(['/v1', '/v1/', '/v1/chat/completions', '/v1/x', '/V1/x', '/V1/Models'])('takes %s for the OpenAI API', (path) => {
    expect(isOpenAiPath(path)).toBe(true);
  });

  it.each(['/v10', '/v10/x', '/v1x', '/api/v1', '/api/v1/runs', '/', '', '/health'])('does not take %s for the OpenAI API', (path) => {
    expect(isOpenAiPath(path)).toBe(false);
  });
});

describe('OpenAiError', () => {
  it('carries its status, message, param and code', () => {
    const error = new OpenAiError(400, 'messages[0].role: bad', 'messages[0].role', 'invalid_value');
    expect(error.getStatus()).toBe(400);
    expect(error.message).toBe('messages[0].role: bad');
    expect(error.param).toBe('messages[0].role');
    expect(error.code).toBe('invalid_value');
    expect(error.getStatus()).toBe(400);
  });

  it('has no param or code unless given', () => {
    const error = new OpenAiError(429, 'slow down');
    expect([error.param, error.code]).toEqual([null, null]);
  });
});
