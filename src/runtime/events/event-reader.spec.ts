import { firstValueFrom, Observable, Subject, toArray } from 'rxjs';
import { openRunEventsDatabase, until, type RunEventsDatabase } from '../../../test/support/run-events-database';
import { EventBus, InProcessEventBus } from './event-bus';
import { EventReader, type WrittenRuns } from './event-reader';
import { EventWriter } from './event-writer';
import { RunEventRepository, SEGMENT_PARTS } from '../store/run-event.repository';
import type { RunEvent } from '../store/run-events';

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

/** A reader in another process: it wrote nothing of the run. */
const elsewhere: WrittenRuns = { written: () => undefined };

describe('EventReader', () => {
  let db: RunEventsDatabase;
  let repository: RunEventRepository;

  beforeAll(async () => {
    db = await openRunEventsDatabase();
    repository = new RunEventRepository(db.sql);
  });
  afterAll(() => db.close());

  /** A writer and a reader of the same process, sharing a bus. */
  function sameProcess(bus: EventBus = new InProcessEventBus()) {
    const writer = new EventWriter(repository, bus);
    return { writer, reader: new EventReader(repository, bus, writer) };
  }

  it('replays then follows live events, and completes after done', async () => {
    const { writer, reader } = sameProcess();
    const runId = await db.newRun();
    await writer.open(runId);
    writer.emit(runId, 'status', { phase: 'thinking', text: '1' });
    writer.emit(runId, 'status', { phase: 'thinking', text: '2' });
    const received = firstValueFrom(reader.subscribe(runId, 1).pipe(toArray()));
    writer.emit(runId, 'status', { phase: 'thinking', text: '3' });
    await writer.finish(runId, 'SUCCEEDED');
    expect((await received).map((e) => e.seq)).toEqual([2, 3, 4]);
  });

  it('fills gaps of a lossy live channel and never duplicates', async () => {
    const bus = new LossyBus();
    const { writer } = sameProcess(bus);
    const reader = new EventReader(repository, bus, elsewhere);
    const runId = await db.newRun();
    await writer.open(runId);
    const received = firstValueFrom(reader.subscribe(runId, 0).pipe(toArray()));
    for (let i = 0; i < 40; i++) {
      writer.emit(runId, 'status', { phase: 'thinking', text: String(i) });
      if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await writer.finish(runId, 'SUCCEEDED');
    expect((await received).map((e) => e.seq)).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
  });

  it('replays a finished run from the table in another process, resuming inside a token segment too', async () => {
    const { writer } = sameProcess();
    const runId = await db.newRun();
    await writer.open(runId);
    const count = SEGMENT_PARTS + 5;
    for (let i = 1; i <= count; i++) {
      writer.emitTokens(runId, `t${i} `);
      await writer.flush(runId);
    }
    writer.emit(runId, 'status', { phase: 'tool', text: 'x' });
    await writer.finish(runId, 'SUCCEEDED');
    const reader = new EventReader(repository, new InProcessEventBus(), elsewhere);
    const all = await firstValueFrom(reader.subscribe(runId, 0).pipe(toArray()));
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: count + 2 }, (_, i) => i + 1));
    expect(all.flatMap((e) => (e.type === 'token' ? [e.data.text] : [])).join('')).toBe(
      Array.from({ length: count }, (_, i) => `t${i + 1} `).join(''),
    );
    const tail = await firstValueFrom(reader.subscribe(runId, 3).pipe(toArray()));
    expect(tail[0]).toMatchObject({ seq: 4, type: 'token', data: { text: 't4 ' } });
    expect(tail.map((e) => e.seq)).toEqual(all.slice(3).map((e) => e.seq));
    expect((await reader.page(runId, count - 1, 2)).map((e) => e.type)).toEqual(['token', 'status']);
    expect((await reader.page(runId, count + 1)).map((e) => e.type)).toEqual(['done']);
  });

  it('serves what its own process wrote from memory: a stream opened on a fresh run reads no rows', async () => {
    const { writer: before } = sameProcess();
    const runId = await db.newRun();
    await before.open(runId);
    before.emit(runId, 'status', { phase: 'thinking', text: 'stored' });
    await before.finish(runId, 'SUCCEEDED');
    const { writer, reader } = sameProcess();
    const fresh = await db.newRun();
    await writer.open(fresh, 0);
    await writer.open(runId); // resumed here: events 1 and 2 are only in the table
    const reads = jest.spyOn(repository, 'readAfter');
    const live: number[] = [];
    const subscription = reader.subscribe(fresh, 0).subscribe((e) => live.push(e.seq));
    writer.emit(fresh, 'status', { phase: 'thinking', text: 'x' });
    await until(() => live.length === 1);
    subscription.unsubscribe();
    expect(reads).not.toHaveBeenCalled();
    writer.emit(runId, 'status', { phase: 'thinking', text: 'resumed' });
    await writer.flush(runId);
    expect((await reader.page(runId, 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(reads).toHaveBeenCalledTimes(1);
    expect((await reader.page(runId, 2)).map((e) => e.seq)).toEqual([3]);
    expect(reads).toHaveBeenCalledTimes(1);
    reads.mockRestore();
  });
});
