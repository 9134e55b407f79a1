import { ConfigError, loadConfig } from './app-config';

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
  ])('refuses %s=%s with one line naming it', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('keeps a stream token an hour unless told otherwise', () => {
    expect(loadConfig({}).HELIX_STREAM_TOKEN_TTL_SECONDS).toBe(3600);
    expect(loadConfig({ HELIX_STREAM_TOKEN_TTL_SECONDS: '120' }).HELIX_STREAM_TOKEN_TTL_SECONDS).toBe(120);
  });
});
