import { ConflictException, Injectable } from '@nestjs/common';
import { concat, concatMap, filter, from, lastValueFrom, map, type Observable, of, tap } from 'rxjs';
import { type Language, newId, OpenAiError } from '../../common';
import { ConversationService } from '../../conversation';
import { EventLog, type PostMessageDto, RunService } from '../../runtime';
import type { AuthContext } from '../../security';
import type { ChatTurn } from '../chat/chat-turns';
import { ModelDirectory, type ModelTarget } from '../model-directory';
import { importedMessages, runMessage } from '../request-mapping';
import { RunPoster } from '../run-poster';
import { RunSegments, type SegmentEnd } from '../run-segment';
import { type ResponseInput, readResponseInput } from './response-input';
import { ResponseBuilder, type ResponseStreamEvent } from './response-events';
import { type ResponseRecord, ResponseRepository, type ResponseRequest } from './response.repository';
import type { CreateResponseDto, InputItemsQuery } from './responses.dto';

const invalid = (param: string, message: string) => new OpenAiError(400, `${param}: ${message}`, param, 'invalid_value');
const notFound = (id: string, param: string | null = null) => new OpenAiError(404, `Response ${id} not found`, param, 'not_found');
const PAGE = 1000;

/** The run a response reads, and where in its events it starts. */
interface Placed {
  conversationId: string;
  runId: string;
  afterSeq: number;
  /** the approval the input decided, whose call's result this response reports */
  decided?: ResponseRequest['decided'];
}

/** A created response: its stream, or the object to answer. */
export type Created = { kind: 'stream'; record: ResponseRecord; events: Observable<ResponseStreamEvent> } | { kind: 'object'; record: ResponseRecord; body: Record<string, unknown> };

/**
 * `/v1/responses` over Helix's runs: a response is a run's events after a point, mapped by
 * ResponseBuilder. `previous_response_id` continues its conversation — or, when the previous
 * response ended with function calls, an approval request or a question, the same run, which the
 * input's `function_call_output` items, `mcp_approval_response` or user message answer. Every
 * response can be read and streamed again from any `sequence_number`, for as long as its run's
 * events are kept, whether or not it was created in the background.
 */
@Injectable()
export class ResponseService {
  constructor(
    private readonly directory: ModelDirectory,
    private readonly conversations: ConversationService,
    private readonly runs: RunService,
    private readonly events: EventLog,
    private readonly segments: RunSegments,
    private readonly responses: ResponseRepository,
    private readonly poster: RunPoster,
  ) {}

  async create(auth: AuthContext, dto: CreateResponseDto, language: Language): Promise<Created> {
    if (dto.background && dto.store === false) throw invalid('background', 'a background response must be stored (store: true)');
    const id = newId('resp');
    const target = await this.directory.resolve(auth, dto.model);
    const input = readResponseInput(dto.input, id);
    const instructions = [dto.instructions?.trim(), input.instructions].filter(Boolean).join('\n\n') || null;
    const placed = dto.previous_response_id
      ? await this.continueFrom(auth, dto, input, instructions, target)
      : await this.startConversation(auth, dto, input, instructions, target);
    const { decided, ...where } = placed;
    const record = await this.responses.insert({
      id,
      workspaceId: auth.workspaceId,
      ...where,
      previousResponseId: dto.previous_response_id ?? null,
      model: dto.model,
      request: { ...requestOf(dto, instructions), decided: decided ?? null },
      input: input.items,
      stored: dto.store !== false,
    });
    if (dto.stream) return { kind: 'stream', record, events: this.eventsOf(record, language) };
    const builder = new ResponseBuilder(record, language);
    if (dto.background) return { kind: 'object', record, body: builder.snapshot('queued') };
    await lastValueFrom(this.segments.read(record.runId, record.afterSeq).pipe(tap((event) => builder.next(event))), { defaultValue: undefined });
    return { kind: 'object', record, body: builder.snapshot() };
  }

  /** The response as its events so far make it. */
  async retrieve(auth: AuthContext, id: string, language: Language): Promise<Record<string, unknown>> {
    return (await this.built(await this.find(auth, id), language)).snapshot();
  }

  /** Its stream events after `startingAfter`: the stored ones, then the live ones until it ends. */
  async stream(auth: AuthContext, id: string, startingAfter: number, language: Language): Promise<Observable<ResponseStreamEvent>> {
    const record = await this.find(auth, id);
    return this.eventsOf(record, language).pipe(filter((event) => event.sequence_number > startingAfter));
  }

  /**
   * Stops the response's run if the response is still going on, and answers the response as it
   * ended; a response that has ended comes back as it is (cancelling is idempotent).
   */
  async cancel(auth: AuthContext, id: string, language: Language): Promise<Record<string, unknown>> {
    const record = await this.find(auth, id);
    const builder = await this.built(record, language);
    if (builder.state.end) return builder.snapshot();
    try {
      await this.runs.cancel(auth, record.runId);
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error; // it finished meanwhile
    }
    const ended = new ResponseBuilder(record, language);
    await lastValueFrom(this.segments.read(record.runId, record.afterSeq).pipe(tap((event) => ended.next(event))), { defaultValue: undefined });
    return ended.snapshot();
  }

  async remove(auth: AuthContext, id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    if (!(await this.responses.softDelete(auth.workspaceId, id))) throw notFound(id);
    return { id, object: 'response', deleted: true };
  }

  async inputItems(auth: AuthContext, id: string, query: InputItemsQuery): Promise<Record<string, unknown>> {
    const record = await this.find(auth, id);
    const ordered = query.order === 'asc' ? record.input : [...record.input].reverse();
    const start = query.after ? ordered.findIndex((item) => item.id === query.after) + 1 : 0;
    const limit = query.limit ?? 20;
    const data = ordered.slice(start, start + limit);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length };
  }

  private async find(auth: AuthContext, id: string): Promise<ResponseRecord> {
    const record = await this.responses.find(auth.workspaceId, id);
    if (!record) throw notFound(id);
    return record;
  }

  /** Every stream event of the response: its start, then each of its run's events mapped. */
  private eventsOf(record: ResponseRecord, language: Language): Observable<ResponseStreamEvent> {
    const builder = new ResponseBuilder(record, language);
    return concat(of(builder.start()), this.segments.read(record.runId, record.afterSeq).pipe(map((event) => builder.next(event)))).pipe(concatMap((events) => from(events)));
  }

  /** A builder fed with the events stored so far (without waiting for more). */
  private async built(record: ResponseRecord, language: Language): Promise<ResponseBuilder> {
    const builder = new ResponseBuilder(record, language);
    let after = record.afterSeq;
    while (!builder.state.end) {
      const page = await this.events.page(record.runId, after, PAGE);
      for (const event of page) {
        builder.next(event);
        if (builder.state.end) break;
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1].seq;
    }
    return builder;
  }

  /** A new conversation holding the input's earlier turns; its last user message starts a run. */
  private async startConversation(auth: AuthContext, dto: CreateResponseDto, input: ResponseInput, instructions: string | null, target: ModelTarget): Promise<Placed> {
    const last = lastUser(input.turns, 'input');
    if (input.approvals.length) throw invalid('input', 'an mcp_approval_response answers a response: give its previous_response_id');
    return this.poster.inNewConversation(auth, target, input.turns.slice(0, -1), this.message(dto, last, target), instructions ?? undefined, 'input');
  }

  /**
   * The previous response's conversation: the same run when it waits for what the input
   * answers (function outputs, an approval, a reply), else a new run for the input's user message.
   */
  private async continueFrom(auth: AuthContext, dto: CreateResponseDto, input: ResponseInput, instructions: string | null, target: ModelTarget): Promise<Placed> {
    const previousId = dto.previous_response_id!;
    const record = await this.responses.find(auth.workspaceId, previousId);
    if (!record) throw notFound(previousId, 'previous_response_id');
    const before = await this.built(record, 'en');
    const end: SegmentEnd | undefined = before.state.end;
    if (!end) throw new OpenAiError(409, `previous_response_id: response ${previousId} is still in progress`, 'previous_response_id', 'response_in_progress');
    const sameRun = { conversationId: record.conversationId, runId: record.runId, afterSeq: before.state.lastSeq };
    if (end.kind === 'client_tools') {
      const outputs = input.turns.filter((turn): turn is Extract<ChatTurn, { role: 'tool' }> => turn.role === 'tool');
      if (!outputs.length) throw invalid('input', `response ${previousId} waits for the outputs of its function calls: send function_call_output items`);
      await this.segments.settle(auth, record.runId);
      await this.runs.toolResults(auth, record.runId, { results: outputs.map((turn) => ({ callId: turn.toolCallId, output: turn.text })) });
      return sameRun;
    }
    if (end.kind === 'approval') {
      const answer = input.approvals.find((a) => a.approvalId === end.approval.approvalId);
      if (!answer) throw invalid('input', `response ${previousId} waits for approval ${end.approval.approvalId}: send an mcp_approval_response item for it`);
      await this.segments.settle(auth, record.runId);
      await this.runs.decide(auth, record.runId, answer.approvalId, { decision: answer.approve ? 'approve' : 'reject', ...(answer.reason && { reason: answer.reason }) });
      const { approvalId, callId, name, args } = end.approval;
      return { ...sameRun, decided: { approvalId, callId, name, args } };
    }
    const last = lastUser(input.turns, 'input');
    if (end.kind === 'question' && !end.plan) {
      await this.segments.settle(auth, record.runId);
      await this.runs.reply(auth, record.runId, { text: last.text });
      return sameRun;
    }
    for (const message of importedMessages(input.turns.slice(0, -1), 'input')) await this.conversations.append({ ...message, conversationId: record.conversationId, runId: null });
    return this.poster.inConversation(auth, record.conversationId, this.message(dto, last, target), instructions ?? undefined);
  }

  private message(dto: CreateResponseDto, last: Extract<ChatTurn, { role: 'user' }>, target: ModelTarget): PostMessageDto {
    return runMessage({
      target,
      last,
      tools: dto.tools,
      toolsParam: (index) => `tools[${index}].parameters`,
      toolChoice: dto.tool_choice,
      temperature: dto.temperature,
      topP: dto.top_p,
      maxTokens: dto.max_output_tokens,
      format: dto.text?.format,
      formatParam: 'text.format',
    });
  }
}

function lastUser(turns: readonly ChatTurn[], param: string): Extract<ChatTurn, { role: 'user' }> {
  const last = turns.at(-1);
  if (last?.role !== 'user') throw invalid(param, 'must end with a user message (or answer what the previous response waits for)');
  return last;
}

function requestOf(dto: CreateResponseDto, instructions: string | null): Omit<ResponseRequest, 'decided'> {
  return {
    instructions,
    tools: (dto.tools ?? []).map((tool) => ({ ...tool })),
    toolChoice: dto.tool_choice ?? 'auto',
    textFormat: dto.text?.format ? { ...dto.text.format } : { type: 'text' },
    temperature: dto.temperature ?? null,
    topP: dto.top_p ?? null,
    maxOutputTokens: dto.max_output_tokens ?? null,
    metadata: dto.metadata ?? {},
    background: dto.background === true,
    store: dto.store !== false,
    user: dto.user ?? null,
  };
}
