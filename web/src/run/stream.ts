import { RUN_EVENT_TYPES, type ClientRunEvent } from '../api/events';

export type Connection = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface FollowOptions {
  runId: string;
  /** a stream token for the run (from posting the message, or from GET /runs/:id) */
  token: () => Promise<string>;
  language: string;
  onEvent(event: ClientRunEvent): void;
  onConnection(state: Connection): void;
}

const REOPEN_DELAY_MS = 1000;

/**
 * Follows a run's events with EventSource: the stream token and the language go in the URL
 * (EventSource cannot send headers; the API key never does). The browser reconnects by itself
 * with Last-Event-ID after a network drop (the server's `retry:` keeps that within a second);
 * when it gives up (the token expired, the server restarted) a new EventSource is opened with a
 * fresh token after the last seq seen. Every event is handed on with its seq: the run state
 * drops repeats, so a replay from the start is as good as a resume.
 */
export function followRun(options: FollowOptions): () => void {
  let source: EventSource | null = null;
  let lastSeq = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    source?.close();
    options.onConnection('closed');
  };

  const open = async () => {
    let token: string;
    try {
      token = await options.token();
    } catch {
      if (!stopped) timer = setTimeout(() => void open(), REOPEN_DELAY_MS * 3);
      return;
    }
    if (stopped) return;
    const query = new URLSearchParams({ token, lang: options.language });
    if (lastSeq > 0) query.set('after', String(lastSeq));
    const es = new EventSource(`/api/v1/runs/${encodeURIComponent(options.runId)}/events?${query}`);
    source = es;
    options.onConnection('connecting');
    es.onopen = () => options.onConnection('open');
    for (const type of RUN_EVENT_TYPES) {
      es.addEventListener(type, (message) => {
        if (!(message instanceof MessageEvent) || typeof message.data !== 'string') return; // a connection error, below
        const seq = Number(message.lastEventId);
        if (!Number.isInteger(seq) || seq <= 0) {
          // `error` without an id: the server could not go on reading the log; read again from the last seq
          if (type === 'error') reopen();
          return;
        }
        lastSeq = Math.max(lastSeq, seq);
        options.onEvent({ seq, type, data: JSON.parse(message.data) } as ClientRunEvent);
        if (type === 'done') stop();
      });
    }
    es.onerror = () => {
      if (stopped) return;
      if (es.readyState === EventSource.CLOSED) reopen();
      else options.onConnection('reconnecting');
    };
  };

  const reopen = () => {
    source?.close();
    if (stopped) return;
    options.onConnection('reconnecting');
    clearTimeout(timer);
    timer = setTimeout(() => void open(), REOPEN_DELAY_MS);
  };

  void open();
  return stop;
}
