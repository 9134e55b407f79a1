import { Observable, Subject } from 'rxjs';
import type { RedisChannels } from '../cluster/redis-channels';
import type { RunEvent } from '../store/run-events';
import { EventBus, InProcessEventBus } from './event-bus';

/** a reader of a run written elsewhere looks at the table after this long without news */
const QUIET_POLL_MS = 1_000;

const channelOf = (runId: string) => `helix:run:${runId}`;

/** One Redis subscription per run followed here, shared by its readers. */
interface Followed {
  events: Subject<RunEvent>;
  readers: number;
  subscribed: Promise<void>;
  unsubscribe: () => void;
}

/**
 * Run events across instances: each persisted event goes to this process's subscribers at once
 * (the single-process path, no round trip) and to the run's Redis channel, which the other
 * instances' readers follow. A message is `<instance id>\n<event JSON>`: an instance drops its
 * own echo without parsing it, and parses another's once for all its readers of the run (so
 * they share one event object, and the SSE writer's frame of it). What pub/sub drops (Redis
 * away, a reconnect) readers fill from the table: on a resync, at a gap, or after a quiet second.
 */
export class RedisEventBus extends EventBus {
  override readonly quietPollMs = QUIET_POLL_MS;
  private readonly local = new InProcessEventBus();
  private readonly followed = new Map<string, Followed>();
  private readonly ownPrefix: string;

  constructor(
    private readonly channels: RedisChannels,
    instanceId: string,
  ) {
    super();
    this.ownPrefix = `${instanceId}\n`;
  }

  publish(event: RunEvent): void {
    this.local.publish(event);
    void this.channels.publish(channelOf(event.runId), this.ownPrefix + JSON.stringify(event));
  }

  events(runId: string, resync?: () => void): Observable<RunEvent> {
    return new Observable<RunEvent>((subscriber) => {
      const local = this.local.events(runId).subscribe(subscriber);
      const followed = this.follow(runId);
      const remote = followed.events.subscribe((event) => subscriber.next(event));
      const stopResync = this.channels.onReconnect(() => resync?.());
      void followed.subscribed.then(() => !subscriber.closed && resync?.());
      return () => {
        local.unsubscribe();
        remote.unsubscribe();
        stopResync();
        if (--followed.readers === 0) {
          this.followed.delete(runId);
          followed.unsubscribe();
        }
      };
    });
  }

  end(runId: string): void {
    this.local.end(runId);
  }

  private follow(runId: string): Followed {
    const existing = this.followed.get(runId);
    if (existing) {
      existing.readers++;
      return existing;
    }
    const events = new Subject<RunEvent>();
    const { subscribed, unsubscribe } = this.channels.subscribe(channelOf(runId), (message) => {
      if (message.startsWith(this.ownPrefix)) return;
      const event = remoteEvent(message, runId);
      if (event) events.next(event);
    });
    const followed = { events, readers: 1, subscribed, unsubscribe };
    this.followed.set(runId, followed);
    return followed;
  }
}

/** The event in another instance's message; undefined for a malformed one or another run's. */
function remoteEvent(message: string, runId: string): RunEvent | undefined {
  const newline = message.indexOf('\n');
  if (newline < 0) return undefined;
  try {
    const event = JSON.parse(message.slice(newline + 1)) as RunEvent & { at: string };
    if (event?.runId !== runId || !Number.isInteger(event.seq) || typeof event.type !== 'string') return undefined;
    return { ...event, at: new Date(event.at) } as RunEvent;
  } catch {
    return undefined;
  }
}
