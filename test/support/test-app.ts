import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createApp } from '../../src/app.factory';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { GENEROUS_LIMITS, STARTUP_TIMEOUT_MS } from './limits';
import { HelixApi } from './sse-client';
import { createTestDatabase, TestDatabase } from './test-database';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** supertest bound to the running server, paths relative to the root */
  http: () => ReturnType<typeof request>;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /**
   * false: a database without pgvector (embedded: PGlite without the extension; PostgreSQL: a
   * database owned by a role that may not create it), where retrieval is lexical-only
   */
  vector?: boolean;
}

/** Starts the real application on an ephemeral loopback port against a fresh database. */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase({ vector: options.vector });
  const config = loadConfig({ LOG_LEVEL: 'silent', HELIX_FAKE_MODEL: '1', ...GENEROUS_LIMITS, ...database.env, ...env });
  const app = await createApp(config, { embeddedVector: options.vector ?? true });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    app,
    config,
    baseUrl,
    http: () => request(baseUrl),
    database,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}

export interface UsedApp {
  t: TestApp;
  /** the REST API with the app's token */
  api: HelixApi;
}

/**
 * `startTestApp` with HELIX_API_TOKEN `token`, started before the calling `describe`'s tests and
 * closed after them; the fields are set once `beforeAll` has run.
 */
export function useTestApp(token: string, env: Record<string, string> = {}): UsedApp {
  const ctx = {} as UsedApp;
  beforeAll(async () => {
    ctx.t = await startTestApp({ HELIX_API_TOKEN: token, ...env });
    ctx.api = new HelixApi(ctx.t.baseUrl, token);
  }, STARTUP_TIMEOUT_MS);
  afterAll(() => ctx.t?.close());
  return ctx;
}
