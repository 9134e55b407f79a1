import type { SpanRecord } from './span-rows';
import { MAX_QUEUED_SPANS, SPAN_FLUSH_MS, SPAN_RUN_WAIT_MS, SPAN_WRITE_TRIES, SpanWriter } from './span-writer';
import type { TraceRepository } from './trace.repository';

/** A repository that records each batch; runs in `stored` exist, `failing` makes the next writes throw. */
class FakeSpans {
  readonly batches: SpanRecord[][] = [];
  readonly stored = new Set<string>(['run_a']);
  failing = 0;

  async upsert(spans: SpanRecord[]): Promise<Set<string>> {
    this.batches.push(spans);
    if (this.failing > 0) {
      this.failing--;
      throw new Error('database unavailable');
    }
    return new Set(spans.filter((s) => this.stored.has(s.runId)).map((s) => s.id));
  }
}

const at = (ms: number) => new Date(Date.UTC(2026, 11, 1, 12, 0, 0, ms));
const step = (runId: string, from: number, to: number, status: SpanRecord['status'] = 'ok'): SpanRecord => ({
  id: `${runId}.step.1`, traceId: runId, parentId: runId, runId, name: 'step 1', kind: 'step', status,
  startedAt: at(from), endedAt: at(to), durationMs: to - from, attributes: { step: 1 },
});

describe('SpanWriter', () => {
  let spans: FakeSpans;
  let writer: SpanWriter;
  beforeEach(() => {
    spans = new FakeSpans();
    writer = new SpanWriter(spans as unknown as TraceRepository);
  });
  afterEach(() => jest.useRealTimers());

  it('writes nothing at once, then every span queued meanwhile in one batch', async () => {
    jest.useFakeTimers();
    writer.write(step('run_a', 0, 10));
    writer.write({ ...step('run_a', 0, 10), id: 'span_2', kind: 'model' } as SpanRecord);
    expect(spans.batches).toHaveLength(0);
    await jest.advanceTimersByTimeAsync(SPAN_FLUSH_MS);
    expect(spans.batches.map((b) => b.map((s) => s.id))).toEqual([['run_a.step.1', 'span_2']]);
  });

  it('combines writes of one span before they go: earliest start, latest end, worse status', async () => {
    writer.write(step('run_a', 100, 200));
    writer.write(step('run_a', 50, 150, 'error'));
    writer.write(step('run_a', 300, 400));
    await writer.flush();
    expect(spans.batches[0]).toEqual([expect.objectContaining({ startedAt: at(50), endedAt: at(400), durationMs: 350, status: 'error' })]);
  });

  it('retries a failed batch with the next one, then drops it', async () => {
    spans.failing = SPAN_WRITE_TRIES;
    writer.write(step('run_a', 0, 10));
    for (let i = 0; i < SPAN_WRITE_TRIES; i++) await writer.flush();
    expect(spans.batches).toHaveLength(SPAN_WRITE_TRIES);
    await writer.flush();
    expect(spans.batches).toHaveLength(SPAN_WRITE_TRIES); // dropped: nothing left to write
  });

  it('a failed write is not lost when the database comes back', async () => {
    spans.failing = 1;
    writer.write(step('run_a', 0, 10));
    await writer.flush();
    writer.write(step('run_a', 5, 20));
    await writer.flush();
    expect(spans.batches[1]).toEqual([expect.objectContaining({ startedAt: at(0), endedAt: at(20) })]);
  });

  it("a span whose run is not stored yet waits for it, and is dropped when it never comes", async () => {
    let now = 0;
    writer.now = () => now;
    writer.write(step('run_b', 0, 10));
    writer.write(step('run_c', 0, 10));
    await writer.flush();
    spans.stored.add('run_b'); // its run was written meanwhile
    await writer.flush();
    expect(spans.batches[1].map((s) => s.runId).sort()).toEqual(['run_b', 'run_c']);
    now = SPAN_RUN_WAIT_MS;
    await writer.flush(); // run_c's wait ends with this attempt
    await writer.flush();
    expect(spans.batches.map((b) => b.map((s) => s.runId))).toEqual([['run_b', 'run_c'], ['run_b', 'run_c'], ['run_c']]);
  });
});

describe('SpanWriter queue bound', () => {
  it('drops new spans rather than grow without bound while nothing can be written; updates of queued ones still merge', async () => {
    const spans = new FakeSpans();
    const writer = new SpanWriter(spans as unknown as TraceRepository);
    const span = (id: string, to: number) => ({ ...step('run_a', 0, to), id }) as SpanRecord;
    for (let i = 0; i < MAX_QUEUED_SPANS; i++) writer.write(span(`span_${i}`, 1));
    writer.write(span('span_new', 1));
    writer.write(span('span_0', 9));
    await writer.flush();
    expect(spans.batches[0]).toHaveLength(MAX_QUEUED_SPANS);
    expect(spans.batches[0].some((s) => s.id === 'span_new')).toBe(false);
    expect(spans.batches[0][0]).toMatchObject({ id: 'span_0', endedAt: at(9) });
  });
});
