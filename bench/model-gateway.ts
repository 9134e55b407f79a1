/**
 * Gateway overhead benchmark: reads the same N-token mock stream with the bare openai SDK and
 * through ModelGateway, and prints per-token overhead (median of several runs), the throughput
 * ratio and the added time-to-first-token. Run: node -r @swc-node/register bench/model-gateway.ts
 * Options (env): TOKENS (default 5000), RUNS (default 15), TTFT_RUNS (default 200).
 * Targets: added TTFT ≤ 5 ms p50; throughput ≥ 0.8 of the bare SDK.
 */
import Module from 'node:module';
import { performance } from 'node:perf_hooks';

// The generated Prisma client imports './x.js' from .ts sources: let those resolve to .ts under
// swc-node (Jest does the same with moduleNameMapper). Installed before the dynamic imports below.
type Resolve = (request: string, parent: unknown, ...rest: unknown[]) => string;
const mod = Module as unknown as { _resolveFilename: Resolve };
const resolveFilename = mod._resolveFilename;
mod._resolveFilename = function (this: unknown, request, parent, ...rest) {
  try {
    return resolveFilename.call(this, request, parent, ...rest);
  } catch (error) {
    if (!request.startsWith('.') || !request.endsWith('.js')) throw error;
    return resolveFilename.call(this, `${request.slice(0, -3)}.ts`, parent, ...rest);
  }
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  await import('reflect-metadata');
  const { default: OpenAI } = await import('openai');
  const { startMockLlm } = await import('../test/support/mock-llm/mock-llm.js');
  const { loadConfig } = await import('../src/config/app-config.js');
  const { ModelCatalog } = await import('../src/model/model-catalog.js');
  const { ModelConfigService } = await import('../src/model/model-config.service.js');
  const { ModelRouter } = await import('../src/model/model-router.js');
  const { ModelGateway } = await import('../src/model/model-gateway.js');
  type ConfigRows = ConstructorParameters<typeof ModelConfigService>[0];

  const tokens = Number(process.env.TOKENS ?? 5000);
  const runs = Number(process.env.RUNS ?? 15);
  const ttftRuns = Number(process.env.TTFT_RUNS ?? 200);
  const mock = await startMockLlm();
  const config = loadConfig({ OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: mock.url, HELIX_DATA_DIR: 'memory://' });
  // no database: no ModelConfig rows, as in a fresh install
  const rows: ConfigRows = { forProvider: async () => [] };
  const gateway = new ModelGateway(new ModelRouter(new ModelCatalog(), new ModelConfigService(rows), config));
  const sdk = new OpenAI({ apiKey: 'bench', baseURL: mock.url, maxRetries: 0 });
  const model = { provider: 'openai', modelId: 'mock-model' };

  const content = (n: number) => `bench MOCK:{"tokens":${n}}`;
  async function bare(n: number): Promise<{ total: number; ttft: number; count: number }> {
    const start = performance.now();
    let ttft = 0;
    let count = 0;
    const stream = await sdk.chat.completions.create({
      model: model.modelId, messages: [{ role: 'user', content: content(n) }], stream: true, stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta?.content;
      if (text) {
        if (count++ === 0) ttft = performance.now() - start;
      }
    }
    return { total: performance.now() - start, ttft, count };
  }
  async function viaGateway(n: number): Promise<{ total: number; ttft: number; count: number }> {
    const start = performance.now();
    let ttft = 0;
    let count = 0;
    for await (const chunk of gateway.stream({ model, messages: [{ role: 'user', content: content(n) }] })) {
      if (chunk.type === 'text') {
        if (count++ === 0) ttft = performance.now() - start;
      }
    }
    return { total: performance.now() - start, ttft, count };
  }

  // warm up both paths (JIT, connection pools, the router's cache)
  for (let i = 0; i < 3; i++) {
    await bare(tokens);
    await viaGateway(tokens);
  }
  const bareTimes: number[] = [];
  const gwTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    // alternate so drift (GC, CPU frequency) hits both sides alike
    const b = await bare(tokens);
    const g = await viaGateway(tokens);
    if (b.count !== tokens || g.count !== tokens) throw new Error(`expected ${tokens} tokens, got ${b.count} / ${g.count}`);
    bareTimes.push(b.total);
    gwTimes.push(g.total);
  }
  const bareTtft: number[] = [];
  const gwTtft: number[] = [];
  for (let i = 0; i < ttftRuns; i++) {
    bareTtft.push((await bare(1)).ttft);
    gwTtft.push((await viaGateway(1)).ttft);
  }
  await mock.close();

  const bareMs = median(bareTimes);
  const gwMs = median(gwTimes);
  const perTokenUs = ((gwMs - bareMs) / tokens) * 1000;
  const fmt = (n: number) => n.toFixed(3);
  console.log(`tokens per stream: ${tokens}, runs: ${runs} (median)`);
  console.log(`bare SDK:      ${fmt(bareMs)} ms  (${fmt((bareMs / tokens) * 1000)} µs/token, ${Math.round(tokens / (bareMs / 1000))} tokens/s)`);
  console.log(`ModelGateway:  ${fmt(gwMs)} ms  (${fmt((gwMs / tokens) * 1000)} µs/token, ${Math.round(tokens / (gwMs / 1000))} tokens/s)`);
  console.log(`overhead:      ${fmt(perTokenUs)} µs/token; throughput ratio gateway/bare = ${fmt(bareMs / gwMs)} (target ≥ 0.8)`);
  console.log(`TTFT p50 (1-token stream, ${ttftRuns} runs): bare ${fmt(median(bareTtft))} ms, gateway ${fmt(median(gwTtft))} ms, added ${fmt(median(gwTtft) - median(bareTtft))} ms (target ≤ 5 ms)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
