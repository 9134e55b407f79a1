import type { MessageRecord, StoredToolCall } from '../../conversation';
import { STUCK_DEFAULTS, type StuckLimits } from '../../workspace';

/** Why a run counts as stuck: the rule that held and what repeated. */
export type Stuck =
  | { rule: 'repeatedCalls'; times: number; calls: string }
  | { rule: 'repeatedErrors'; times: number; tool: string }
  | { rule: 'repeatedAnswers'; times: number };

/** JSON arguments with their keys sorted, so `{a,b}` and `{b,a}` are the same call. */
function canonical(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), (_key, value: unknown) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : value,
    );
  } catch {
    return args.trim();
  }
}

const signature = (calls: readonly StoredToolCall[]) => calls.map((call) => `${call.name}(${canonical(call.arguments)})`).sort().join(' ');

/** Whether the last `times` items are all equal to the last one (and there are that many). */
function lastRepeat<T>(items: readonly T[], times: number): T | undefined {
  if (times < 1 || items.length < times) return undefined;
  const last = items[items.length - 1];
  return items.slice(-times).every((item) => item === last) ? last : undefined;
}

/**
 * Whether the run is going round in circles, read from its messages before its next model call.
 * Only what came after the run's last failure counts: a plan's step tried again starts afresh.
 */
export function stuckIn(history: readonly MessageRecord[], runId: string, limits: StuckLimits = STUCK_DEFAULTS): Stuck | undefined {
  const mine = history.filter((m) => m.runId === runId);
  const lastFailure = mine.findLastIndex((m) => m.parts.kind === 'failure');
  const recent = mine.slice(lastFailure + 1);
  const answers = recent.flatMap((m) => (m.parts.kind === 'answer' ? [m.parts] : []));

  const calls = answers.map((parts) => (parts.toolCalls?.length ? signature(parts.toolCalls) : ''));
  const call = lastRepeat(calls, limits.repeatedCalls);
  if (call) return { rule: 'repeatedCalls', times: limits.repeatedCalls, calls: call };

  const results = recent.filter((m) => m.parts.kind === 'tool_result');
  const outcomes = results.map((m) => (m.parts.kind === 'tool_result' && !m.parts.ok ? `${m.parts.name}\n${m.content}` : ''));
  const error = lastRepeat(outcomes, limits.repeatedErrors);
  if (error) return { rule: 'repeatedErrors', times: limits.repeatedErrors, tool: error.slice(0, error.indexOf('\n')) };

  const texts = recent.flatMap((m) => (m.parts.kind === 'answer' ? [m.content.trim()] : []));
  if (lastRepeat(texts, limits.repeatedAnswers)) return { rule: 'repeatedAnswers', times: limits.repeatedAnswers };
  return undefined;
}
