/**
 * The run events the page reads, typed from the server's own catalogue (src/runtime/store/
 * run-events.ts) so that a renamed field breaks the page's type check, not a user's chat.
 */
import type { PlanStep, RunEventPayloads, RunEventType } from '../../../src/runtime/store/run-events';

export type { PlanStep, RunEventPayloads, RunEventType };

/** An event as the page receives it: over SSE or from the JSON page of the same route. */
export type ClientRunEvent = {
  [K in RunEventType]: { seq: number; type: K; data: RunEventPayloads[K] };
}[RunEventType];

/** Every stored event name: the SSE listener registers one handler per name. */
export const RUN_EVENT_TYPES = [
  'status', 'token', 'reasoning', 'plan', 'plan.step', 'tool.start', 'tool.end', 'tool.client', 'approval', 'tasks', 'sources',
  'context', 'token_warning', 'usage', 'error', 'debug', 'title', 'subrun', 'done',
] as const satisfies readonly RunEventType[];

// a name added to the server's catalogue and missing here fails the type check
type Missing = Exclude<RunEventType, (typeof RUN_EVENT_TYPES)[number]>;
const everyEventListed: Missing extends never ? true : Missing = true;
void everyEventListed;

export const TERMINAL_STATES = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED'] as const;
export const isTerminal = (state: string): boolean => (TERMINAL_STATES as readonly string[]).includes(state);

/** The JSON page of the events route (the same events as the stream; unknown names are ignored by the run state). */
export function eventsOf(page: unknown): ClientRunEvent[] {
  const events = typeof page === 'object' && page !== null ? (page as { events?: unknown }).events : undefined;
  return Array.isArray(events) ? (events as ClientRunEvent[]) : [];
}
