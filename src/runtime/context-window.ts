import { Injectable } from '@nestjs/common';
import type { MessageRecord } from '../conversation/conversation.records';
import type { ChatMessage } from '../model/model.types';
import type { PlanStep } from './run-events';
import { ContextBuilder, type ContextWindow, type Retrieved, type StepInput } from './step-hooks';

/** Until the memory module lands: the most recent messages, never starting inside a tool exchange. */
const MAX_HISTORY = 40;

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

export function toChatMessages(history: MessageRecord[]): ChatMessage[] {
  let start = Math.max(0, history.length - MAX_HISTORY);
  while (start > 0 && history[start].role === 'tool') start--;
  const out: ChatMessage[] = [];
  for (const message of history.slice(start)) {
    const parts = message.parts;
    switch (parts.kind) {
      case 'user':
        out.push({ role: message.role === 'system' ? 'system' : 'user', content: message.content });
        break;
      case 'answer':
        out.push({ role: 'assistant', content: message.content, ...(parts.toolCalls?.length && { toolCalls: parts.toolCalls }) });
        break;
      case 'failure':
        out.push({ role: 'assistant', content: message.content });
        break;
      case 'tool_result':
        out.push({ role: 'tool', toolCallId: message.toolCallId ?? '', content: message.content });
        break;
      case 'partial':
        // a partial answer (cancelled, or cut by a restart) is the user's record, not context
        break;
    }
  }
  return out;
}

export function systemPrompt(custom: string | undefined, plan: PlanStep[] | null, retrieved?: Retrieved): string {
  let prompt = custom?.trim() || BASE_SYSTEM_PROMPT;
  if (plan?.length) {
    prompt += `\n\nCarry out this approved plan, step by step:\n${plan
      .map((step, i) => `${i + 1}. ${step.title}${step.detail ? ` — ${step.detail}` : ''}`)
      .join('\n')}`;
  }
  if (retrieved?.context) prompt += `\n\n${retrieved.context}`;
  return prompt;
}

/** A rough size of the prompt in tokens (about four characters each), until memory counts them. */
function estimateTokens(messages: ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += message.content.length + (message.role === 'assistant' ? JSON.stringify(message.toolCalls ?? []).length : 0);
  return Math.ceil(chars / 4);
}

/** The default window: the system prompt (with the approved plan or the plan request) and the recent messages. */
@Injectable()
export class RecentMessagesWindow extends ContextBuilder {
  async build(input: StepInput, retrieved: Retrieved | undefined): Promise<ContextWindow> {
    const system =
      input.purpose === 'plan' ? PLAN_PROMPT : systemPrompt(input.settings.systemPrompt, input.run.plan?.steps ?? null, retrieved);
    const messages: ChatMessage[] = [{ role: 'system', content: system }, ...toChatMessages(runView(input.history, input.run.id))];
    return { messages, estimatedTokens: estimateTokens(messages), events: [] };
  }
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
