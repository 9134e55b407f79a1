import { startMockLlm, type MockLlm } from './mock-llm/mock-llm';
import { HelixApi, mockModelEnv } from './sse-client';
import { startTestApp, type TestApp } from './test-app';
import { STARTUP_TIMEOUT_MS } from './limits';

export interface MockApp {
  mock: MockLlm;
  t: TestApp;
  api: HelixApi;
}

/**
 * The mock LLM and a Helix app talking to it, started before the file's tests and closed after
 * them (jest hooks of the calling `describe`); the fields are set once `beforeAll` has run.
 */
export function useMockApp(token: string, env: Record<string, string> = {}): MockApp {
  const ctx = {} as MockApp;
  beforeAll(async () => {
    ctx.mock = await startMockLlm();
    ctx.t = await startTestApp({ ...mockModelEnv(ctx.mock.url), HELIX_API_TOKEN: token, ...env });
    ctx.api = new HelixApi(ctx.t.baseUrl, token);
  }, STARTUP_TIMEOUT_MS);
  afterAll(async () => {
    await ctx.t?.close();
    await ctx.mock?.close();
  });
  return ctx;
}
