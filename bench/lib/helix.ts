/**
 * Helix as a child process for the benchmarks, built once into .bench/build (so that a
 * concurrent `npm run build` or an edit in src/ mid-run does not change what is measured), and
 * its client calls: conversation, message → run, run events over SSE.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expectJson, jsonAgent, openSse, type SseEvent, type SseStream } from './http';
import { ROOT, SCRATCH, spawnLogged, waitReady, type Child } from './procs';

const BUILD = join(SCRATCH, 'build');
// the server's build copies the same files (scripts/build-server.js)
const { copyPlainScripts } = require('../../scripts/plain-scripts') as { copyPlainScripts: (src: string, out: string) => void };
const run = promisify(execFile);

/**
 * Compiles src/ (or `srcDir`, a patched copy for an experiment) into .bench/build/dist. The
 * migration runner finds prisma/migrations two levels above its own file, so a prisma link to the
 * repository's prisma/ folder sits beside dist/, as does package.json (its version is the
 * OpenAPI document's).
 * Returns the entry file, or undefined (with the reason) when the build fails.
 */
export async function buildHelix(srcDir?: string): Promise<{ entry?: string; error?: string }> {
  // an alternative source tree (an experiment) builds in its own folder beside it
  const base = srcDir ? join(srcDir, '..', '.bench-build') : BUILD;
  rmSync(join(base, 'dist'), { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const link = join(base, 'prisma');
  if (!existsSync(link)) symlinkSync(join(ROOT, 'prisma'), link, 'dir');
  copyFileSync(join(ROOT, 'package.json'), join(base, 'package.json'));
  let project = 'tsconfig.build.json';
  if (srcDir) {
    project = join(base, 'tsconfig.json');
    writeFileSync(project, JSON.stringify({
      extends: join(ROOT, 'tsconfig.build.json'),
      compilerOptions: { rootDir: srcDir, outDir: join(base, 'dist'), types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')] },
      include: [join(srcDir, '**', '*')],
      exclude: [join(srcDir, '**', '*.spec.ts')], // relative to the tsconfig's folder otherwise
    }));
  }
  try {
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project, '--outDir', join(base, 'dist'), '--sourceMap', 'true'], {
      cwd: ROOT, timeout: 300_000, maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as Error & { stdout?: string };
    return { error: (e.stdout || e.message).trim().split('\n').slice(0, 5).join(' | ') };
  }
  copyPlainScripts(srcDir ?? join(ROOT, 'src'), join(base, 'dist'));
  return { entry: join(base, 'dist', 'main.js') };
}

export interface HelixOptions {
  /** compiled entry; undefined runs src/main.ts through @swc-node/register */
  entry?: string;
  port: number;
  mockUrl: string;
  dataDir?: string;
  databaseUrl?: string;
  /** extra node flags, e.g. --cpu-prof */
  nodeArgs?: string[];
  name?: string;
  env?: Record<string, string>;
  /** open an IPC channel (the CPU-profile hook listens on it) */
  ipc?: boolean;
}

export interface Helix {
  child: Child;
  port: number;
  pid: number;
  /** the build answers POST …/messages with the run's stream when asked (builds before 56496be do not) */
  streamingPost?: boolean;
}

export async function startHelix(options: HelixOptions): Promise<Helix> {
  const args = options.entry
    ? [...(options.nodeArgs ?? []), options.entry]
    : [...(options.nodeArgs ?? []), '-r', '@swc-node/register', join(ROOT, 'src', 'main.ts')];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // the C library's allocator settings (docs/DEPLOY.md#memory): measured as the bench is run
    ...(process.env.GLIBC_TUNABLES && { GLIBC_TUNABLES: process.env.GLIBC_TUNABLES }),
    PORT: String(options.port),
    HOST: '127.0.0.1',
    OPENAI_API_KEY: 'bench',
    OPENAI_BASE_URL: options.mockUrl,
    HELIX_DEFAULT_MODEL: 'openai:mock-model',
    HELIX_MAX_CONCURRENT_RUNS: '200',
    // the load is the point: rate and stream limits off, room for every run in flight
    HELIX_RATE_LIMIT_PER_KEY: '0',
    HELIX_RATE_LIMIT_PER_IP: '0',
    HELIX_MAX_SSE_PER_KEY: '0',
    HELIX_MAX_LIVE_RUNS_PER_WORKSPACE: '1000000',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...options.env,
  };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  if (options.dataDir) env.HELIX_DATA_DIR = options.dataDir;
  const child = spawnLogged(options.name ?? 'helix', process.execPath, args, {
    cwd: ROOT, env, ...(options.ipc && { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] as const }),
  });
  try {
    await waitReady(child, options.port, '/health/ready', 120_000);
  } catch (error) {
    await child.stop(3000);
    throw error;
  }
  return { child, port: options.port, pid: child.pid };
}

export interface StartedRun {
  id: string;
  state: string;
  streamToken?: string;
}

/** Titled, so that no auto-title call follows the first run: the benchmarks measure runs, as before titles. */
export async function newConversation(port: number): Promise<string> {
  const conversation = await expectJson<{ id: string }>(port, 'POST', '/api/v1/conversations', { title: 'bench' });
  return conversation.id;
}

export async function postMessage(port: number, conversationId: string, text: string, mode?: string): Promise<StartedRun> {
  const body = await expectJson<{ run: StartedRun }>(port, 'POST', `/api/v1/conversations/${conversationId}/messages`, {
    text, ...(mode && { mode }),
  });
  return body.run;
}

/** @param options.pooled on a kept-alive connection of the client's pool (as after a POST) */
export function runEvents(
  port: number,
  runId: string,
  onEvent: (event: SseEvent, at: number) => void,
  options: { onOpen?: (at: number) => void; after?: number; pooled?: boolean } = {},
): SseStream {
  return openSse({
    port,
    path: `/api/v1/runs/${runId}/events${options.after !== undefined ? `?after=${options.after}` : ''}`,
    onEvent,
    onOpen: options.onOpen,
    ...(options.pooled && { agent: jsonAgent }),
  });
}

/** `POST …/messages` with `Accept: text/event-stream`: the run's events are the POST's answer. */
export function postMessageStreaming(
  port: number,
  conversationId: string,
  text: string,
  onEvent: (event: SseEvent, at: number) => void,
): SseStream {
  return openSse({ port, path: `/api/v1/conversations/${conversationId}/messages`, method: 'POST', body: { text }, onEvent, agent: jsonAgent });
}

/** A message of an OpenAI chat completion request, as a client resends its conversation. */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * `POST /v1/chat/completions` with `stream: true`, `model` the default agent: OpenAI's chunks as
 * `data:` frames (read with `chatText`), `data: [DONE]` last.
 */
export function chatCompletionStreaming(port: number, messages: ChatMessage[], onEvent: (event: SseEvent, at: number) => void): SseStream {
  return openSse({
    port, path: '/v1/chat/completions', method: 'POST', body: { model: 'default', messages, stream: true }, onEvent, agent: jsonAgent,
  });
}

/** The content delta of an OpenAI chunk frame ('' for `[DONE]` and the role-only first chunk); throws on an error frame. */
export function chatText(event: SseEvent): string {
  if (event.data === '[DONE]') return '';
  const chunk = JSON.parse(event.data) as { choices?: Array<{ delta?: { content?: string | null } }>; error?: { message?: string } };
  if (chunk.error) throw new Error(`stream error: ${chunk.error.message ?? event.data.slice(0, 200)}`);
  return chunk.choices?.[0]?.delta?.content ?? '';
}

/** Whether POST …/messages with `Accept: text/event-stream` answers with an event stream. */
export async function supportsStreamingPost(port: number): Promise<boolean> {
  const conversationId = await newConversation(port);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1', port, method: 'POST', path: `/api/v1/conversations/${conversationId}/messages`,
        headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      },
      (res) => {
        resolve(String(res.headers['content-type']).startsWith('text/event-stream'));
        res.resume(); // read to its end (the run's done, or the JSON answer)
      },
    );
    req.on('error', () => resolve(false));
    req.end(JSON.stringify({ text: 'MOCK:{"tokens":1}' }));
  });
}

/** Text of a Helix `token` event. */
export function helixText(event: SseEvent): string {
  if (event.event !== 'token') return '';
  return (JSON.parse(event.data) as { text?: string }).text ?? '';
}
