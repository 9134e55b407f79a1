import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ClusterLink } from './cluster-link';
import { Instance } from './instance';

/** What another instance can ask of this one. */
export interface SignalHandlers {
  /** stop the run this instance drives or holds, as a cancel received here would */
  cancel(runId: string): void;
  /** look for runs to take over now (an instance handed its runs over) */
  wake(): void;
}

type Signal = { type: 'cancel'; runId: string } | { type: 'wake'; from: string };

const WAKE_CHANNEL = 'helix:wake';
const channelOf = (instanceId: string) => `helix:instance:${instanceId}`;

/**
 * Commands between the instances of a cluster over Redis (REDIS_URL): a cancel reaches the
 * instance holding the run's lease; a wake-up asks every instance to take over runs now. In a
 * single process there is no one to tell: a cancel sent reports 'alone' and nothing is heard.
 */
@Injectable()
export class RunSignals implements OnModuleDestroy {
  private readonly logger = new Logger(RunSignals.name);
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly link: ClusterLink,
    private readonly instance: Instance,
  ) {}

  /**
   * Asks the instance `owner` to cancel `runId`: 'asked', 'gone' (no such instance listens: it
   * died), 'unreachable' (Redis is away) or 'alone' (no cluster: the owner was an earlier process).
   */
  async askToCancel(owner: string, runId: string): Promise<'asked' | 'gone' | 'unreachable' | 'alone'> {
    if (!this.link.channels) return 'alone';
    const received = await this.send(channelOf(owner), { type: 'cancel', runId });
    return received === undefined ? 'unreachable' : received > 0 ? 'asked' : 'gone';
  }

  /** Asks every instance to look for runs to take over (this one just released its leases). */
  async wakeAll(): Promise<void> {
    await this.send(WAKE_CHANNEL, { type: 'wake', from: this.instance.id });
  }

  /** Calls the given handlers for the signals this instance receives. */
  listen(handlers: Partial<SignalHandlers>): void {
    const channels = this.link.channels;
    if (!channels) return;
    const handle = (message: string) => {
      const signal = parseSignal(message);
      if (signal?.type === 'cancel') handlers.cancel?.(signal.runId);
      else if (signal?.type === 'wake' && signal.from !== this.instance.id) handlers.wake?.();
    };
    for (const channel of [channelOf(this.instance.id), WAKE_CHANNEL]) this.stops.push(channels.subscribe(channel, handle).unsubscribe);
  }

  onModuleDestroy(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  /** How many instances received the signal; undefined when none could be told. */
  private async send(channel: string, signal: Signal): Promise<number | undefined> {
    const channels = this.link.channels;
    if (!channels) return undefined;
    const received = await channels.publish(channel, JSON.stringify(signal));
    if (received === undefined) this.logger.warn(`Could not send ${signal.type} to ${channel}: Redis is unreachable`);
    return received;
  }
}

function parseSignal(message: string): Signal | undefined {
  try {
    const signal = JSON.parse(message) as Partial<Signal>;
    if (signal.type === 'cancel' && typeof signal.runId === 'string') return { type: 'cancel', runId: signal.runId };
    if (signal.type === 'wake' && typeof signal.from === 'string') return { type: 'wake', from: signal.from };
  } catch {
    // not ours
  }
  return undefined;
}
