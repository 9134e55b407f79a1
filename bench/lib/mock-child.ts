/**
 * The project's mock provider (test/support/mock-llm) as a child process of the benchmark, so
 * that neither Helix nor the measuring client shares an event loop with it. Besides the MOCK:
 * directives it takes IPC commands from the parent:
 *
 *   {cmd: 'hold', key, tokens, perTick, tickMs}  the next chat request is held (the parent gets
 *        {evt: 'held', key}) until {cmd: 'release', key}; then `tokens` content deltas "t1 " …
 *        are streamed, `perTick` chunks every `tickMs` ms (a steady, long stream).
 *   {cmd: 'release', key}
 *
 * It announces itself with {evt: 'ready', url} and acknowledges a hold with {evt: 'queued', key}.
 */
import type { ServerResponse } from 'node:http';
import { startMockLlm, type MockRequestBody } from '../../test/support/mock-llm/mock-llm';

interface HoldCommand {
  cmd: 'hold';
  key: string;
  tokens: number;
  perTick: number;
  tickMs: number;
}
type Command = HoldCommand | { cmd: 'release'; key: string };

const releases = new Map<string, () => void>();
const released = new Set<string>();

function send(message: unknown): void {
  process.send?.(message);
}

async function paced(res: ServerResponse, body: MockRequestBody, hold: HoldCommand): Promise<void> {
  const model = JSON.stringify(body.model ?? 'mock-model');
  const head = `data: {"id":"chatcmpl-bench-${hold.key}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":${model},"choices":[{"index":0,"delta":`;
  const chunk = (delta: string, finish = 'null') => `${head}${delta},"finish_reason":${finish}}]}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.write(chunk('{"role":"assistant","content":""}'));
  let closed = false;
  res.once('close', () => (closed = true));
  for (let i = 1; i <= hold.tokens && !closed; ) {
    let text = '';
    for (let k = 0; k < hold.perTick && i <= hold.tokens; k++, i++) text += chunk(`{"content":"t${i} "}`);
    res.write(text);
    if (i <= hold.tokens) await new Promise((resolve) => setTimeout(resolve, hold.tickMs));
  }
  if (closed) return;
  let tail = chunk('{}', '"stop"');
  if (body.stream_options?.include_usage) {
    const usage = { prompt_tokens: 10, completion_tokens: hold.tokens, total_tokens: 10 + hold.tokens };
    tail += `data: {"id":"chatcmpl-bench-${hold.key}","object":"chat.completion.chunk","created":0,"model":${model},"choices":[],"usage":${JSON.stringify(usage)}}\n\n`;
  }
  res.end(`${tail}data: [DONE]\n\n`);
}

async function main(): Promise<void> {
  const mock = await startMockLlm({ port: Number(process.env.PORT ?? 0) });
  process.on('message', (message: Command) => {
    if (message.cmd === 'hold') {
      const hold = message;
      mock.enqueue(async (ctx) => {
        send({ evt: 'held', key: hold.key });
        if (!released.has(hold.key)) await new Promise<void>((resolve) => releases.set(hold.key, resolve));
        await paced(ctx.res, ctx.body, hold);
      });
      send({ evt: 'queued', key: hold.key });
    } else if (message.cmd === 'release') {
      released.add(message.key);
      releases.get(message.key)?.();
    }
  });
  process.on('disconnect', () => void mock.close().then(() => process.exit(0)));
  process.once('SIGTERM', () => void mock.close().then(() => process.exit(0)));
  send({ evt: 'ready', url: mock.url });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
