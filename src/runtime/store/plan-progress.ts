import type { RunEventPayloads, PlanStep, PlanStepStatus } from './run-events';
import type { RunPlan } from './run.records';

/** How many times a step of a plan is started before its failure ends the run (one retry). */
export const PLAN_STEP_ATTEMPTS = 2;
/** Steps a plan may hold, counting those already done (the planner proposes at most 20). */
export const MAX_PLAN_STEPS = 50;
/** What a done step keeps of its answer as its summary (the answer itself stays a message). */
export const PLAN_SUMMARY_CHARS = 500;

export type PlanStepEvent = RunEventPayloads['plan.step'];

/** A plan after a change, with the `plan.step` events that announce it. */
export interface PlanChange {
  plan: RunPlan;
  events: PlanStepEvent[];
}

const statusOf = (step: PlanStep): PlanStepStatus => step.status ?? 'pending';
const isOpen = (step: PlanStep) => statusOf(step) === 'pending' || statusOf(step) === 'running';

/** The step being carried out (running, else the first pending one); undefined when none is left. */
export function currentStep(plan: RunPlan | null): number | undefined {
  if (!plan) return undefined;
  const running = plan.steps.findIndex((step) => statusOf(step) === 'running');
  if (running >= 0) return running;
  const pending = plan.steps.findIndex((step) => statusOf(step) === 'pending');
  return pending >= 0 ? pending : undefined;
}

/** Whether steps wait after the current one (the current step's answer is not the run's final answer). */
export function stepsAfterCurrent(plan: RunPlan | null): boolean {
  const index = currentStep(plan);
  return index !== undefined && (plan?.steps ?? []).slice(index + 1).some((step) => statusOf(step) === 'pending');
}

function withStep(plan: RunPlan, index: number, step: PlanStep): RunPlan {
  return { steps: plan.steps.map((s, i) => (i === index ? step : s)) };
}

function event(index: number, step: PlanStep): PlanStepEvent {
  return {
    index,
    title: step.title,
    status: statusOf(step),
    ...(step.summary && { summary: step.summary }),
    ...(step.attempts && { attempt: step.attempts }),
  };
}

function start(plan: RunPlan, index: number): PlanChange {
  const step: PlanStep = { ...plan.steps[index], status: 'running', attempts: (plan.steps[index].attempts ?? 0) + 1 };
  delete step.summary;
  return { plan: withStep(plan, index, step), events: [event(index, step)] };
}

/** Starts the current step if none is running; nothing to do when one already is (a resumed run). */
export function beginPlan(plan: RunPlan): PlanChange | undefined {
  const index = currentStep(plan);
  if (index === undefined || statusOf(plan.steps[index]) === 'running') return undefined;
  return start(plan, index);
}

/** The current step is done with `summary`; the next pending one (if any) starts. */
export function completeStep(plan: RunPlan, summary: string): PlanChange & { more: boolean } {
  const index = currentStep(plan);
  if (index === undefined) return { plan, events: [], more: false };
  const done: PlanStep = { ...plan.steps[index], status: 'done', summary: clip(summary) };
  const completed = withStep(plan, index, done);
  const next = currentStep(completed);
  if (next === undefined) return { plan: completed, events: [event(index, done)], more: false };
  const started = start(completed, next);
  return { plan: started.plan, events: [event(index, done), ...started.events], more: true };
}

/**
 * The current step failed with `reason`: started again while it has attempts left (`retried`),
 * else marked failed and the steps after it skipped.
 */
export function failStep(plan: RunPlan, reason: string): PlanChange & { retried: boolean; index?: number } {
  const index = currentStep(plan);
  if (index === undefined) return { plan, events: [], retried: false };
  const attempts = plan.steps[index].attempts ?? 1;
  if (attempts < PLAN_STEP_ATTEMPTS) {
    const failed = { ...plan.steps[index], status: 'failed' as const, summary: clip(reason) };
    const restarted = start(withStep(plan, index, failed), index);
    return { plan: restarted.plan, events: [event(index, failed), ...restarted.events], retried: true, index };
  }
  const failed: PlanStep = { ...plan.steps[index], status: 'failed', summary: clip(reason) };
  const ended = skipOpen(withStep(plan, index, failed));
  return { plan: ended.plan, events: [event(index, failed), ...ended.events], retried: false, index };
}

/** The run ended before its plan did: the steps still open are skipped. */
export function skipOpen(plan: RunPlan): PlanChange {
  const events: PlanStepEvent[] = [];
  const steps = plan.steps.map((step, index) => {
    if (!isOpen(step)) return step;
    const skipped: PlanStep = { ...step, status: 'skipped' };
    events.push(event(index, skipped));
    return skipped;
  });
  return { plan: { steps }, events };
}

/**
 * The user's edit: `remaining` replaces the steps not yet started (those done, failed, skipped or
 * running stay as they are). Undefined when the plan would hold more than MAX_PLAN_STEPS.
 */
export function replaceRemaining(plan: RunPlan, remaining: readonly Pick<PlanStep, 'title' | 'detail'>[]): RunPlan | undefined {
  const kept = plan.steps.filter((step) => statusOf(step) !== 'pending');
  if (kept.length + remaining.length > MAX_PLAN_STEPS) return undefined;
  return { steps: [...kept, ...remaining.map((step) => ({ title: step.title, ...(step.detail && { detail: step.detail }) }))] };
}

function clip(text: string): string {
  const trimmed = text.trim();
  const chars = [...trimmed];
  return chars.length <= PLAN_SUMMARY_CHARS ? trimmed : `${chars.slice(0, PLAN_SUMMARY_CHARS - 1).join('')}…`;
}
