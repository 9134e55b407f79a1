import type { MessageView } from '../conversation/conversation.view';
import type { ChatMessage, ModelRef, ModelRequest, ToolCall, ToolSpec } from '../model/model.types';
import type { PlanStep } from './run-events';

/** Until the memory module lands: the most recent messages, never starting inside a tool exchange. */
const MAX_HISTORY = 40;

export const BASE_SYSTEM_PROMPT =
  'You are Helix, a helpful assistant. Use the tools offered when they help; answer concisely.';

/**
 * The conversation as this run should see it: earlier runs' messages, then its own. A queued
 * run's user message was stored while the previous run was still answering, so by seq it sits
 * before that answer; later runs' messages are not this run's business.
 */
export function runView(history: MessageView[], runId: string): MessageView[] {
  const earlier = history.filter((m) => m.runId !== runId && (!m.runId || m.runId < runId));
  return earlier.concat(history.filter((m) => m.runId === runId));
}

export function toChatMessages(history: MessageView[]): ChatMessage[] {
  let start = Math.max(0, history.length - MAX_HISTORY);
  while (start > 0 && history[start].role === 'tool') start--;
  const out: ChatMessage[] = [];
  for (const message of history.slice(start)) {
    switch (message.role) {
      case 'user':
      case 'system':
        out.push({ role: message.role, content: message.content });
        break;
      case 'assistant': {
        // a partial answer (cancelled, or cut by a restart) is the user's record, not context
        if (message.parts.partial) break;
        const toolCalls = message.parts.toolCalls as ToolCall[] | undefined;
        out.push({ role: 'assistant', content: message.content, ...(toolCalls?.length && { toolCalls }) });
        break;
      }
      case 'tool':
        out.push({ role: 'tool', toolCallId: message.toolCallId ?? '', content: message.content });
        break;
    }
  }
  return out;
}

/** The model call of one step: the system prompt (with the approved plan), the run's view of the conversation, the tools. */
export function stepRequest(
  run: { id: string; model: ModelRef; plan: PlanStep[] | null },
  context: { workspaceId: string; settings: { systemPrompt?: string }; fallbacks: ModelRef[] },
  history: MessageView[],
  tools: ToolSpec[] | undefined,
): ModelRequest {
  return {
    model: run.model,
    fallbacks: context.fallbacks,
    workspaceId: context.workspaceId,
    messages: [{ role: 'system', content: systemPrompt(context.settings.systemPrompt, run.plan) }, ...toChatMessages(runView(history, run.id))],
    tools,
  };
}

export function systemPrompt(custom: string | undefined, plan: PlanStep[] | null): string {
  let prompt = custom?.trim() || BASE_SYSTEM_PROMPT;
  if (plan?.length) {
    prompt += `\n\nCarry out this approved plan, step by step:\n${plan
      .map((step, i) => `${i + 1}. ${step.title}${step.detail ? ` — ${step.detail}` : ''}`)
      .join('\n')}`;
  }
  return prompt;
}

export const PLAN_PROMPT =
  'Before doing anything, write a short plan for the user\'s request. Return the plan as JSON only, ' +
  'in the form {"steps":[{"title":"…","detail":"…"}]}, with 1 to 10 steps and no other text.';

/** Parses the model's plan: JSON possibly wrapped in prose or code fences. */
export function parsePlan(text: string): PlanStep[] | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const value = JSON.parse(text.slice(start, end + 1)) as { steps?: unknown };
    if (!Array.isArray(value.steps)) return undefined;
    const steps = value.steps
      .filter((s): s is { title: unknown; detail?: unknown } => !!s && typeof s === 'object')
      .map((s) => ({
        title: String(s.title ?? '').trim(),
        ...(typeof s.detail === 'string' && s.detail.trim() && { detail: s.detail.trim() }),
      }))
      .filter((s) => s.title);
    return steps.length ? steps.slice(0, 20) : undefined;
  } catch {
    return undefined;
  }
}
