import { OpenAiError } from '../common';
import type { RunEvent, RunEventPayloads, RunEventType } from '../runtime';

/** For the module's specs: run events written as `[type, payload]` pairs, and the errors its mappings throw. */
export type EventSpec = { [K in RunEventType]: [K, RunEventPayloads[K]] }[RunEventType];

/** A run's events, with seqs from `after + 1` on. */
export const runEvents = (runId: string, after: number, ...specs: EventSpec[]): RunEvent[] =>
  specs.map(([type, data], i) => ({ runId, seq: after + i + 1, type, data, at: new Date(0) }) as RunEvent);

export const thinking = (step: number, restart?: true): EventSpec => ['status', { phase: 'thinking', text: 'Thinking', step, ...(restart && { restart }) }];
export const token = (text: string): EventSpec => ['token', { text }];
export const waiting = (text: string): EventSpec => ['status', { phase: 'waiting', text }];

/** The OpenAiError `fn` throws (fails the test when it throws something else or nothing). */
export function refusal(fn: () => unknown): OpenAiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof OpenAiError) return error;
    throw error;
  }
  throw new Error('expected an OpenAiError, nothing was thrown');
}
