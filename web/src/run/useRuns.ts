import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { api, ok } from '../api/client';
import type { ClientRunEvent } from '../api/events';
import { session } from '../api/session';
import { applyEvent, emptyRun, settled, type RunState } from './run-state';
import { followRun, type Connection } from './stream';

type Action = { kind: 'follow'; runId: string } | { kind: 'event'; runId: string; event: ClientRunEvent } | { kind: 'settle'; runId: string };

function reduce(runs: Map<string, RunState>, action: Action): Map<string, RunState> {
  const next = new Map(runs);
  const current = runs.get(action.runId) ?? emptyRun(action.runId);
  if (action.kind === 'follow') next.set(action.runId, current);
  else if (action.kind === 'event') next.set(action.runId, applyEvent(current, action.event));
  else next.set(action.runId, settled(current));
  return next;
}

/**
 * The runs this page follows, each rebuilt from its event log: following a run opens its stream
 * from the first event, so a reload shows the whole run, then its live events.
 */
export function useRuns(onEvent?: (runId: string, event: ClientRunEvent) => void) {
  const [runs, dispatch] = useReducer(reduce, new Map<string, RunState>());
  const [connection, setConnection] = useState<Connection>('closed');
  const stops = useRef(new Map<string, () => void>());
  const onEventRef = useRef(onEvent);
  onEventRef.current = onEvent;

  const follow = useCallback((runId: string, firstToken?: string) => {
    if (stops.current.has(runId)) return;
    dispatch({ kind: 'follow', runId });
    let token = firstToken;
    const stop = followRun({
      runId,
      language: session.language(),
      token: async () => {
        const fresh = token ?? (await ok(api.GET('/api/v1/runs/{id}', { params: { path: { id: runId } } }))).streamToken;
        token = undefined; // a token handed in is used once; a reconnection asks for a fresh one
        return fresh;
      },
      onEvent: (event) => {
        dispatch({ kind: 'event', runId, event });
        onEventRef.current?.(runId, event);
      },
      onConnection: setConnection,
    });
    stops.current.set(runId, stop);
  }, []);

  /** The page acted on what the run waited for (approved, replied): the card closes at once. */
  const settle = useCallback((runId: string) => dispatch({ kind: 'settle', runId }), []);

  useEffect(() => {
    const all = stops.current;
    return () => {
      for (const stop of all.values()) stop();
      all.clear();
    };
  }, []);

  return { runs, follow, settle, connection };
}
