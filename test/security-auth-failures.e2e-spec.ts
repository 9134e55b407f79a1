/**
 * Failed authentication is limited per client address (HELIX_AUTH_FAILURES_PER_MINUTE): after
 * that many failures in a minute, 429 with Retry-After on REST and GraphQL alike; successes count
 * nothing. X-Forwarded-For names the client only when HELIX_TRUST_PROXY trusts the proxy.
 */
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'auth-failures-e2e-token';

describe('failed authentication without a trusted proxy', () => {
  const app = useMockApp(TOKEN, { HELIX_AUTH_FAILURES_PER_MINUTE: '3' });
  const get = (key: string, forwardedFor?: string) => {
    const request = app.t.http().get('/api/v1/conversations').set('X-API-Token', key);
    return forwardedFor ? request.set('X-Forwarded-For', forwardedFor) : request;
  };

  it('counts failures only, then answers 429 with Retry-After to everything from the address', async () => {
    for (let i = 0; i < 10; i++) await get(TOKEN).expect(200);
    // a different X-Forwarded-For each time changes nothing: the header is not believed
    for (let i = 1; i <= 3; i++) await get('wrong-token', `198.51.100.${i}`).expect(401);
    const limited = await get('wrong-token', '198.51.100.9').expect(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.body.message).toMatch(/failed authentications from this client address.*HELIX_AUTH_FAILURES_PER_MINUTE/);
    // a valid key from the same address waits too (else the block would not slow guessing)
    await get(TOKEN).expect(429);
    const graphql = await app.t.http().post('/graphql').set('X-API-Token', TOKEN).send({ query: '{ workspace { id } }' }).expect(429);
    expect(graphql.headers['retry-after']).toBeDefined();
    expect(graphql.body.errors[0].extensions).toEqual({ code: 'TOO_MANY_REQUESTS', status: 429 });
  });
});

describe('failed authentication behind a trusted proxy (HELIX_TRUST_PROXY)', () => {
  const app = useMockApp(TOKEN, { HELIX_AUTH_FAILURES_PER_MINUTE: '3', HELIX_TRUST_PROXY: 'loopback' });
  const get = (key: string, forwardedFor: string) => app.t.http().get('/api/v1/conversations').set('X-API-Token', key).set('X-Forwarded-For', forwardedFor);

  it('counts each client named by X-Forwarded-For on its own', async () => {
    for (let i = 0; i < 3; i++) await get('wrong-token', '203.0.113.5').expect(401);
    await get('wrong-token', '203.0.113.5').expect(429);
    await get(TOKEN, '203.0.113.5').expect(429);
    // another client behind the same proxy is not blocked
    await get(TOKEN, '203.0.113.6').expect(200);
    await get('wrong-token', '203.0.113.6').expect(401);
    // the client is the rightmost address the trusted proxy did not add: a spoofed first entry changes nothing
    await get('wrong-token', '10.9.9.9, 203.0.113.5').expect(429);
  });
});
