import { Observable } from 'rxjs';
import type { RedisChannels } from '../cluster/redis-channels';
import type { RunEvent } from '../store/run-events';
import { EventBus, InProcessEventBus } from './event-bus';

/** a reader of a run written elsewhere looks at the table after this long without news */
const QUIET_POLL_MS = 1_000;

const channelOf = (runId: string) => `helix:run:${runId}`;

/**
 * Run events across instances: each persisted event goes to this process's subscribers at once
 * (the single-process path, no round trip) and to the run's Redis channel, which the other
 * instances' readers follow. What pub/sub drops (Redis away, a reconnect) readers fill from the
 * table: on a resync, at a gap, or after a quiet second.
 */
export class RedisEventBus extends EventBus {
  override readonly quietPollMs = QUIET_POLL_MS;
  private readonly local = new InProcessEventBus();

  constructor(
    private readonly channels: RedisChannels,
    private readonly instanceId: string,
  ) {
    super();
  }

  publish(event: RunEvent): void {
    this.local.publish(event);
    void this.channels.publish(channelOf(event.runId), JSON.stringify({ from: this.instanceId, event }));
  }

  events(runId: string, resync?: () => void): Observable<RunEvent> {
    return new Observable<RunEvent>((subscriber) => {
      const local = this.local.events(runId).subscribe(subscriber);
      const remote = this.channels.subscribe(channelOf(runId), (message) => {
        const event = remoteEvent(message, runId, this.instanceId);
        if (event) subscriber.next(event);
      });
      const stopResync = this.channels.onReconnect(() => resync?.());
      void remote.subscribed.then(() => !subscriber.closed && resync?.());
      return () => {
        local.unsubscribe();
        remote.unsubscribe();
        stopResync();
      };
    });
  }

  end(runId: string): void {
    this.local.end(runId);
  }
}

/** The event in a message from another instance; undefined for this one's own or a malformed one. */
function remoteEvent(message: string, runId: string, self: string): RunEvent | undefined {
  try {
    const { from, event } = JSON.parse(message) as { from?: string; event?: RunEvent & { at: string } };
    if (from === self || !event || event.runId !== runId || !Number.isInteger(event.seq) || typeof event.type !== 'string') return undefined;
    return { ...event, at: new Date(event.at) } as RunEvent;
  } catch {
    return undefined;
  }
}
