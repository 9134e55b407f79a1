/**
 * Token deltas are coalesced into one event per interval (the first one goes out at once). One
 * clock serves every streaming run, so the token events of one interval are persisted together
 * (one statement for all runs instead of one per run).
 */
export const TOKEN_FLUSH_MS = 16;
/**
 * Each tick costs a stored row and an SSE frame per streaming run, so with many runs streaming
 * the clock slows to keep the process near this many token events per second (and bounds a
 * burst of load), never beyond MAX_TOKEN_FLUSH_MS: tokens then arrive a few tens of ms later,
 * within the 20–50 ms a reader perceives as live.
 */
export const TOKEN_EVENTS_PER_SECOND = 1_500;
export const MAX_TOKEN_FLUSH_MS = 48;

/** The token clock's interval after a tick in which `streamingRuns` runs had tokens. */
export function tokenFlushInterval(streamingRuns: number): number {
  return Math.min(MAX_TOKEN_FLUSH_MS, Math.max(TOKEN_FLUSH_MS, Math.round((streamingRuns * 1000) / TOKEN_EVENTS_PER_SECOND)));
}

/** The token text of one run's current answer that has not gone out yet. */
interface AnswerBuffer {
  text: string;
  /** when its last token event went out (0: none yet, the next delta goes out at once) */
  lastSentAt: number;
}

/**
 * Coalesces the token deltas of every streaming run on one shared clock and hands each run's
 * text to `send` as one token event per tick. A run's buffer lives from its answer's first
 * delta until `endAnswer` (another event, or the run stops writing).
 */
export class TokenClock {
  private readonly answers = new Map<string, AnswerBuffer>();
  /** runs with buffered text for the next tick */
  private readonly due = new Set<string>();
  private tick?: NodeJS.Timeout;
  private lastTick = 0;
  private interval = TOKEN_FLUSH_MS;

  constructor(private readonly send: (runId: string, text: string) => void) {}

  /** Buffers a delta: an answer's first goes out at once, later ones with the next tick. */
  add(runId: string, text: string): void {
    let answer = this.answers.get(runId);
    if (!answer) this.answers.set(runId, (answer = { text: '', lastSentAt: 0 }));
    answer.text += text;
    const now = Date.now();
    // only an answer's first token skips the clock: later ones join the tick of every other run
    if (answer.lastSentAt === 0) {
      this.sendBuffered(runId, answer, now);
      return;
    }
    this.due.add(runId);
    if (this.tick) return;
    // keep the clock's cadence while it is current, so intervals do not stretch by timer lateness
    const next = this.lastTick + this.interval;
    const at = next >= now ? next : Math.max(now, answer.lastSentAt + this.interval);
    this.tick = setTimeout(() => this.onTick(at), at - now);
  }

  /** Sends what the run has buffered now; the answer stays on the clock. */
  flush(runId: string): void {
    const answer = this.answers.get(runId);
    if (answer) this.sendBuffered(runId, answer, Date.now(), true);
  }

  /** Sends what the run has buffered; its next delta starts a new answer (sent at once). */
  endAnswer(runId: string): void {
    const answer = this.answers.get(runId);
    if (!answer) return;
    this.answers.delete(runId);
    this.sendBuffered(runId, answer, Date.now(), true);
  }

  /** Stops the clock and sends every run's buffered text (the process is stopping). */
  stop(): void {
    clearTimeout(this.tick);
    this.tick = undefined;
    for (const runId of [...this.answers.keys()]) this.endAnswer(runId);
    this.due.clear();
  }

  private onTick(at: number): void {
    this.tick = undefined;
    this.lastTick = at;
    this.interval = tokenFlushInterval(this.due.size);
    for (const runId of this.due) {
      const answer = this.answers.get(runId);
      if (answer) this.sendBuffered(runId, answer, at);
    }
    this.due.clear();
  }

  /**
   * Sends the buffered text as one event. Unless the answer ends here, a trailing high surrogate
   * waits for its low half (a pair split across deltas would be stored as two U+FFFD).
   */
  private sendBuffered(runId: string, answer: AnswerBuffer, at: number, whole = false): void {
    const text = answer.text;
    const held = !whole && isHighSurrogate(text.charCodeAt(text.length - 1));
    if (text.length <= (held ? 1 : 0)) return;
    answer.text = held ? text.slice(-1) : '';
    answer.lastSentAt = at;
    this.send(runId, held ? text.slice(0, -1) : text);
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
