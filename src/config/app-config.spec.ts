import { ConfigError, loadConfig, trustProxySetting } from './app-config';

describe('the security settings of loadConfig', () => {
  it('reads HELIX_CORS_ORIGINS as a list of exact origins (none by default)', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ HELIX_CORS_ORIGINS: 'https://chat.example.com, http://localhost:5173' }).corsOrigins).toEqual([
      'https://chat.example.com',
      'http://localhost:5173',
    ]);
  });

  it.each([
    ['HELIX_CORS_ORIGINS', 'chat.example.com', /^Invalid configuration: HELIX_CORS_ORIGINS must be a comma-separated list of origins/],
    ['HELIX_CORS_ORIGINS', 'https://chat.example.com/app', /HELIX_CORS_ORIGINS must be/],
    ['HELIX_CORS_ORIGINS', '*', /HELIX_CORS_ORIGINS must be/],
    ['HELIX_STREAM_TOKEN_TTL_SECONDS', '5', /HELIX_STREAM_TOKEN_TTL_SECONDS must be an integer between 10 and 86400/],
    ['HELIX_STREAM_TOKEN_TTL_SECONDS', 'an hour', /HELIX_STREAM_TOKEN_TTL_SECONDS must be an integer/],
    ['HELIX_MASTER_KEY_PREVIOUS', 'short', /HELIX_MASTER_KEY_PREVIOUS must be 32 bytes encoded as base64/],
    ['HELIX_TRUST_PROXY', 'yes', /HELIX_TRUST_PROXY must be false, true, a hop count, or comma-separated addresses or CIDRs/],
    ['HELIX_TRUST_PROXY', '10.0.0.0/33', /HELIX_TRUST_PROXY must be/],
    ['HELIX_AUTH_FAILURES_PER_MINUTE', '-1', /HELIX_AUTH_FAILURES_PER_MINUTE must be an integer between 0 and 1000000/],
    ['HELIX_EMBEDDED_SHARED_BUFFERS_MB', '0', /HELIX_EMBEDDED_SHARED_BUFFERS_MB must be an integer between 1 and 4096/],
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('reads HELIX_TRUST_PROXY as Express takes `trust proxy` (not trusted by default)', () => {
    expect(trustProxySetting(loadConfig({}).HELIX_TRUST_PROXY)).toBe(false);
    expect(loadConfig({}).HELIX_AUTH_FAILURES_PER_MINUTE).toBe(20);
    expect(trustProxySetting('true')).toBe(true);
    expect(trustProxySetting('2')).toBe(2);
    expect(trustProxySetting('0')).toBe(false);
    expect(trustProxySetting('loopback, 10.0.0.0/8, fd00::1')).toEqual(['loopback', '10.0.0.0/8', 'fd00::1']);
    expect(trustProxySetting('proxy.example.com')).toBeUndefined();
  });

  it('keeps a stream token an hour unless told otherwise', () => {
    expect(loadConfig({}).HELIX_STREAM_TOKEN_TTL_SECONDS).toBe(3600);
    expect(loadConfig({ HELIX_STREAM_TOKEN_TTL_SECONDS: '120' }).HELIX_STREAM_TOKEN_TTL_SECONDS).toBe(120);
  });
});

describe('abuse limit configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      HELIX_BODY_LIMIT: '1mb',
      HELIX_RATE_LIMIT_PER_KEY: 600,
      HELIX_RATE_LIMIT_PER_IP: 300,
      HELIX_MAX_MESSAGE_CHARS: 100_000,
      HELIX_MAX_LIVE_RUNS_PER_WORKSPACE: 20,
      HELIX_RUN_QUEUE_LIMIT: 1_000,
      HELIX_GRAPHQL_MAX_DEPTH: 10,
      HELIX_GRAPHQL_MAX_COMPLEXITY: 5_000,
      HELIX_MAX_SSE_PER_KEY: 100,
    });
    expect(loadConfig({}).HELIX_MAX_ATTACHMENT_BYTES).toBe(10 * 1024 * 1024);
    expect(loadConfig({})).toMatchObject({ HELIX_WORKSPACE_QUOTA_BYTES: 10 * 1024 * 1024, HELIX_SHELL_TIMEOUT_MS: 10_000 });
    expect(loadConfig({ HELIX_WORKSPACE_QUOTA_BYTES: '2048', HELIX_SHELL_TIMEOUT_MS: '500' })).toMatchObject({ HELIX_WORKSPACE_QUOTA_BYTES: 2048, HELIX_SHELL_TIMEOUT_MS: 500 });
  });

  it('reads integers and sizes, 0 turning a rate or stream limit off', () => {
    const config = loadConfig({ HELIX_RATE_LIMIT_PER_KEY: '0', HELIX_MAX_SSE_PER_KEY: ' 3 ', HELIX_BODY_LIMIT: '512kb' });
    expect(config).toMatchObject({ HELIX_RATE_LIMIT_PER_KEY: 0, HELIX_MAX_SSE_PER_KEY: 3, HELIX_BODY_LIMIT: '512kb' });
  });

  it.each([
    ['HELIX_BODY_LIMIT', 'lots', 'HELIX_BODY_LIMIT must be a size such as 512kb or 1mb (got "lots")'],
    ['HELIX_RATE_LIMIT_PER_KEY', '-1', 'HELIX_RATE_LIMIT_PER_KEY must be an integer between 0 and 1000000 (got -1)'],
    ['HELIX_MAX_MESSAGE_CHARS', '0', 'HELIX_MAX_MESSAGE_CHARS must be an integer between 1 and 10000000 (got 0)'],
    ['HELIX_MAX_LIVE_RUNS_PER_WORKSPACE', 'many', 'HELIX_MAX_LIVE_RUNS_PER_WORKSPACE must be an integer between 1 and 1000000 (got "many")'],
    ['HELIX_MAX_ATTACHMENT_BYTES', '0', 'HELIX_MAX_ATTACHMENT_BYTES must be an integer between 1 and 104857600 (got 0)'],
    ['HELIX_WORKSPACE_QUOTA_BYTES', '10', 'HELIX_WORKSPACE_QUOTA_BYTES must be an integer between 1024 and 1073741824 (got 10)'],
    ['HELIX_SHELL_TIMEOUT_MS', 'soon', 'HELIX_SHELL_TIMEOUT_MS must be an integer between 100 and 300000 (got "soon")'],
    ['HELIX_GRAPHQL_MAX_DEPTH', '1.5', 'HELIX_GRAPHQL_MAX_DEPTH must be an integer between 1 and 100 (got "1.5")'],
  ])('a bad %s stops start-up naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new ConfigError(`Invalid configuration: ${message}`));
  });
});
