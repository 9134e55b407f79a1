import type { Language } from '../../common';
import type { RunEvent, RunEventPayloads } from '../../runtime';
import { joinNote, waitingNote } from '../chat/chat-completion';
import { runFailure } from '../run-failure';
import { SegmentState } from '../run-segment';
import type { ResponseRecord } from './response.repository';

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

interface OutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
}

export type OutputItem =
  | { type: 'message'; id: string; status: 'in_progress' | 'completed' | 'incomplete'; role: 'assistant'; content: OutputText[] }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: 'completed' }
  | { type: 'mcp_approval_request'; id: string; server_label: 'helix'; name: string; arguments: string }
  /** a tool Helix ran itself (a built-in or an MCP server's), with its result */
  | { type: 'mcp_call'; id: string; server_label: 'helix'; name: string; arguments: string; output: string | null; error: string | null; status: 'completed' | 'failed'; approval_request_id: string | null };

/** A Responses stream event: its `type`, `sequence_number` and its own fields. */
export type ResponseStreamEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/** Failures that mean the answer is incomplete rather than wrong: the run ran out of steps or budget. */
const INCOMPLETE_CODES = new Set(['max_steps', 'budget_exceeded']);

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * One response as a pure function of its run's events after `afterSeq`: fed the same events,
 * it gives the same stream events with the same `sequence_number`s and the same response
 * object, so a stream resumed with `starting_after` (from the stored events, on any instance, at
 * any time) continues exactly where the first one stopped. Each step's text is a message item
 * (voided by a restart: `incomplete`); client-side tool calls are `function_call` items; a tool
 * call waiting for approval is an `mcp_approval_request` item; an `ask_user` question or a plan is
 * a message saying what is asked.
 */
export class ResponseBuilder {
  readonly state: SegmentState;
  private readonly output: OutputItem[] = [];
  private sequence = 0;
  /** the message item text is being written to, and the step it belongs to */
  private open?: { item: Extract<OutputItem, { type: 'message' }>; index: number };
  private step = 0;
  /** tool calls started in this segment and not handed to the client, by call id: their tool.end is an mcp_call item */
  private readonly started = new Map<string, { name: string; args: unknown; approvalId?: string }>();

  constructor(
    private readonly record: ResponseRecord,
    private readonly language: Language,
  ) {
    this.state = new SegmentState(record.afterSeq);
    const decided = record.request.decided;
    if (decided) this.started.set(decided.callId, { name: decided.name, args: decided.args, approvalId: decided.approvalId });
  }

  private emit(type: string, fields: Record<string, unknown> = {}): ResponseStreamEvent {
    return { type, sequence_number: this.sequence++, ...fields };
  }

  /** `response.created` and `response.in_progress`. */
  start(): ResponseStreamEvent[] {
    return [this.emit('response.created', { response: this.snapshot('in_progress') }), this.emit('response.in_progress', { response: this.snapshot('in_progress') })];
  }

  next(event: RunEvent): ResponseStreamEvent[] {
    const events: ResponseStreamEvent[] = [];
    if (event.type === 'status' && event.data.step !== undefined && event.data.step !== this.step) {
      events.push(...this.closeText('completed'));
      this.step = event.data.step;
    }
    if (event.type === 'status' && event.data.restart) events.push(...this.closeText('incomplete'));
    const delta = this.state.accept(event);
    if (event.type === 'token' && delta) {
      if (!this.open) events.push(...this.openText());
      const open = this.open!;
      open.item.content[0].text += event.data.text;
      events.push(this.emit('response.output_text.delta', { item_id: open.item.id, output_index: open.index, content_index: 0, delta: event.data.text, logprobs: [] }));
    }
    if (event.type === 'tool.start' || event.type === 'tool.client' || event.type === 'approval') events.push(...this.closeText('completed'));
    if (event.type === 'tool.start') this.started.set(event.data.callId, { name: event.data.name, args: event.data.args });
    if (event.type === 'tool.end') events.push(...this.serverCall(event.data));
    if (event.type === 'tool.client') {
      this.started.delete(event.data.callId);
      const item: OutputItem = { type: 'function_call', id: `fc_${event.data.callId}`, call_id: event.data.callId, name: event.data.name, arguments: JSON.stringify(event.data.args ?? {}), status: 'completed' };
      const index = this.output.push(item) - 1;
      events.push(
        this.emit('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } }),
        this.emit('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments }),
        this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments }),
        this.emit('response.output_item.done', { output_index: index, item }),
      );
    }
    if (event.type === 'approval') {
      const call = this.started.get(event.data.callId);
      if (call) call.approvalId = event.data.approvalId;
      const item: OutputItem = { type: 'mcp_approval_request', id: event.data.approvalId, server_label: 'helix', name: event.data.name, arguments: JSON.stringify(event.data.args ?? {}) };
      const index = this.output.push(item) - 1;
      events.push(this.emit('response.output_item.added', { output_index: index, item }), this.emit('response.output_item.done', { output_index: index, item }));
    }
    if (this.state.end) events.push(...this.finish());
    return events;
  }

  /**
   * A server-side tool call that ended in this segment, as an `mcp_call` item (added and done at
   * once: the call is reported when its result is known). Results of calls begun in an earlier
   * segment (client tools, replies, approvals decided since) are the input of this one: no item.
   */
  private serverCall(end: RunEventPayloads['tool.end']): ResponseStreamEvent[] {
    const call = this.started.get(end.callId);
    if (!call) return [];
    this.started.delete(end.callId);
    const item: Extract<OutputItem, { type: 'mcp_call' }> = {
      type: 'mcp_call',
      id: `mcp_${end.callId}`,
      server_label: 'helix',
      name: end.name,
      arguments: JSON.stringify(call.args ?? {}),
      output: end.ok ? end.output : null,
      error: end.ok ? null : end.output,
      status: end.ok ? 'completed' : 'failed',
      approval_request_id: call.approvalId ?? null,
    };
    const index = this.output.push(item) - 1;
    return [
      this.emit('response.output_item.added', { output_index: index, item: { ...item, output: null, error: null, status: 'in_progress' } }),
      this.emit(end.ok ? 'response.mcp_call.completed' : 'response.mcp_call.failed', { item_id: item.id, output_index: index }),
      this.emit('response.output_item.done', { output_index: index, item }),
    ];
  }

  /** The response object as its events so far make it (`in_progress` until its segment ends). */
  snapshot(status: ResponseStatus = this.status()): Record<string, unknown> {
    const { request } = this.record;
    const failure = status === 'failed' || status === 'incomplete' ? this.failure() : undefined;
    return {
      id: this.record.id,
      object: 'response',
      created_at: seconds(this.record.createdAt),
      status,
      background: request.background,
      error: status === 'failed' && failure ? { code: failure.code, message: failure.message } : null,
      incomplete_details: status === 'incomplete' && failure ? { reason: failure.code } : null,
      instructions: request.instructions,
      max_output_tokens: request.maxOutputTokens,
      metadata: request.metadata,
      model: this.record.model,
      output: this.output.map((item) => structuredClone(item)),
      parallel_tool_calls: true,
      previous_response_id: this.record.previousResponseId,
      store: request.store,
      temperature: request.temperature,
      text: { format: request.textFormat },
      tool_choice: request.toolChoice,
      tools: request.tools,
      top_p: request.topP,
      truncation: 'disabled',
      usage: {
        input_tokens: this.state.usage.promptTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: this.state.usage.completionTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: this.state.usage.totalTokens,
      },
      user: request.user,
      helix: { conversation_id: this.record.conversationId, run_id: this.record.runId, ...(this.state.sources && { sources: this.state.sources }) },
    };
  }

  /** How the segment ended, as a response status (`in_progress` while it goes on). */
  status(): ResponseStatus {
    const end = this.state.end;
    if (!end) return 'in_progress';
    if (end.kind !== 'done' || end.state === 'SUCCEEDED') return 'completed';
    if (end.state === 'CANCELLED') return 'cancelled';
    const failure = this.failure();
    return failure && INCOMPLETE_CODES.has(failure.code) ? 'incomplete' : 'failed';
  }

  /** The run's own failure code (`max_steps`, `budget_exceeded`, `rate_limited`, …) and message. */
  private failure(): { code: string; message: string } | undefined {
    const end = this.state.end;
    const error = runFailure(end, this.language);
    if (!error || end?.kind !== 'done') return undefined;
    return { code: end.error?.code ?? (end.state === 'BUDGET_EXCEEDED' ? 'budget_exceeded' : 'internal'), message: error.message };
  }

  private openText(): ResponseStreamEvent[] {
    const item: Extract<OutputItem, { type: 'message' }> = {
      type: 'message',
      id: `msg_${this.record.runId.replace(/^run_/, '')}_${this.state.lastSeq}`,
      status: 'in_progress',
      role: 'assistant',
      content: [{ type: 'output_text', text: '', annotations: [], logprobs: [] }],
    };
    const index = this.output.push(item) - 1;
    this.open = { item, index };
    return [
      this.emit('response.output_item.added', { output_index: index, item: { ...item, content: [] } }),
      this.emit('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { ...item.content[0] } }),
    ];
  }

  private closeText(status: 'completed' | 'incomplete'): ResponseStreamEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = undefined;
    open.item.status = status;
    const part = open.item.content[0];
    return [
      this.emit('response.output_text.done', { item_id: open.item.id, output_index: open.index, content_index: 0, text: part.text, logprobs: [] }),
      this.emit('response.content_part.done', { item_id: open.item.id, output_index: open.index, content_index: 0, part: { ...part } }),
      this.emit('response.output_item.done', { output_index: open.index, item: structuredClone(open.item) }),
    ];
  }

  /** The end: the text closed, what the run waits for said, the terminal event with the whole response. */
  private finish(): ResponseStreamEvent[] {
    const events = this.closeText('completed');
    const note = waitingNote(this.state.end, this.record.runId, this.language);
    if (note && this.state.end?.kind === 'question') {
      events.push(...this.openText());
      const open = this.open!;
      open.item.content[0].text = joinNote('', note);
      events.push(this.emit('response.output_text.delta', { item_id: open.item.id, output_index: open.index, content_index: 0, delta: open.item.content[0].text, logprobs: [] }));
      events.push(...this.closeText('completed'));
    }
    const status = this.status();
    const terminal = status === 'completed' ? 'response.completed' : status === 'cancelled' ? 'response.cancelled' : status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    events.push(this.emit(terminal, { response: this.snapshot(status) }));
    return events;
  }
}
