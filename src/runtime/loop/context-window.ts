import { Injectable } from '@nestjs/common';
import type { MessageRecord } from '../../conversation';
import { type BuiltWindow, MemoryWindow, type SummaryMeter, WARN_AT } from '../../memory';
import { type ChatMessage, ModelCatalog, ModelRouter } from '../../model';
import { addUsage, NO_USAGE, type RunUsage } from '../store/run.records';
import type { PlanStep, PlanStepStatus } from '../store/run-events';
import { currentStep, stepsAfterCurrent } from '../store/plan-progress';
import { BudgetGate, ContextBuilder, type ContextWindow, type EventDraft, type Retrieved, type StepInput } from './step-hooks';
import { say } from '../../common';
import type { Skill } from '../../workspace';

export const BASE_SYSTEM_PROMPT =
  'You are Helix, a helpful assistant. Use the tools offered when they help; answer concisely.';

export const PLAN_PROMPT =
  'Before doing anything, write a short plan for the user\'s request. Return the plan as JSON only, ' +
  'in the form {"steps":[{"title":"…","detail":"…"}]}, with 1 to 10 steps and no other text.';

/**
 * The conversation as this run should see it: earlier runs' messages, then its own. A queued
 * run's user message was stored while the previous run was still answering, so by seq it sits
 * before that answer; later runs' messages are not this run's business. Runs are ordered by
 * their first message (ids sort by time only across milliseconds and while the clock holds).
 */
export function runView(history: MessageRecord[], runId: string): MessageRecord[] {
  const firstSeq = new Map<string, number>();
  for (const m of history) if (m.runId && !firstSeq.has(m.runId)) firstSeq.set(m.runId, m.seq);
  const mine = firstSeq.get(runId) ?? Infinity;
  const earlier = history.filter((m) => m.runId !== runId && (!m.runId || (firstSeq.get(m.runId) ?? Infinity) < mine));
  return earlier.concat(history.filter((m) => m.runId === runId));
}

/**
 * The system prompt: the agent's (or the base one), its skills, the run's own instructions (given
 * for this run only), the approved plan, the retrieved context.
 */
export function systemPrompt(
  custom: string | undefined,
  plan: PlanStep[] | null,
  retrieved?: Retrieved,
  skills: readonly Skill[] = [],
  instructions?: string | null,
): string {
  let prompt = custom?.trim() || BASE_SYSTEM_PROMPT;
  if (skills.length) prompt += `\n\nSkills you have; follow the instructions of each where it applies:\n${skills.map((skill) => `## ${skill.name}\n${skill.instructions.trim()}`).join('\n\n')}`;
  if (instructions?.trim()) prompt += `\n\n${instructions.trim()}`;
  if (plan?.length) prompt += `\n\n${planSection(plan)}`;
  if (retrieved?.context) prompt += `\n\n${retrieved.context}`;
  return prompt;
}

const STEP_MARK: Record<PlanStepStatus, string> = { pending: 'to do', running: 'current', done: 'done', failed: 'failed', skipped: 'skipped' };

/**
 * The approved plan as the model works through it: every step with its status, what the done
 * ones produced, and which one to do now.
 */
export function planSection(plan: PlanStep[]): string {
  const current = currentStep({ steps: plan });
  const lines = plan.map((step, i) => {
    const status: PlanStepStatus = i === current ? 'running' : (step.status ?? 'pending');
    const line = `${i + 1}. [${STEP_MARK[status]}] ${step.title}${step.detail ? ` — ${step.detail}` : ''}`;
    return step.summary && status === 'done' ? `${line}\n   Result: ${step.summary}` : line;
  });
  let text = `You are carrying out this approved plan, one step at a time:\n${lines.join('\n')}`;
  if (current === undefined) return text;
  text += `\n\nWork on step ${current + 1} now, and only on it. When it is complete, reply with what it produced`;
  text += stepsAfterCurrent({ steps: plan }) ? '; the next step follows.' : ': this is the last step, so your reply is the final answer to the user.';
  return text;
}

/**
 * A plan's next step starts after the answer that completed the last one: a user turn names it
 * (not stored; every provider accepts a user turn after an answer, not always an answer after one).
 */
function nextStepTurn(plan: PlanStep[] | undefined, messages: readonly ChatMessage[]): ChatMessage | undefined {
  const last = messages.at(-1);
  const current = plan && currentStep({ steps: plan });
  if (current === undefined || !plan || last?.role !== 'assistant' || last.toolCalls?.length) return undefined;
  const step = plan[current];
  const again = (step.attempts ?? 1) > 1 ? ' (again: the last attempt failed)' : '';
  return { role: 'user', content: `Go on with step ${current + 1} of the plan${again}: ${step.title}${step.detail ? ` — ${step.detail}` : ''}` };
}

/**
 * The window of every model call (the early first call of a run included): the runtime's
 * prompt (base or custom, plan, retrieved context), then memory's window of the run's view of
 * the conversation, sized to the model. Announces it in a `context` event, warns from WARN_AT
 * of the prompt limit, and says when older messages were summarised for it.
 */
@Injectable()
export class MemoryContextBuilder extends ContextBuilder {
  constructor(
    private readonly memory: MemoryWindow,
    private readonly budget: BudgetGate,
    private readonly router: ModelRouter,
  ) {
    super();
  }

  /** A summary's calls are the run's: held against its daily budget, priced and charged like any call. */
  private meter(input: StepInput, charged: { usage: RunUsage }): SummaryMeter {
    return {
      hold: async (estimatedPromptTokens, maxOutputTokens) => {
        const reservation = await this.budget.reserve({
          workspaceId: input.workspaceId,
          runId: input.run.id,
          model: input.run.model,
          estimatedPromptTokens,
          maxOutputTokens,
          dailyTokenBudget: input.settings.dailyTokenBudget,
          dailyCostBudget: input.settings.dailyCostBudget,
        });
        if (!reservation.allowed) return undefined;
        return {
          settle: async (usage) => {
            const info = usage && (await this.router.describe(input.run.model, input.workspaceId));
            const cost = usage && info ? { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, cost: ModelCatalog.cost(usage, info) } : NO_USAGE;
            charged.usage = addUsage(charged.usage, cost);
            await reservation.settle(cost);
          },
        };
      },
    };
  }

  async build(input: StepInput, retrieved: Retrieved | undefined): Promise<ContextWindow> {
    const system =
      input.purpose === 'plan'
        ? PLAN_PROMPT
        : systemPrompt(input.settings.systemPrompt, input.run.plan?.steps ?? null, retrieved, input.settings.skills, input.run.instructions);
    const charged = { usage: NO_USAGE };
    const built = await this.memory.build({
      conversationId: input.run.conversationId,
      workspaceId: input.workspaceId,
      model: input.run.model,
      fallbacks: input.fallbacks,
      history: input.history,
      view: runView(input.history, input.run.id),
      system,
      tools: input.tools,
      historyTokens: input.settings.memoryWindowTokens,
      meter: this.meter(input, charged),
      ...(input.summary && { summary: input.summary }),
    });
    const next = input.purpose === 'plan' ? undefined : nextStepTurn(input.run.plan?.steps, built.messages);
    const events = windowEvents(built, retrieved);
    const { usage } = charged;
    if (usage.promptTokens || usage.completionTokens) {
      // after the status that says a summary was written: what it cost
      events.splice(built.compacted ? 1 : 0, 0, { type: 'usage', data: { ...usage, totalTokens: usage.promptTokens + usage.completionTokens } });
    }
    return { messages: next ? [...built.messages, next] : built.messages, estimatedTokens: built.estimatedTokens, events, ...(usage !== NO_USAGE && { charged: usage }) };
  }
}

/** What a window announces: a summary written for it, its `context`, a `token_warning` when it is nearly full. */
export function windowEvents(built: BuiltWindow, retrieved: Retrieved | undefined): EventDraft[] {
  const events: EventDraft[] = [];
  // the summary is written before the call is taken over, so this status follows the work it names
  if (built.compacted) events.push({ type: 'status', data: { phase: 'summarizing', text: say('run.summarised') } });
  events.push({
    type: 'context',
    data: {
      model: built.model,
      contextWindow: built.contextWindow,
      estimatedTokens: built.estimatedTokens,
      historyMessages: built.historyMessages,
      summarized: built.summarized,
      retrieved: retrieved?.sources.length ?? 0,
      ...(retrieved?.query !== undefined && { query: retrieved.query }),
    },
  });
  if (built.percentage >= WARN_AT * 100) {
    events.push({ type: 'token_warning', data: { percentage: built.percentage, estimatedTokens: built.estimatedTokens, limit: built.limit } });
  }
  return events;
}

/** Parses the model's plan: JSON possibly wrapped in prose or code fences. */
export function parsePlan(text: string): PlanStep[] | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(start, end + 1));
    const steps = typeof value === 'object' && value !== null && 'steps' in value ? value.steps : undefined;
    if (!Array.isArray(steps)) return undefined;
    const parsed = steps
      .filter((s): s is { title: unknown; detail?: unknown } => !!s && typeof s === 'object')
      .map((s) => ({
        title: String(s.title ?? '').trim(),
        ...(typeof s.detail === 'string' && s.detail.trim() && { detail: s.detail.trim() }),
      }))
      .filter((s) => s.title);
    return parsed.length ? parsed.slice(0, 20) : undefined;
  } catch {
    return undefined;
  }
}
