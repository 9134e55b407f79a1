import { firstValueFrom, Observable, Subject, toArray } from 'rxjs';
import { openTestDatabase } from '../../test/support/test-prisma';
import type { PrismaService } from '../database/prisma.service';
import type { SqlClient } from '../database/sql-client';
import { EventBus, InProcessEventBus } from './event-bus';
import { EventLog, MAX_TOKEN_FLUSH_MS, TOKEN_EVENTS_PER_SECOND, TOKEN_FLUSH_MS, tokenFlushInterval } from './event-log';
import { RunEventRepository, SEGMENT_PARTS } from './run-event.repository';
import type { RunEvent } from './run-events';

/** A bus that loses events, as a cross-instance transport may: readers must fill the gaps. */
class LossyBus extends EventBus {
  private readonly subject = new Subject<RunEvent>();
  private count = 0;
  publish(event: RunEvent): void {
    if (this.count++ % 3 !== 1) this.subject.next(event);
  }
  events(): Observable<RunEvent> {
    return this.subject.asObservable();
  }
  end(): void {}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; !condition(); await sleep(2)) {
    if (Date.now() > end) throw new Error('condition not met in time');
  }
}

describe('EventLog', () => {
  let prisma: PrismaService;
  let sql: SqlClient;
  let close: () => Promise<void>;
  let n = 0;

  beforeAll(async () => {
    ({ prisma, sql, close } = await openTestDatabase());
    await prisma.workspace.create({ data: { id: 'w', name: 'w' } });
    await prisma.conversation.create({ data: { id: 'c', workspaceId: 'w', title: 't' } });
  });
  afterAll(() => close());

  async function newRun(): Promise<string> {
    const id = `run_${++n}`;
    await prisma.run.create({ data: { id, conversationId: 'c', goal: 'g', model: {}, maxSteps: 3 } });
    return id;
  }

  it('numbers events 1..n without gaps and persists them all by flush()', async () => {
    const log = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const runId = await newRun();
    await log.open(runId);
    log.emit(runId, 'status', { phase: 'thinking', text: 'Thinking' });
    log.token(runId, 'Hello');
    log.emit(runId, 'status', { phase: 'tool', text: 'x' });
    await log.flush(runId);
    const rows = await prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => [r.seq, r.type])).toEqual([[1, 'status'], [2, 'token'], [3, 'status']]);
    expect(rows[1].data).toEqual({ parts: ['Hello'] });
  });

  it("sends an answer's first token at once and coalesces the following ones per interval", async () => {
    const log = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const runId = await newRun();
    await log.open(runId);
    const live: string[] = [];
    const subscription = log.subscribe(runId, 0).subscribe((e) => live.push(e.type === 'token' ? e.data.text : e.type));
    log.token(runId, 'a');
    for (const piece of ['b', 'c', 'd']) log.token(runId, piece); // these wait for the interval
    await until(() => live.length === 2);
    expect(live).toEqual(['a', 'bcd']);
    log.token(runId, 'e'); // mid-answer, even after a pause: on the clock
    log.token(runId, 'f');
    log.emit(runId, 'status', { phase: 'tool', text: 'x' }); // flushes what is buffered first
    log.token(runId, 'g'); // a new answer's first token: at once
    log.token(runId, 'h');
    await until(() => live.length === 6);
    await log.finish(runId, 'SUCCEEDED');
    subscription.unsubscribe();
    expect(live).toEqual(['a', 'bcd', 'ef', 'status', 'g', 'h', 'done']);
    const stored = await new EventLog(new RunEventRepository(sql), new InProcessEventBus()).page(runId, 0);
    expect(stored.map((e) => (e.type === 'token' ? e.data.text : e.type))).toEqual(live);
  });

  it('stores consecutive token events as segment rows that readers split back into events', async () => {
    const log = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const runId = await newRun();
    await log.open(runId);
    const count = SEGMENT_PARTS * 2 + 5;
    for (let i = 1; i <= count; i++) {
      log.token(runId, `t${i} `);
      await log.flush(runId); // each token its own event, each flush its own write
    }
    log.emit(runId, 'status', { phase: 'tool', text: 'between' });
    log.token(runId, 'after');
    await log.finish(runId, 'SUCCEEDED');
    const rows = await prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => [r.seq, r.type])).toEqual([
      [1, 'token'], [SEGMENT_PARTS + 1, 'token'], [SEGMENT_PARTS * 2 + 1, 'token'],
      [count + 1, 'status'], [count + 2, 'token'], [count + 3, 'done'],
    ]);
    const fresh = new EventLog(new RunEventRepository(sql), new InProcessEventBus()); // reads the table only
    const all = await firstValueFrom(fresh.subscribe(runId, 0).pipe(toArray()));
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: count + 3 }, (_, i) => i + 1));
    const text = all.flatMap((e) => (e.type === 'token' ? [e.data.text] : [])).join('');
    expect(text).toBe(Array.from({ length: count }, (_, i) => `t${i + 1} `).join('') + 'after');
    // resuming inside a segment gives exactly the events after that seq
    const tail = await firstValueFrom(fresh.subscribe(runId, SEGMENT_PARTS + 3).pipe(toArray()));
    expect(tail[0]).toMatchObject({ seq: SEGMENT_PARTS + 4, type: 'token', data: { text: `t${SEGMENT_PARTS + 4} ` } });
    expect(tail.map((e) => e.seq)).toEqual(all.slice(SEGMENT_PARTS + 3).map((e) => e.seq));
    expect((await fresh.page(runId, count - 1, 2)).map((e) => e.seq)).toEqual([count, count + 1]);
  });

  it("persists the token events of every run streaming in one interval with one statement", async () => {
    let writes = 0;
    const counting = Object.create(sql) as SqlClient;
    counting.$executeRaw = (...args: Parameters<SqlClient['$executeRaw']>) => {
      writes++;
      return sql.$executeRaw(...args);
    };
    const log = new EventLog(new RunEventRepository(counting), new InProcessEventBus());
    const runs = await Promise.all(Array.from({ length: 5 }, () => newRun()));
    for (const runId of runs) await log.open(runId, 0);
    for (const runId of runs) log.token(runId, 'first '); // each run's first token goes out at once
    for (const runId of runs) log.token(runId, 'second ');
    for (const runId of runs) log.token(runId, 'third');
    await sleep(TOKEN_FLUSH_MS * 3);
    for (const runId of runs) await log.flush(runId);
    expect(writes).toBe(2); // the five first tokens, then the five coalesced ones of the next tick
    for (const runId of runs) {
      expect((await log.page(runId, 0)).map((e) => e.data)).toEqual([{ text: 'first ' }, { text: 'second third' }]);
    }
  });

  it('slows its token clock when many runs stream, keeping near the per-process event rate', async () => {
    expect(tokenFlushInterval(1)).toBe(TOKEN_FLUSH_MS);
    expect(tokenFlushInterval(50)).toBe(Math.round((50 * 1000) / TOKEN_EVENTS_PER_SECOND));
    expect(tokenFlushInterval(1_000)).toBe(MAX_TOKEN_FLUSH_MS);

    const log = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const runs = await Promise.all(Array.from({ length: 60 }, () => newRun()));
    for (const runId of runs) await log.open(runId, 0);
    const seen: string[] = [];
    const subscription = log.subscribe(runs[0], 0).subscribe((e) => e.type === 'token' && seen.push(e.data.text));
    const settled = async (count: number) => {
      // the database answers in real time (not faked): wait for it, not for the clock
      for (const end = performance.now() + 5_000; seen.length < count && performance.now() < end; ) await new Promise((r) => setImmediate(r));
      return [...seen];
    };
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] });
    try {
      for (const runId of runs) log.token(runId, 'a'); // first tokens: at once
      for (const runId of runs) log.token(runId, 'b');
      await jest.advanceTimersByTimeAsync(TOKEN_FLUSH_MS); // a tick with 60 runs: the clock slows to 40 ms
      expect(await settled(2)).toEqual(['a', 'b']);
      for (const runId of runs) log.token(runId, 'c');
      await jest.advanceTimersByTimeAsync(39);
      await new Promise((r) => setImmediate(r));
      expect(seen).toEqual(['a', 'b']);
      await jest.advanceTimersByTimeAsync(1);
      expect(await settled(3)).toEqual(['a', 'b', 'c']);
      log.token(runs[0], 'd'); // one run streaming: back to 16 ms after the next tick
      await jest.advanceTimersByTimeAsync(40);
      expect(await settled(4)).toEqual(['a', 'b', 'c', 'd']);
      log.token(runs[0], 'e');
      await jest.advanceTimersByTimeAsync(TOKEN_FLUSH_MS);
      expect(await settled(5)).toEqual(['a', 'b', 'c', 'd', 'e']);
    } finally {
      jest.useRealTimers();
      subscription.unsubscribe();
    }
  });

  it('replays then follows live events, and completes after done', async () => {
    const log = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const runId = await newRun();
    await log.open(runId);
    log.emit(runId, 'status', { phase: 'thinking', text: '1' });
    log.emit(runId, 'status', { phase: 'thinking', text: '2' });
    const received = firstValueFrom(log.subscribe(runId, 1).pipe(toArray()));
    log.emit(runId, 'status', { phase: 'thinking', text: '3' });
    await log.finish(runId, 'SUCCEEDED');
    expect((await received).map((e) => e.seq)).toEqual([2, 3, 4]);
  });

  it('fills gaps of a lossy live channel and never duplicates', async () => {
    const bus = new LossyBus();
    const writer = new EventLog(new RunEventRepository(sql), bus);
    const reader = new EventLog(new RunEventRepository(sql), bus); // another instance: no memory of this run
    const runId = await newRun();
    await writer.open(runId);
    const received = firstValueFrom(reader.subscribe(runId, 0).pipe(toArray()));
    for (let i = 0; i < 40; i++) {
      writer.emit(runId, 'status', { phase: 'thinking', text: String(i) });
      if (i % 10 === 0) await sleep(5);
    }
    await writer.finish(runId, 'SUCCEEDED');
    const seqs = (await received).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
  });

  it('replays a finished run from the table on a fresh instance and completes', async () => {
    const writer = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const runId = await newRun();
    await writer.open(runId);
    writer.emit(runId, 'status', { phase: 'thinking', text: 'x' });
    writer.token(runId, 'hi');
    await writer.finish(runId, 'SUCCEEDED');
    const fresh = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const all = await firstValueFrom(fresh.subscribe(runId, 0).pipe(toArray()));
    expect(all.map((e) => e.type)).toEqual(['status', 'token', 'done']);
    const tail = await firstValueFrom(fresh.subscribe(runId, 2).pipe(toArray()));
    expect(tail.map((e) => e.seq)).toEqual([3]);
    expect((await fresh.page(runId, 1)).map((e) => e.seq)).toEqual([2, 3]);
  });

  it('continues the sequence after a restart (a new writer opens the same run)', async () => {
    const first = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    const runId = await newRun();
    await first.open(runId);
    first.emit(runId, 'status', { phase: 'thinking', text: 'before' });
    first.token(runId, 'a');
    await first.flush(runId);
    first.token(runId, 'b');
    await first.flush(runId);
    const second = new EventLog(new RunEventRepository(sql), new InProcessEventBus());
    await second.open(runId);
    second.emit(runId, 'status', { phase: 'thinking', text: 'after' });
    await second.finish(runId, 'SUCCEEDED');
    const events = await second.page(runId, 0);
    expect(events.map((e) => [e.seq, e.type])).toEqual([[1, 'status'], [2, 'token'], [3, 'token'], [4, 'status'], [5, 'done']]);
  });

  it("serves what its own process wrote from memory: a stream opened on a fresh run reads no rows", async () => {
    const store = new RunEventRepository(sql);
    const before = new EventLog(store, new InProcessEventBus());
    const runId = await newRun();
    await before.open(runId);
    before.emit(runId, 'status', { phase: 'thinking', text: 'stored' });
    await before.finish(runId, 'SUCCEEDED');
    const log = new EventLog(store, new InProcessEventBus());
    const fresh = await newRun();
    await log.open(fresh, 0);
    await log.open(runId); // resumed here: event 1 (and 2) are only in the table
    const reads = jest.spyOn(store, 'readAfter');
    const live: number[] = [];
    const subscription = log.subscribe(fresh, 0).subscribe((e) => live.push(e.seq));
    log.emit(fresh, 'status', { phase: 'thinking', text: 'x' });
    await until(() => live.length === 1);
    subscription.unsubscribe();
    expect(reads).not.toHaveBeenCalled();
    log.emit(runId, 'status', { phase: 'thinking', text: 'resumed' });
    await log.flush(runId);
    expect((await log.page(runId, 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(reads).toHaveBeenCalledTimes(1);
    expect((await log.page(runId, 2)).map((e) => e.seq)).toEqual([3]);
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
  });
});
