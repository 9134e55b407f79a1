/**
 * Traces on a real database (PGlite, or PostgreSQL with HELIX_TEST_DATABASE_URL): spans written
 * behind and combined in the table, a run's span tree, the traces list filtered and paged, and
 * the retention job that drops old model requests.
 */
import { OtelExport } from './otel/otel-export';
import { WorkspaceRepository } from '../workspace/workspace.repository';
import type { AppConfig } from '../config/app-config';
import { openTestDatabase } from '../../test/support/test-prisma';
import type { MetricsService } from './metrics.service';
import type { SecretRedactor } from '../model/secret-redactor';
import type { RunSignal } from '../runtime/store/run-observer';
import type { StepInput } from '../runtime/loop/step-hooks';
import { SpanWriter } from './span-writer';
import { TraceReader } from './trace-reader';
import { TraceRetention } from './trace-retention';
import { TraceRepository } from './trace.repository';
import { TraceService } from './trace.service';

const DAY = 86_400_000;
const noMetrics = { modelCall: () => undefined, providerError: () => undefined, retry: () => undefined, fallback: () => undefined } as unknown as MetricsService;
const noRedaction = { redact: <T>(value: T) => value } as SecretRedactor;

describe('traces (database)', () => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  let writer: SpanWriter;
  let traces: TraceService;
  let reader: TraceReader;
  let retention: TraceRetention;
  let counter = 0;

  beforeAll(async () => {
    db = await openTestDatabase();
    const repository = new TraceRepository(db.sql);
    writer = new SpanWriter(repository);
    traces = new TraceService(writer, noMetrics, noRedaction, new OtelExport({} as AppConfig));
    reader = new TraceReader(repository, writer);
    retention = new TraceRetention(repository, { HELIX_TRACE_RETENTION_DAYS: 7 } as AppConfig);
    for (const ws of ['ws_a', 'ws_b']) {
      await new WorkspaceRepository(db.sql).ensure(ws, ws);
      await db.sql.$executeRaw`INSERT INTO conversations (id, workspace_id, title, updated_at) VALUES (${`conv_${ws}`}, ${ws}, 't', now())`;
    }
  });
  afterAll(() => db?.close());

  async function run(workspaceId: string, model: string, state: 'SUCCEEDED' | 'FAILED' | undefined, at: Date): Promise<string> {
    const runId = `run_${String(++counter).padStart(3, '0')}`;
    await db.sql.$executeRaw`
      INSERT INTO runs (id, conversation_id, workspace_id, goal, model, max_steps, updated_at) VALUES (${runId}, ${`conv_${workspaceId}`}, ${workspaceId}, 'g', '{}'::jsonb, 5, now())`;
    const started: RunSignal = { type: 'run.started', runId, workspaceId, conversationId: `conv_${workspaceId}`, mode: 'react', model, at };
    traces.record(started);
    if (state) traces.record({ type: 'run.ended', runId, state, startedAt: at, at: new Date(at.getTime() + 1000) });
    return runId;
  }

  function modelCall(runId: string, step: number) {
    const input = {
      run: { id: runId, conversationId: 'c', mode: 'react', model: { provider: 'openai', modelId: 'm' }, plan: null, step },
      workspaceId: 'ws_a', settings: {}, fallbacks: [], history: [], purpose: 'answer',
    } as StepInput;
    const span = traces.start(input, { model: input.run.model, messages: [{ role: 'user', content: 'hi' }] }, 3);
    span.end({ usage: { promptTokens: 3, completionTokens: 2, cost: 0 }, response: { text: 'ok', toolCalls: [] } });
  }

  it("builds a run's span tree: run → steps → model and tool calls, the step spanning its children", async () => {
    const runId = await run('ws_a', 'openai:m', undefined, new Date());
    modelCall(runId, 1);
    const toolStart = new Date(Date.now() + 5);
    traces.record({ type: 'tool.call', runId, step: 1, callId: 'call_1', name: 'calculator', decision: 'confirm', approvalWaitMs: 40, startedAt: toolStart, durationMs: 30, ok: true });
    modelCall(runId, 2);
    traces.record({ type: 'run.ended', runId, state: 'SUCCEEDED', startedAt: new Date(Date.now() - 10), at: new Date(Date.now() + 100) });

    const [root, ...others] = await reader.spanTree(runId);
    expect(others).toEqual([]);
    expect(root).toMatchObject({ id: runId, kind: 'run', status: 'ok', parentId: null, attributes: { workspaceId: 'ws_a', model: 'openai:m', state: 'SUCCEEDED' } });
    expect(root.children.map((s) => [s.kind, s.name])).toEqual([['step', 'step 1'], ['step', 'step 2']]);
    const [step1] = root.children;
    expect(step1.children.map((s) => s.kind)).toEqual(['model', 'tool']);
    expect(step1.children[0].attributes).toMatchObject({ promptTokens: 3, completionTokens: 2, request: { messages: [{ content: 'hi' }] } });
    expect(step1.children[1]).toMatchObject({ status: 'ok', attributes: { name: 'calculator', decision: 'confirm', approvalWaitMs: 40, ok: true }, durationMs: 30 });
    // the step covers its model call and its tool call
    expect(step1.endedAt!.getTime()).toBe(toolStart.getTime() + 30);
    expect(step1.durationMs).toBe(step1.endedAt!.getTime() - step1.startedAt.getTime());
  });

  it('lists traces newest first, filtered by workspace, model, state and time, in pages', async () => {
    const base = Date.UTC(2026, 0, 10);
    const ids = [
      await run('ws_b', 'openai:x', 'SUCCEEDED', new Date(base)),
      await run('ws_b', 'openai:y', 'FAILED', new Date(base + 1000)),
      await run('ws_b', 'openai:x', 'SUCCEEDED', new Date(base + 2000)),
      await run('ws_b', 'openai:x', undefined, new Date(base + 3000)),
    ];
    const page = (filter: object, first = 10) => reader.traces({ workspaceId: 'ws_b', ...filter }, first);
    expect((await page({})).items.map((s) => s.id)).toEqual([...ids].reverse());
    expect((await page({ model: 'openai:x' })).items.map((s) => s.id)).toEqual([ids[3], ids[2], ids[0]]);
    expect((await page({ state: 'FAILED' })).items.map((s) => s.id)).toEqual([ids[1]]);
    expect((await page({ state: 'RUNNING' })).items.map((s) => s.id)).toEqual([ids[3]]);
    expect((await page({ from: new Date(base + 1000), to: new Date(base + 3000) })).items.map((s) => s.id)).toEqual([ids[2], ids[1]]);
    expect((await reader.traces({ workspaceId: 'nobody' })).items).toEqual([]);

    const first = await page({}, 3);
    expect(first.items.map((s) => s.id)).toEqual([ids[3], ids[2], ids[1]]);
    const second = await reader.traces({ workspaceId: 'ws_b' }, 3, first.nextCursor!);
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    await expect(reader.traces({}, 3, 'not-a-cursor')).rejects.toThrow('cursor');
  });

  it('a span whose run is not stored yet is written once the run is', async () => {
    const runId = `run_late_${++counter}`;
    modelCall(runId, 1); // a first call is traced before its run is written
    await writer.flush();
    expect(await reader.spanTree(runId)).toEqual([]);
    await db.sql.$executeRaw`INSERT INTO runs (id, conversation_id, workspace_id, goal, model, max_steps, updated_at) VALUES (${runId}, 'conv_ws_a', 'ws_a', 'g', '{}'::jsonb, 5, now())`;
    const tree = await reader.spanTree(runId);
    expect(tree.map((s) => [s.kind, s.children.map((c) => c.kind)])).toEqual([['step', ['model']]]);
  });

  it('writes a backlog of thousands of spans, a few per statement', async () => {
    const runId = await run('ws_a', 'openai:m', 'SUCCEEDED', new Date());
    const startedAt = new Date();
    for (let i = 0; i < 7000; i++) {
      traces.record({ type: 'tool.call', runId, step: 1, callId: `call_${i}`, name: 'calculator', decision: 'always', startedAt, durationMs: 1, ok: true });
    }
    const [root] = await reader.spanTree(runId);
    expect(root.children[0].children).toHaveLength(7000);
  });

  it('retention strips the requests and responses of old model spans and keeps their figures', async () => {
    const oldRun = await run('ws_a', 'openai:m', 'SUCCEEDED', new Date());
    const newRun = await run('ws_a', 'openai:m', 'SUCCEEDED', new Date());
    modelCall(oldRun, 1);
    modelCall(newRun, 1);
    await writer.flush();
    await db.sql.$executeRaw`UPDATE spans SET started_at = started_at - interval '8 days' WHERE trace_id = ${oldRun}`;

    expect(await retention.purge()).toBe(1);
    const model = async (runId: string) => (await reader.spanTree(runId))[0].children[0].children[0];
    const stripped = await model(oldRun);
    expect(stripped.attributes).not.toHaveProperty('request');
    expect(stripped.attributes).not.toHaveProperty('response');
    expect(stripped.attributes).toMatchObject({ promptTokens: 3, completionTokens: 2 });
    expect((await model(newRun)).attributes).toHaveProperty('request');
    expect(await retention.purge(new Date(Date.now() + 6 * DAY))).toBe(0); // the new one is still within 7 days
    expect(await retention.purge(new Date(Date.now() + 8 * DAY))).toBeGreaterThanOrEqual(1); // with the other tests' spans
    expect((await model(newRun)).attributes).not.toHaveProperty('request');
  });
});
