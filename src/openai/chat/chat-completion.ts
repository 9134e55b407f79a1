import { openAiErrorBody, say, translate, type Language } from '../../common';
import type { RunEvent } from '../../runtime';
import { type SegmentEnd, type SegmentSources, SegmentState } from '../run-segment';
import { runFailure } from '../run-failure';

/** What every completion of one request says about itself. */
export interface CompletionMeta {
  id: string;
  /** seconds since the epoch */
  created: number;
  /** the `model` the client asked for */
  model: string;
  runId: string;
  conversationId: string;
  language: Language;
}

export interface ChatToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Helix's own fields beside OpenAI's: ignored by strict clients. */
export interface HelixExtra {
  conversation_id: string;
  run_id: string;
  /** the run's state when the answer ended (`AWAIT_APPROVAL`: see `approval`) */
  state: string;
  sources?: SegmentSources;
  approval?: { id: string; tool: string; decide: string };
}

export type FinishReason = 'stop' | 'tool_calls' | 'length';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: null;
  choices: [
    {
      index: 0;
      message: { role: 'assistant'; content: string | null; refusal: null; reasoning_content?: string; tool_calls?: ChatToolCallOut[]; helix?: { sources: SegmentSources } };
      logprobs: null;
      finish_reason: FinishReason;
    },
  ];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  helix: HelixExtra;
}

export const toolCallsOf = (end: SegmentEnd | undefined): ChatToolCallOut[] =>
  end?.kind === 'client_tools'
    ? end.calls.map((call) => ({ id: call.callId, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } }))
    : [];

/**
 * What the answer says after the model's text when the run waits for a person: the approval to
 * decide and how, the plan to approve, or the `ask_user` question (which the next user message
 * answers). Undefined when it finished or waits for the client's tools.
 */
export function waitingNote(end: SegmentEnd | undefined, runId: string, language: Language): string | undefined {
  if (end?.kind === 'approval') {
    const { approvalId, name } = end.approval;
    return translate(say('openai.approval_pending', { name, approvalId, runId }), language);
  }
  if (end?.kind !== 'question') return undefined;
  if (!end.plan) return end.text;
  const steps = end.plan.steps.map((step, i) => `${i + 1}. ${step.title}${step.detail ? ` — ${step.detail}` : ''}`).join('\n');
  return `${steps}\n\n${translate(say('openai.plan_pending', { runId }), language)}`;
}

export const joinNote = (text: string, note: string | undefined): string => (note ? (text ? `${text}\n\n${note}` : note) : text);

/** The state a segment left its run in, as the answer names it. */
export function stateOf(end: SegmentEnd | undefined): string {
  if (!end) return 'EXECUTING';
  if (end.kind === 'done') return end.state;
  return end.kind === 'approval' || (end.kind === 'question' && end.plan) ? 'AWAIT_APPROVAL' : 'AWAIT_USER';
}

export function helixExtra(meta: CompletionMeta, state: SegmentState): HelixExtra {
  const approval = state.end?.kind === 'approval' ? state.end.approval : undefined;
  return {
    conversation_id: meta.conversationId,
    run_id: meta.runId,
    state: stateOf(state.end),
    ...(state.sources && { sources: state.sources }),
    ...(approval && { approval: { id: approval.approvalId, tool: approval.name, decide: `/api/v1/runs/${meta.runId}/approvals/${approval.approvalId}` } }),
  };
}

/**
 * The answer of a segment that ended (a failed run throws its OpenAI error instead): the text,
 * or the structured output as JSON where the run had a response format, with the waiting note;
 * the client tool calls; the usage of every model call of the segment.
 */
export function completionOf(meta: CompletionMeta, state: SegmentState): ChatCompletion {
  const failure = runFailure(state.end, meta.language);
  if (failure) throw failure;
  const end = state.end;
  const calls = toolCallsOf(end);
  const text = end?.kind === 'done' && end.output !== undefined ? JSON.stringify(end.output) : state.text;
  const content = joinNote(text, waitingNote(end, meta.runId, meta.language));
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: content || (calls.length ? null : ''),
          refusal: null,
          // as OpenAI-compatible servers of reasoning models (vLLM, DeepSeek) send it; strict clients ignore it
          ...(state.reasoning && { reasoning_content: state.reasoning }),
          ...(calls.length && { tool_calls: calls }),
          ...(state.sources && { helix: { sources: state.sources } }),
        },
        logprobs: null,
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: usageOf(state),
    helix: helixExtra(meta, state),
  };
}

export const usageOf = (state: SegmentState) => ({
  prompt_tokens: state.usage.promptTokens,
  completion_tokens: state.usage.completionTokens,
  total_tokens: state.usage.totalTokens,
});

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

/**
 * A streamed completion: each run event becomes the chunks it adds (`next`), the end adds the
 * waiting note, the tool calls, the finish reason with Helix's extra fields, the usage chunk when
 * asked for, and `[DONE]` (`close`); a failed run ends with an `error` frame, as OpenAI's
 * streams do.
 */
export class ChatChunks {
  readonly state: SegmentState;
  /** what the client was sent as content: what it will send back as the assistant's message */
  content = '';

  constructor(
    private readonly meta: CompletionMeta,
    afterSeq: number,
    private readonly includeUsage: boolean,
  ) {
    this.state = new SegmentState(afterSeq);
  }

  private chunk(delta: Record<string, unknown>, finishReason: FinishReason | null = null, extra: object = {}): string {
    return data({
      id: this.meta.id,
      object: 'chat.completion.chunk',
      created: this.meta.created,
      model: this.meta.model,
      system_fingerprint: null,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...extra,
    });
  }

  /** The first chunk: the assistant's role, before any text. */
  opening(): string {
    return this.chunk({ role: 'assistant', content: '' });
  }

  next(event: RunEvent): string[] {
    const delta = this.state.accept(event);
    if (delta) {
      this.content += delta;
      return [this.chunk({ content: delta })];
    }
    if (event.type === 'reasoning') return [this.chunk({ reasoning_content: event.data.text })];
    return [];
  }

  close(): string[] {
    const failure = runFailure(this.state.end, this.meta.language);
    if (failure) return [data(openAiErrorBody(failure.getStatus(), failure.message, { code: failure.code ?? undefined }))];
    const frames: string[] = [];
    const note = waitingNote(this.state.end, this.meta.runId, this.meta.language);
    if (note) {
      const delta = this.content ? `\n\n${note}` : note;
      this.content += delta;
      frames.push(this.chunk({ content: delta }));
    }
    const calls = toolCallsOf(this.state.end);
    if (calls.length) frames.push(this.chunk({ tool_calls: calls.map((call, index) => ({ index, ...call })) }));
    frames.push(this.chunk({}, calls.length ? 'tool_calls' : 'stop', { helix: helixExtra(this.meta, this.state) }));
    if (this.includeUsage) {
      frames.push(data({ id: this.meta.id, object: 'chat.completion.chunk', created: this.meta.created, model: this.meta.model, system_fingerprint: null, choices: [], usage: usageOf(this.state) }));
    }
    frames.push('data: [DONE]\n\n');
    return frames;
  }
}
