import { Injectable, NotFoundException } from '@nestjs/common';
import { concat, defer, from, lastValueFrom, mergeMap, type Observable, startWith, tap } from 'rxjs';
import { type Language, OpenAiError } from '../../common';
import { ConversationMoved, RunService } from '../../runtime';
import type { AuthContext } from '../../security';
import { ModelDirectory } from '../model-directory';
import { runMessage } from '../request-mapping';
import { RunPoster } from '../run-poster';
import { RunSegments, SegmentState } from '../run-segment';
import { type ChatCompletion, ChatChunks, type CompletionMeta, completionOf } from './chat-completion';
import type { ChatCompletionRequestDto } from './chat.dto';
import { type ChatTurn, fingerprint, readChatTurns, splitTurns } from './chat-turns';
import { ChatThreadRepository } from './thread.repository';

/** A request's run, started or continued, and where its answer starts in the run's events. */
interface Started {
  conversationId: string;
  runId: string;
  afterSeq: number;
  /** the request's turns without its system messages: the answer follows them */
  dialogue: ChatTurn[];
}

const invalid = (param: string, message: string) => new OpenAiError(400, `${param}: ${message}`, param, 'invalid_value');
const seconds = () => Math.floor(Date.now() / 1000);

/**
 * `POST /v1/chat/completions` over Helix's runs. A request's messages either continue a
 * conversation Helix holds — the list up to the last assistant message is one Helix answered
 * (its fingerprint, chat-turns.ts) and the conversation has not gone on since (checked by the
 * run's own first read: NewRunInput.expectLastSeq) — or start a new conversation holding the
 * earlier messages, titled by the first one. The last user message starts a run of the agent
 * that `model` names; tool messages answer the client-side tool calls of the run they continue;
 * a user message answers its `ask_user` question. The answer is the run's events up to where it
 * ends or waits (run-segment.ts).
 */
@Injectable()
export class ChatCompletionService {
  constructor(
    private readonly directory: ModelDirectory,
    private readonly runs: RunService,
    private readonly segments: RunSegments,
    private readonly threads: ChatThreadRepository,
    private readonly poster: RunPoster,
  ) {}

  async complete(auth: AuthContext, dto: ChatCompletionRequestDto, language: Language): Promise<{ completion: ChatCompletion; conversationId: string }> {
    const started = await this.start(auth, dto);
    const state = new SegmentState(started.afterSeq);
    await lastValueFrom(this.segments.read(started.runId, started.afterSeq).pipe(tap((event) => state.accept(event))), { defaultValue: undefined });
    const completion = completionOf(this.meta(dto, started, language), state);
    await this.remember(auth, started, completion.choices[0].message.content ?? '', completion.choices[0].message.tool_calls ?? [], state);
    return { completion, conversationId: started.conversationId };
  }

  /** The frames of a streamed completion (its first, the assistant's role, at once), and the conversation it is in. */
  async stream(auth: AuthContext, dto: ChatCompletionRequestDto, language: Language): Promise<{ frames: Observable<string>; conversationId: string; runId: string }> {
    const started = await this.start(auth, dto);
    const chunks = new ChatChunks(this.meta(dto, started, language), started.afterSeq, dto.stream_options?.include_usage === true);
    const frames = concat(
      this.segments.read(started.runId, started.afterSeq).pipe(mergeMap((event) => chunks.next(event))),
      // the conversation is remembered before `[DONE]`: a client's next request finds it
      defer(async () => {
        const closing = chunks.close();
        const calls = chunks.state.end?.kind === 'client_tools' ? chunks.state.end.calls : [];
        await this.remember(auth, started, chunks.content, calls.map((c) => ({ id: c.callId, function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) } })), chunks.state);
        return closing;
      }).pipe(mergeMap((closing) => from(closing))),
    ).pipe(startWith(chunks.opening()));
    return { frames, conversationId: started.conversationId, runId: started.runId };
  }

  private meta(dto: ChatCompletionRequestDto, started: Started, language: Language): CompletionMeta {
    return { id: `chatcmpl-${started.runId}-${started.afterSeq}`, created: seconds(), model: dto.model, runId: started.runId, conversationId: started.conversationId, language };
  }

  private async start(auth: AuthContext, dto: ChatCompletionRequestDto): Promise<Started> {
    const target = await this.directory.resolve(auth, dto.model);
    const { instructions, prefix, rest } = splitTurns(readChatTurns(dto.messages));
    const dialogue = [...prefix, ...rest];
    const thread = prefix.length ? await this.threads.find(auth.workspaceId, fingerprint(prefix)) : undefined;
    if (thread && rest.length && rest.every((turn) => turn.role === 'tool') && thread.waiting === 'client_tools') {
      const results = rest.map((turn) => (turn.role === 'tool' ? { callId: turn.toolCallId, output: turn.text } : undefined)).filter((r) => r !== undefined);
      await this.runs.toolResults(auth, thread.runId, { results });
      return { conversationId: thread.conversationId, runId: thread.runId, afterSeq: thread.afterSeq, dialogue };
    }
    const last = rest.at(-1);
    if (last?.role !== 'user') throw invalid('messages', 'the last message must be a user message, or tool messages answering the tool calls of the answer before them');
    if (thread && rest.length === 1 && thread.waiting === 'question') {
      await this.runs.reply(auth, thread.runId, { text: last.text });
      return { conversationId: thread.conversationId, runId: thread.runId, afterSeq: thread.afterSeq, dialogue };
    }
    const message = runMessage({
      target,
      last,
      tools: dto.tools?.map((tool) => tool.function),
      toolsParam: (index) => `tools[${index}].function.parameters`,
      toolChoice: dto.tool_choice,
      temperature: dto.temperature,
      topP: dto.top_p,
      maxTokens: dto.max_completion_tokens ?? dto.max_tokens,
      seed: dto.seed,
      stop: dto.stop,
      format: dto.response_format?.type === 'json_schema' ? { type: 'json_schema', ...dto.response_format.json_schema } : dto.response_format,
      formatParam: dto.response_format?.type === 'json_schema' ? 'response_format.json_schema' : 'response_format',
    });
    if (thread && rest.length === 1) {
      try {
        // the check that nothing was added since the answer is the run's own first read
        return { ...(await this.poster.inConversation(auth, thread.conversationId, message, instructions, thread.messageSeq)), dialogue };
      } catch (error) {
        // gone on since (a regenerated or edited answer), or deleted: a new conversation holds the client's history
        if (!(error instanceof ConversationMoved) && !(error instanceof NotFoundException)) throw error;
      }
    }
    return { ...(await this.poster.inNewConversation(auth, target, dialogue.slice(0, -1), message, instructions, 'messages')), dialogue };
  }

  /** Remembers the conversation state the client now holds: its messages and this answer. */
  private async remember(
    auth: AuthContext,
    started: Started,
    content: string,
    calls: { id: string; function: { name: string; arguments: string } }[],
    state: SegmentState,
  ): Promise<void> {
    const end = state.end;
    if (!end) return; // the stream was cut before the answer ended: nothing to continue from
    const waiting = end.kind === 'done' ? undefined : end.kind;
    if (waiting) await this.segments.settle(auth, started.runId);
    const answer: ChatTurn = { role: 'assistant', text: content, toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) };
    await this.threads.save(auth.workspaceId, fingerprint([...started.dialogue, answer]), {
      conversationId: started.conversationId,
      runId: started.runId,
      afterSeq: state.lastSeq,
      ...(waiting && { waiting }),
    });
  }
}
