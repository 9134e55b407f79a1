import { firstValueFrom, Observable, Subject, toArray } from 'rxjs';
import { openTestDatabase } from '../../test/support/test-prisma';
import type { PrismaService } from '../database/prisma.service';
import { EventBus, InProcessEventBus } from './event-bus';
import { EventLog, TOKEN_FLUSH_MS } from './event-log';
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

describe('EventLog', () => {
  let prisma: PrismaService;
  let close: () => Promise<void>;
  let n = 0;

  beforeAll(async () => {
    ({ prisma, close } = await openTestDatabase());
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
    const log = new EventLog(prisma, new InProcessEventBus());
    const runId = await newRun();
    await log.open(runId);
    log.emit(runId, 'status', { phase: 'thinking', text: 'Thinking' });
    log.token(runId, 'Hello');
    log.emit(runId, 'status', { phase: 'tool', text: 'x' });
    await log.flush(runId);
    const rows = await prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => [r.seq, r.type])).toEqual([[1, 'status'], [2, 'token'], [3, 'status']]);
    expect(rows[1].data).toEqual({ text: 'Hello' });
  });

  it('sends the first token at once and coalesces the following ones per interval', async () => {
    const log = new EventLog(prisma, new InProcessEventBus());
    const runId = await newRun();
    await log.open(runId);
    log.token(runId, 'a');
    for (const piece of ['b', 'c', 'd']) log.token(runId, piece);
    await log.flush(runId);
    let rows = await prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => r.data)).toEqual([{ text: 'a' }, { text: 'bcd' }]);
    await sleep(TOKEN_FLUSH_MS + 5);
    log.token(runId, 'e');
    log.token(runId, 'f');
    await sleep(TOKEN_FLUSH_MS * 2);
    await log.finish(runId, 'SUCCEEDED');
    rows = await prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => r.type)).toEqual(['token', 'token', 'token', 'token', 'done']);
    expect(rows.slice(2, 4).map((r) => r.data)).toEqual([{ text: 'e' }, { text: 'f' }]);
  });

  it('replays then follows live events, and completes after done', async () => {
    const log = new EventLog(prisma, new InProcessEventBus());
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
    const writer = new EventLog(prisma, bus);
    const reader = new EventLog(prisma, bus); // another instance: no memory of this run
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
    const writer = new EventLog(prisma, new InProcessEventBus());
    const runId = await newRun();
    await writer.open(runId);
    writer.emit(runId, 'status', { phase: 'thinking', text: 'x' });
    writer.token(runId, 'hi');
    await writer.finish(runId, 'SUCCEEDED');
    const fresh = new EventLog(prisma, new InProcessEventBus());
    const all = await firstValueFrom(fresh.subscribe(runId, 0).pipe(toArray()));
    expect(all.map((e) => e.type)).toEqual(['status', 'token', 'done']);
    const tail = await firstValueFrom(fresh.subscribe(runId, 2).pipe(toArray()));
    expect(tail.map((e) => e.seq)).toEqual([3]);
    expect((await fresh.page(runId, 1)).map((e) => e.seq)).toEqual([2, 3]);
  });

  it('continues the sequence after a restart (a new writer opens the same run)', async () => {
    const first = new EventLog(prisma, new InProcessEventBus());
    const runId = await newRun();
    await first.open(runId);
    first.emit(runId, 'status', { phase: 'thinking', text: 'before' });
    await first.flush(runId);
    const second = new EventLog(prisma, new InProcessEventBus());
    await second.open(runId);
    second.emit(runId, 'status', { phase: 'thinking', text: 'after' });
    await second.finish(runId, 'SUCCEEDED');
    const rows = await prisma.runEvent.findMany({ where: { runId }, orderBy: { seq: 'asc' } });
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
  });
});
