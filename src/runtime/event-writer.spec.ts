import { openRunEventsDatabase, type RunEventsDatabase } from '../../test/support/run-events-database';
import { InProcessEventBus } from './event-bus';
import { EventWriter } from './event-writer';
import { RunEventRepository, SEGMENT_PARTS } from './run-event.repository';
import type { RunEvent } from './run-events';

describe('EventWriter', () => {
  let db: RunEventsDatabase;
  let repository: RunEventRepository;
  let published: RunEvent[];
  let bus: InProcessEventBus;

  beforeAll(async () => {
    db = await openRunEventsDatabase();
    repository = new RunEventRepository(db.sql);
  });
  afterAll(() => db.close());
  beforeEach(() => {
    published = [];
    bus = new InProcessEventBus();
    jest.spyOn(bus, 'publish').mockImplementation((event) => void published.push(event));
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
});
