import type { ModelLimits, SamplingParams } from '../../model';
import { MAX_STOP_SEQUENCES, MAX_TEMPERATURE } from '../../workspace';

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * What a run samples with: the agent's (or workspace's) defaults, each field the message sets
 * over them, clamped to what the model's configuration allows — its `maxTokens` is a ceiling.
 * The defaults are read from stored JSON, so the ranges are applied again here.
 */
export function runSampling(defaults: SamplingParams | undefined, message: SamplingParams | undefined, limits: Pick<ModelLimits, 'maxOutputTokens'>): SamplingParams | undefined {
  const merged: SamplingParams = { ...defaults, ...message };
  const out: SamplingParams = {};
  if (merged.temperature !== undefined) out.temperature = clamp(merged.temperature, 0, MAX_TEMPERATURE);
  // 0 is no nucleus at all: the smallest sensible mass instead
  if (merged.topP !== undefined) out.topP = clamp(merged.topP, 0.01, 1);
  if (merged.maxTokens !== undefined) {
    const ceiling = limits.maxOutputTokens ?? Number.POSITIVE_INFINITY;
    out.maxTokens = Math.max(1, Math.min(Math.floor(merged.maxTokens), ceiling));
  }
  if (merged.seed !== undefined) out.seed = Math.trunc(merged.seed);
  const stop = merged.stop?.filter((s) => s.length > 0).slice(0, MAX_STOP_SEQUENCES);
  if (stop?.length) out.stop = stop;
  return Object.keys(out).length ? out : undefined;
}

/**
 * The output limit of one call: the run's (or the model config's) limit, never more than the
 * context window leaves after the prompt. Undefined when neither sets one (the provider decides).
 */
export function outputLimit(runMaxTokens: number | undefined, limits: Pick<ModelLimits, 'contextWindow' | 'maxOutputTokens'>, promptTokens: number): number | undefined {
  const wanted = runMaxTokens ?? limits.maxOutputTokens;
  if (wanted === undefined) return undefined;
  const room = Math.max(1, limits.contextWindow - promptTokens);
  return Math.min(wanted, room);
}
