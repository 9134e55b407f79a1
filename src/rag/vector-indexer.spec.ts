import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseHandle, VectorSupport } from '../database';
import { DocumentRepository } from './document.repository';
import { JobRunner } from './job-runner';
import { INDEX_BACKLOG_MAX, INDEX_BATCH, VectorIndexer } from './vector-indexer';
import { VectorIndexRepository } from './vector-index.repository';

/** A table of waiting vectors: indexWaiting takes up to `limit` of them, after `delayMs`. */
class FakeWaiting {
  waiting = 0;
  calls = 0;
  vacuums = 0;
  tidies = 0;
  delayMs = 0;
  /** called while a statement runs (before it answers) */
  during?: () => void;

  async indexWaiting(limit: number): Promise<number> {
    this.calls++;
    const taken = Math.min(limit, this.waiting);
    this.during?.();
    await sleep(this.delayMs);
    this.waiting -= taken;
    return taken;
  }

}

function indexer(table: FakeWaiting, jobs: { busy: boolean }, vector = true) {
  const repository = {
    indexWaiting: (limit: number) => table.indexWaiting(limit),
    waiting: async () => table.waiting,
    vacuum: async () => void table.vacuums++,
  } as unknown as VectorIndexRepository;
  const runner = { busy: () => jobs.busy } as unknown as JobRunner;
  const documents = { tidyAfterIngestion: async () => void table.tidies++ } as unknown as DocumentRepository;
  return new VectorIndexer(repository, runner, new VectorSupport(vector), documents, { kind: 'embedded' } as DatabaseHandle);
}

const until = async (done: () => boolean, ms = 2_000) => {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await sleep(5);
  return done();
};

describe('VectorIndexer', () => {
  it('indexes what waits at start-up, a batch per statement, and stops when none is left', async () => {
    const table = Object.assign(new FakeWaiting(), { waiting: 10 });
    const subject = indexer(table, { busy: false });
    await subject.onApplicationBootstrap();
    expect(await until(() => table.waiting === 0)).toBe(true);
    await sleep(20);
    // 10 at 4 a statement, and one that found none
    expect(table.calls).toBe(Math.ceil(10 / INDEX_BATCH.embedded.size) + 1);
    // the moves' dead rows go once none waits, and what ingestion left
    expect([table.vacuums, table.tidies]).toEqual([1, 1]);
    // a document without vectors became ready: nothing to index, but a tidy-up
    subject.wake(0);
    expect(await until(() => table.tidies === 2)).toBe(true);
    expect(table.calls).toBe(Math.ceil(10 / INDEX_BATCH.embedded.size) + 2);
    await subject.beforeApplicationShutdown();
  });

  it('without vector search, tidies once the jobs are done and never indexes', async () => {
    const table = Object.assign(new FakeWaiting(), { waiting: 10 });
    const jobs = { busy: true };
    const subject = indexer(table, jobs, false);
    await subject.onApplicationBootstrap();
    subject.wake(5_000);
    await sleep(300);
    expect(table.tidies).toBe(0);
    jobs.busy = false;
    expect(await until(() => table.tidies === 1)).toBe(true);
    await sleep(20);
    expect([table.calls, table.vacuums, table.tidies]).toEqual([0, 0, 1]);
    await subject.beforeApplicationShutdown();
  });

  it('waits while jobs run, unless the backlog has reached INDEX_BACKLOG_MAX', async () => {
    const table = new FakeWaiting();
    const jobs = { busy: true };
    const subject = indexer(table, jobs);
    table.waiting = 8;
    subject.wake(8);
    await sleep(300);
    expect(table.calls).toBe(0);
    jobs.busy = false;
    expect(await until(() => table.waiting === 0)).toBe(true);

    jobs.busy = true;
    const before = table.calls;
    table.waiting = INDEX_BACKLOG_MAX;
    subject.wake(INDEX_BACKLOG_MAX);
    // beside the jobs, it keeps the backlog under the limit: a batch, then waits again
    expect(await until(() => table.calls === before + 1)).toBe(true);
    await sleep(300);
    expect(table.calls).toBe(before + 1);
    subject.wake(INDEX_BATCH.embedded.size);
    expect(await until(() => table.waiting === INDEX_BACKLOG_MAX - 2 * INDEX_BATCH.embedded.size)).toBe(true);
    expect(table.calls).toBe(before + 2);
    await subject.beforeApplicationShutdown();
  });

  it('a document made ready while a statement runs is not left waiting', async () => {
    const table = Object.assign(new FakeWaiting(), { delayMs: 20 });
    const subject = indexer(table, { busy: false });
    // the first statement finds nothing: the document's chunks arrive while it runs
    table.during = () => {
      table.during = undefined;
      setImmediate(() => {
        table.waiting = 3;
        subject.wake(3);
      });
    };
    subject.wake(0);
    expect(await until(() => table.waiting === 0)).toBe(true);
    await subject.beforeApplicationShutdown();
  });

  it('after shutdown, nothing more is indexed', async () => {
    const table = Object.assign(new FakeWaiting(), { waiting: 4 });
    const jobs = { busy: true };
    const subject = indexer(table, jobs);
    subject.wake(4);
    await subject.beforeApplicationShutdown();
    jobs.busy = false;
    subject.wake(4);
    await sleep(300);
    expect(table.calls).toBe(0);
  });
});
