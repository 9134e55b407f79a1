import { randomBytes } from 'node:crypto';
import { redisReachable, TEST_REDIS_URL } from '../../../test/support/redis';
import { type RunJobHandler, RunJobQueue } from './run-job-queue';

const describeRedis = redisReachable() ? describe : describe.skip;

/** A handler that records what it was given and answers as `busy` says. */
function recorder(busy: () => boolean) {
  const taken: string[] = [];
  const offered: string[] = [];
  const handler: RunJobHandler = {
    take: async (runId) => {
      offered.push(runId);
      if (busy()) return 'busy';
      taken.push(runId);
      return 'done';
    },
  };
  return { handler, taken, offered };
}

async function until(what: string, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeRedis('RunJobQueue (real Redis)', () => {
  const queues: RunJobQueue[] = [];
  const open = (database: string, handler: RunJobHandler) => {
    const queue = new RunJobQueue(TEST_REDIS_URL, `postgresql://db.example:5432/${database}`, 2, handler);
    queues.push(queue);
    return queue;
  };
  afterEach(async () => {
    for (const queue of queues.splice(0)) await queue.close();
  });

  it('a run one instance has no slot for is taken by another instance of the same database, never by another deployment', async () => {
    const database = `q_${randomBytes(4).toString('hex')}`;
    const busy = recorder(() => true);
    const free = recorder(() => false);
    const elsewhere = recorder(() => false);
    const a = open(database, busy.handler);
    open(database, free.handler);
    open(`${database}_other`, elsewhere.handler);
    expect(await a.add('run_1')).toBe(true);
    expect(await a.add('run_2')).toBe(true);
    await until('both runs taken', () => free.taken.length === 2);
    expect(free.taken.sort()).toEqual(['run_1', 'run_2']);
    expect(busy.taken).toEqual([]);
    expect(elsewhere.offered).toEqual([]);
  });

  it('a run nobody has a slot for waits, once however often it is submitted, and is counted, until a slot frees', async () => {
    let full = true;
    const only = recorder(() => full);
    const queue = open(`q_${randomBytes(4).toString('hex')}`, only.handler);
    await queue.add('run_wait');
    await queue.add('run_wait'); // a sweep submitting it again: still one job
    await until('the run offered', () => only.offered.length > 0);
    await until('the run counted', () => queue.waitingCount === 1, 5_000);
    full = false;
    await until('the run taken', () => only.taken.length === 1);
    expect(only.taken).toEqual(['run_wait']);
    await until('the queue counted empty', () => queue.waitingCount === 0, 5_000);
  });
});
