import { isSecretKey, REDACTED, redactSecrets, redactText } from './redact-secrets';

describe('redactSecrets', () => {
  const KEY = 'provider-key-7f3a9c21';

  it('removes a known secret value anywhere in any string, however deep', () => {
    const value = {
      messages: [{ role: 'user', content: `my key is ${KEY}, keep it safe` }],
      nested: { list: [`${KEY}${KEY}`], count: 3, flag: true, none: null },
    };
    expect(redactSecrets(value, [KEY])).toEqual({
      messages: [{ role: 'user', content: `my key is ${REDACTED}, keep it safe` }],
      nested: { list: [`${REDACTED}${REDACTED}`], count: 3, flag: true, none: null },
    });
    expect(value.messages[0].content).toContain(KEY); // the input is not changed
  });

  it('redacts the string values of secret-looking keys, whatever they hold, and keeps token counts', () => {
    const value = {
      api_key: 'abc', apiKey: 'abc', Authorization: 'Basic xyz', password: 'p', client_secret: 's', access_token: 't',
      'x-api-key': 'k', maxTokens: 100, promptTokens: 5, token: '',
      tools: [{ name: 'login', parameters: { type: 'object', properties: { token: { type: 'string' } } } }],
    };
    expect(redactSecrets(value)).toEqual({
      api_key: REDACTED, apiKey: REDACTED, Authorization: REDACTED, password: REDACTED, client_secret: REDACTED, access_token: REDACTED,
      'x-api-key': REDACTED, maxTokens: 100, promptTokens: 5, token: '',
      // a tool's schema is kept: an object under a secret-looking key is searched, not blanked
      tools: [{ name: 'login', parameters: { type: 'object', properties: { token: { type: 'string' } } } }],
    });
  });

  it('recognises bearer credentials and sk-/nvapi- keys by their shape', () => {
    expect(redactText('curl -H "Authorization: Bearer abc.def-123456789"')).toBe(`curl -H "Authorization: Bearer ${REDACTED}"`);
    expect(redactText('use sk-proj-AbCdEf0123456789xyz please')).toBe(`use ${REDACTED} please`);
    expect(redactText('nvapi-AbCdEf0123456789xyz0')).toBe(REDACTED);
    expect(redactText('ask-me-anything and sk-short stay')).toBe('ask-me-anything and sk-short stay');
  });

  it('does not search for known values too short to be told from words', () => {
    expect(redactText('this is a test', ['test'])).toBe('this is a test');
  });

  it('names secret keys', () => {
    expect(['apiKey', 'OPENAI_API_KEY', 'authorization', 'refresh-token', 'privateKey', 'cookie'].every(isSecretKey)).toBe(true);
    expect(['maxTokens', 'tokens', 'name', 'toolCallId', 'keywords'].some(isSecretKey)).toBe(false);
  });
});
