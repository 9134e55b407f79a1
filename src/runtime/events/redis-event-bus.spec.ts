import { firstValueFrom, take, toArray } from 'rxjs';
import { redisReachable, TEST_REDIS_URL } from '../../../test/support/redis';
import { RedisChannels } from '../cluster/redis-channels';
import type { RunEvent } from '../store/run-events';
import { RedisEventBus } from './redis-event-bus';

const describeRedis = redisReachable() ? describe : describe.skip;

/** A promise and the `resync` callback that resolves it (the bus calls it once subscribed). */
function acknowledgement(): [Promise<void>, () => void] {
  let resolve!: () => void;
  return [new Promise<void>((r) => (resolve = r)), () => resolve()];
}

const event = (runId: string, seq: number): RunEvent => ({ runId, seq, type: 'token', data: { text: `t${seq}` }, at: new Date(1_000 * seq) });

describeRedis('RedisEventBus (real Redis)', () => {
  const channels: RedisChannels[] = [];
  const bus = (id: string) => {
    const link = new RedisChannels(TEST_REDIS_URL);
    channels.push(link);
    return new RedisEventBus(link, id);
  };
  /**
   * Publishing drops a message while the publishing connection is still connecting (no offline
   * queue, by design: readers fill gaps from the table). These readers have no table, so wait.
   */
  const connected = async () => {
    while (!channels.every((link) => link.health().ok)) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  afterAll(async () => {
    for (const link of channels) await link.close();
  });

  it("delivers another instance's events (dates intact) once the subscription is acknowledged, and its own only locally", async () => {
    const a = bus('a');
    const b = bus('b');
    const runId = `run_bus_${Date.now()}`;
    const [subscribed, resynced] = acknowledgement();
    const onB = firstValueFrom(b.events(runId, resynced).pipe(take(2), toArray()));
    const onA: RunEvent[] = [];
    const [ownSubscribed, ownResynced] = acknowledgement();
    const own = a.events(runId, ownResynced).subscribe((e) => onA.push(e));
    await Promise.all([subscribed, ownSubscribed, connected()]);
    a.publish(event(runId, 1));
    a.publish(event(runId, 2));
    expect(await onB).toEqual([event(runId, 1), event(runId, 2)]);
    // A's own subscriber got each event once (locally), not again from Redis
    await new Promise((resolve) => setTimeout(resolve, 100));
    own.unsubscribe();
    expect(onA).toEqual([event(runId, 1), event(runId, 2)]);
  });

  it('ignores messages that are not events of the run', async () => {
    const b = bus('b2');
    const runId = `run_bus_junk_${Date.now()}`;
    const [subscribed, resynced] = acknowledgement();
    const received = firstValueFrom(b.events(runId, resynced).pipe(take(1)));
    await Promise.all([subscribed, connected()]);
    const raw = channels[channels.length - 1];
    await raw.publish(`helix:run:${runId}`, 'not json');
    await raw.publish(`helix:run:${runId}`, 'x\nnot json');
    await raw.publish(`helix:run:${runId}`, `x\n${JSON.stringify(event('other', 1))}`);
    await raw.publish(`helix:run:${runId}`, `x\n${JSON.stringify(event(runId, 7))}`);
    expect(await received).toEqual(event(runId, 7));
  });
  it("parses another instance's event once for all of this instance's readers of the run", async () => {
    const a = bus('a3');
    const b = bus('b3');
    const runId = `run_bus_shared_${Date.now()}`;
    const [subscribed, resynced] = acknowledgement();
    const first = firstValueFrom(b.events(runId, resynced).pipe(take(1)));
    const second = firstValueFrom(b.events(runId).pipe(take(1)));
    await Promise.all([subscribed, connected()]);
    a.publish(event(runId, 1));
    const [x, y] = await Promise.all([first, second]);
    expect(x).toEqual(event(runId, 1));
    expect(y).toBe(x);
  });
});
