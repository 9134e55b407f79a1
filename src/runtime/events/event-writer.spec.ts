import { Logger } from '@nestjs/common';
import { openRunEventsDatabase, until, type RunEventsDatabase } from '../../../test/support/run-events-database';
import { REPLACEMENT } from '../../common/storable-text';
import type { SqlClient } from '../../database/sql-client';
import { InProcessEventBus } from './event-bus';
import { EventsNotPersistedError, EventWriter } from './event-writer';
import { DEFAULT_WRITER_LIMITS, type WriterLimits } from './writer-limits';
import { type PendingEvent, RunEventRepository, SEGMENT_PARTS } from '../store/run-event.repository';
import type { RunEvent } from '../store/run-events';
import type { RunSignal } from '../store/run-observer';

/** A repository whose inserts throw what `failure(batch)` returns, if anything. */
class FailingRepository extends RunEventRepository {
  attempts = 0;
  constructor(
    sql: SqlClient,
    private readonly failure: (batch: readonly PendingEvent[]) => Error | undefined,
  ) {
    super(sql);
  }
  override async insert(batch: readonly PendingEvent[]): Promise<void> {
    this.attempts++;
    const error = this.failure(batch);
    if (error) throw error;
    return super.insert(batch);
  }
}

/** What PostgreSQL answers when it refuses a value (SQLSTATE class 22). */
const refused = () => Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' });
/** What a driver throws when the server is gone (no SQLSTATE). */
const connectionLost = () => new Error('Connection terminated unexpectedly');
const text = (event: RunEvent) => (event.type === 'token' || event.type === 'status' ? event.data.text : event.type);

const FAST: WriterLimits = { ...DEFAULT_WRITER_LIMITS, flushTimeoutMs: 300, shutdownTimeoutMs: 200, unhealthyAfterMs: 100, retryMs: { first: 10, max: 40 } };

describe('EventWriter', () => {
  let db: RunEventsDatabase;
  let repository: RunEventRepository;
  let published: RunEvent[];
  let bus: InProcessEventBus;
  let errors: jest.SpyInstance;

  beforeAll(async () => {
    db = await openRunEventsDatabase();
    repository = new RunEventRepository(db.sql);
  });
  afterAll(() => db.close());
  beforeEach(() => {
    published = [];
    bus = new InProcessEventBus();
    jest.spyOn(bus, 'publish').mockImplementation((event) => void published.push(event));
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const rowsOf = (runId: string) => db.prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });

  it('numbers events 1..n without gaps and persists them all by flush()', async () => {
    const writer = new EventWriter(repository, bus);
    const runId = await db.newRun();
    await writer.open(runId);
    writer.emit(runId, 'status', { phase: 'thinking', text: 'Thinking' });
    writer.emitTokens(runId, 'Hello');
    writer.emit(runId, 'status', { phase: 'tool', text: 'x' });
    await writer.flush(runId);
    const rows = await rowsOf(runId);
    expect(rows.map((r) => [r.seq, r.type])).toEqual([[1, 'status'], [2, 'token'], [3, 'status']]);
    expect(rows[1].data).toEqual({ parts: ['Hello'] });
    expect(published.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('tells the observer how many events each group commit wrote: one signal per batch', async () => {
    const signals: RunSignal[] = [];
    const writer = new EventWriter(repository, bus, DEFAULT_WRITER_LIMITS, { record: (signal) => void signals.push(signal) });
    const [first, second] = [await db.newRun(), await db.newRun()];
    await writer.open(first);
    await writer.open(second);
    for (const runId of [first, second]) {
      writer.emit(runId, 'status', { phase: 'thinking', text: 'Thinking' });
      writer.emitTokens(runId, 'Hello');
    }
    await Promise.all([writer.flush(first), writer.flush(second)]);
    writer.emit(first, 'status', { phase: 'tool', text: 'x' });
    await writer.flush(first);
    expect(signals).toEqual([{ type: 'events.written', count: 4 }, { type: 'events.written', count: 1 }]);
  });

  it('stores consecutive token events as segment rows', async () => {
    const writer = new EventWriter(repository, bus);
    const runId = await db.newRun();
    await writer.open(runId);
    const count = SEGMENT_PARTS * 2 + 5;
    for (let i = 1; i <= count; i++) {
      writer.emitTokens(runId, `t${i} `);
      await writer.flush(runId); // each token its own event, each flush its own write
    }
    writer.emit(runId, 'status', { phase: 'tool', text: 'between' });
    writer.emitTokens(runId, 'after');
    await writer.finish(runId, 'SUCCEEDED');
    expect((await rowsOf(runId)).map((r) => [r.seq, r.type])).toEqual([
      [1, 'token'], [SEGMENT_PARTS + 1, 'token'], [SEGMENT_PARTS * 2 + 1, 'token'],
      [count + 1, 'status'], [count + 2, 'token'], [count + 3, 'done'],
    ]);
    const stored = await repository.readAfter(runId, 0, 1000);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: count + 3 }, (_, i) => i + 1));
  });

  it('continues the sequence after a restart (a new writer opens the same run)', async () => {
    const first = new EventWriter(repository, bus);
    const runId = await db.newRun();
    await first.open(runId);
    first.emit(runId, 'status', { phase: 'thinking', text: 'before' });
    first.emitTokens(runId, 'a');
    await first.flush(runId);
    const second = new EventWriter(repository, bus);
    await second.open(runId);
    second.emit(runId, 'status', { phase: 'thinking', text: 'after' });
    await second.finish(runId, 'SUCCEEDED');
    expect((await rowsOf(runId)).map((r) => [r.seq, r.type])).toEqual([[1, 'status'], [2, 'token'], [3, 'status'], [4, 'done']]);
  });

  it('stores text jsonb cannot hold (lone surrogates, NUL) repaired, and publishes it as stored', async () => {
    const writer = new EventWriter(repository, bus);
    const runId = await db.newRun();
    await writer.open(runId);
    writer.emit(runId, 'status', { phase: 'thinking', text: 'hi \ud800 there' });
    writer.emitTokens(runId, 'a\u0000b\udc00');
    writer.emit(runId, 'error', { code: 'rejected', message: 'reason: no\u0000' });
    await writer.flush(runId);
    const expected = [`hi ${REPLACEMENT} there`, `a${REPLACEMENT}b${REPLACEMENT}`, `reason: no${REPLACEMENT}`];
    const stored = await repository.readAfter(runId, 0, 10);
    expect(stored.map((e) => (e.type === 'error' ? e.data.message : text(e)))).toEqual(expected);
    expect(published.map((e) => (e.type === 'error' ? e.data.message : text(e)))).toEqual(expected);
  });

  it('does not let an event the table refuses hold up other runs: an error event takes its seq', async () => {
    const poisoned = (batch: readonly PendingEvent[]) => batch.some(({ event }) => event.type === 'status' && event.data.text === 'poison');
    const writer = new EventWriter(new FailingRepository(db.sql, (batch) => (poisoned(batch) ? refused() : undefined)), bus);
    const [bad, good] = [await db.newRun(), await db.newRun()];
    await writer.open(bad, 0);
    await writer.open(good, 0);
    writer.emit(bad, 'status', { phase: 'thinking', text: 'one' });
    writer.emit(good, 'status', { phase: 'thinking', text: 'g1' });
    writer.emit(bad, 'status', { phase: 'thinking', text: 'poison' });
    writer.emit(good, 'status', { phase: 'thinking', text: 'g2' });
    writer.emit(bad, 'status', { phase: 'thinking', text: 'three' });
    await Promise.all([writer.flush(bad), writer.flush(good)]);
    expect((await repository.readAfter(good, 0, 10)).map(text)).toEqual(['g1', 'g2']);
    const stored = await repository.readAfter(bad, 0, 10);
    expect(stored.map((e) => [e.seq, e.type])).toEqual([[1, 'status'], [2, 'error'], [3, 'status']]);
    expect(stored[1].data).toEqual({ code: 'event_not_stored', message: expect.stringContaining('status event 2 could not be stored') });
    expect(published.filter((e) => e.runId === bad)).toEqual(stored);
    expect(errors).toHaveBeenCalledTimes(1); // once, naming the run and the event
    expect(errors).toHaveBeenCalledWith(expect.stringMatching(/^Run run_\d+: its status event 2 was refused .*22P05/));
    writer.emit(bad, 'status', { phase: 'thinking', text: 'four' }); // the run goes on
    await writer.flush(bad);
    expect((await repository.readAfter(bad, 3, 10)).map(text)).toEqual(['four']);
  });

  it('keeps token seqs right when a refused token event was part of a segment row', async () => {
    const failing = new FailingRepository(db.sql, (batch) => (batch.some(({ event }) => text(event) === 'poison') ? refused() : undefined));
    const writer = new EventWriter(failing, bus);
    const runId = await db.newRun();
    await writer.open(runId, 0);
    for (const piece of ['t1', 't2']) {
      writer.emitTokens(runId, piece);
      await writer.flush(runId); // one segment row, extended
    }
    for (const piece of ['poison', 't4', 't5']) writer.emitTokens(runId, piece); // one batch
    await writer.flush(runId);
    writer.emitTokens(runId, 't6');
    await writer.flush(runId);
    const stored = await repository.readAfter(runId, 0, 10);
    expect(stored.map((e) => [e.seq, text(e)])).toEqual([[1, 't1'], [2, 't2'], [3, 'error'], [4, 't4'], [5, 't5'], [6, 't6']]);
  });

  it('writes the other runs when the table refuses a whole run (real database: the run is gone)', async () => {
    const writer = new EventWriter(repository, bus);
    const good = await db.newRun();
    await writer.open('deleted_run', 0);
    await writer.open(good, 0);
    writer.emit('deleted_run', 'status', { phase: 'thinking', text: 'lost' });
    writer.emit(good, 'status', { phase: 'thinking', text: 'kept' });
    writer.emitTokens(good, 'tokens');
    await Promise.all([writer.flush('deleted_run'), writer.flush(good)]);
    expect((await repository.readAfter(good, 0, 10)).map(text)).toEqual(['kept', 'tokens']);
    expect(await repository.readAfter('deleted_run', 0, 10)).toEqual([]);
  });

  it('retries while the database is unreachable, fails flush after its bound, and catches up when it is back', async () => {
    let down = true;
    const failing = new FailingRepository(db.sql, () => (down ? connectionLost() : undefined));
    const writer = new EventWriter(failing, bus, FAST);
    const runId = await db.newRun();
    await writer.open(runId, 0);
    writer.emit(runId, 'status', { phase: 'thinking', text: 'waiting' });
    await expect(writer.flush(runId)).rejects.toThrow(EventsNotPersistedError);
    await expect(writer.flush(runId)).rejects.toThrow(/events 1–1 were not persisted .*Connection terminated/);
    expect(failing.attempts).toBeGreaterThan(2);
    expect(published).toEqual([]);
    expect(writer.health()).toEqual({ ok: false, queued: 1, reason: expect.stringMatching(/cannot be written .*Connection terminated/) });
    down = false;
    await until(() => writer.health().ok);
    await writer.flush(runId);
    expect((await rowsOf(runId)).map((r) => r.seq)).toEqual([1]);
    expect(published.map((e) => e.seq)).toEqual([1]);
  });

  it('reports a writer with too many events waiting as unhealthy', async () => {
    const writer = new EventWriter(new FailingRepository(db.sql, () => connectionLost()), bus, { ...FAST, unhealthyAfterMs: 60_000, maxQueued: 3 });
    const runId = await db.newRun();
    await writer.open(runId, 0);
    for (let i = 0; i < 2; i++) writer.emit(runId, 'status', { phase: 'thinking', text: `${i}` });
    expect(writer.health().ok).toBe(true);
    writer.emit(runId, 'status', { phase: 'thinking', text: 'third' });
    expect(writer.health()).toEqual({ ok: false, queued: 3, reason: '3 run events are waiting to be written' });
    await writer.close();
  });

  it('waits a bounded time at shutdown, says how many events were not persisted, and stops retrying', async () => {
    const failing = new FailingRepository(db.sql, () => connectionLost());
    const writer = new EventWriter(failing, bus, FAST);
    const runId = await db.newRun();
    await writer.open(runId, 0);
    for (let i = 0; i < 3; i++) writer.emit(runId, 'status', { phase: 'thinking', text: `${i}` });
    await writer.close();
    expect(errors).toHaveBeenCalledWith(expect.stringMatching(/^Shutting down with 3 run events not persisted/));
    const attempts = failing.attempts;
    await new Promise((resolve) => setTimeout(resolve, FAST.retryMs.max * 3));
    expect(failing.attempts).toBe(attempts);
  });
});
