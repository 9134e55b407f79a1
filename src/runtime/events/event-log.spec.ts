import { openRunEventsDatabase, until, type RunEventsDatabase } from '../../../test/support/run-events-database';
import type { SqlClient } from '../../database/sql-client';
import { InProcessEventBus } from './event-bus';
import { EventLog } from './event-log';
import { RunEventRepository } from '../store/run-event.repository';
import { TOKEN_FLUSH_MS } from './token-clock';

/** The facade end to end: the token clock, the writer and the reader together (each has its own spec). */
describe('EventLog', () => {
  let db: RunEventsDatabase;

  beforeAll(async () => {
    db = await openRunEventsDatabase();
  });
  afterAll(() => db.close());

  const newLog = (sql: SqlClient = db.sql) => new EventLog(new RunEventRepository(sql), new InProcessEventBus());

  it('streams what it stores: first token at once, the next ones coalesced, other events in between', async () => {
    const log = newLog();
    const runId = await db.newRun();
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
    const stored = await newLog().page(runId, 0);
    expect(stored.map((e) => (e.type === 'token' ? e.data.text : e.type))).toEqual(live);
  });

  it('persists the token events of every run streaming in one interval with one statement', async () => {
    let writes = 0;
    const counting: SqlClient = Object.create(db.sql);
    counting.$executeRaw = (...args: Parameters<SqlClient['$executeRaw']>) => {
      writes++;
      return db.sql.$executeRaw(...args);
    };
    const log = newLog(counting);
    const runs = await Promise.all(Array.from({ length: 5 }, () => db.newRun()));
    for (const runId of runs) await log.open(runId, 0);
    for (const runId of runs) log.token(runId, 'first '); // each run's first token goes out at once
    for (const runId of runs) log.token(runId, 'second ');
    for (const runId of runs) log.token(runId, 'third');
    await new Promise((resolve) => setTimeout(resolve, TOKEN_FLUSH_MS * 3));
    for (const runId of runs) await log.flush(runId);
    expect(writes).toBe(2); // the five first tokens, then the five coalesced ones of the next tick
    for (const runId of runs) {
      expect((await log.page(runId, 0)).map((e) => e.data)).toEqual([{ text: 'first ' }, { text: 'second third' }]);
    }
  });

  it('refuses to write a run that is not open in this process', async () => {
    const log = newLog();
    const runId = await db.newRun();
    expect(() => log.token(runId, 'x')).toThrow(/not open for writing/);
    expect(() => log.emit(runId, 'status', { phase: 'thinking', text: 'x' })).toThrow(/not open for writing/);
    await log.open(runId);
    await log.suspend(runId);
    expect(() => log.token(runId, 'x')).toThrow(/not open for writing/);
  });

  it('sends buffered tokens at shutdown and reports a healthy writer', async () => {
    const log = newLog();
    const runId = await db.newRun();
    await log.open(runId, 0);
    log.token(runId, 'a');
    log.token(runId, 'b'); // waits for the clock
    expect(log.writerHealth()).toMatchObject({ ok: true });
    await log.onApplicationShutdown();
    expect((await newLog().page(runId, 0)).map((e) => e.data)).toEqual([{ text: 'a' }, { text: 'b' }]);
  });
});
