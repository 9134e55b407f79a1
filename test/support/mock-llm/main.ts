/**
 * `npm run mock-llm`: the mock OpenAI-compatible server as a process (PORT, HOST env; PORT
 * defaults to 8090, 0 picks a free port). Point Helix at it with OPENAI_BASE_URL=<printed URL>
 * and any OPENAI_API_KEY. The directive grammar is documented at the top of mock-llm.ts.
 */
import { startMockLlm } from './mock-llm';

async function main(): Promise<void> {
  const port = process.env.PORT === undefined ? 8090 : Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535 (got ${process.env.PORT})`);
  }
  const mock = await startMockLlm({ port, host: process.env.HOST || '127.0.0.1' });
  process.stdout.write(`Mock LLM listening at ${mock.url}\n`);
  const stop = () => void mock.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
