import { Injectable } from '@nestjs/common';
import type { MessageRecord } from '../conversation';
import type { ChatMessage, ModelRef } from '../model';
import { toChatMessage } from './chat-messages';
import { Summarizer, type SummaryMeter } from './summarizer';
import { type SummaryRecord, SummaryRepository } from './summary.repository';
import { TokenCounter, type TokenFamily } from './token-counter';

export interface ExtendRequest {
  conversationId: string;
  workspaceId: string;
  model: ModelRef;
  fallbacks: ModelRef[];
  family: TokenFamily;
  /** the prompt limit of the model (the summary is sized from it) */
  limit: number;
  /** every message of the conversation, in seq order */
  history: MessageRecord[];
  previous?: SummaryRecord;
  /** the seqs of the messages to summarise: the older part of the caller's window */
  older: number[];
  /** who pays for the summary's calls */
  meter?: SummaryMeter;
}

/** A summary's length limit: a quarter of the prompt limit, between 64 and 1,024 tokens. */
export const summaryTokenLimit = (limit: number): number => Math.max(64, Math.min(1024, Math.floor(limit / 4)));

const isDefined = <T>(value: T | undefined): value is T => value !== undefined;

/**
 * Writes summaries. A summary covers every message with seq in its range, so the range ends
 * before the first message (sent to models) that is not in the older part: in a run's view a
 * queued run's question sits after the answer before it although its seq is lower, and a later
 * run's messages are not in the view at all; neither is summarised with the part before it.
 * One summary per conversation at a time on this instance; a caller arriving meanwhile gets
 * that summary.
 */
@Injectable()
export class Compactor {
  private readonly inFlight = new Map<string, Promise<SummaryRecord | undefined>>();

  constructor(
    private readonly summarizer: Summarizer,
    private readonly summaries: SummaryRepository,
    private readonly counter: TokenCounter,
  ) {}

  /** The previous summary extended over `older` (or less of it, see above); undefined when nothing new is covered. */
  extend(request: ExtendRequest): Promise<SummaryRecord | undefined> {
    const running = this.inFlight.get(request.conversationId);
    if (running) return running;
    const work = this.write(request).finally(() => this.inFlight.delete(request.conversationId));
    this.inFlight.set(request.conversationId, work);
    return work;
  }

  private async write(request: ExtendRequest): Promise<SummaryRecord | undefined> {
    const from = request.previous?.coversToSeq ?? 0;
    const older = new Set(request.older);
    let to = Math.max(from, ...request.older);
    for (const message of request.history) {
      // partial answers are never sent to a model: they neither need a summary nor stop one
      if (message.seq > from && message.seq <= to && !older.has(message.seq) && toChatMessage(message)) {
        to = message.seq - 1;
        break;
      }
    }
    const covered = request.history.filter((message) => message.seq > from && message.seq <= to);
    const messages: ChatMessage[] = covered.map((message) => toChatMessage(message)).filter(isDefined);
    if (!messages.length) return undefined;
    const content = await this.summarizer.summarize({
      model: request.model,
      fallbacks: request.fallbacks,
      workspaceId: request.workspaceId,
      family: request.family,
      previous: request.previous?.content,
      messages,
      inputBudget: request.limit,
      maxTokens: summaryTokenLimit(request.limit),
      ...(request.meter && { meter: request.meter }),
    });
    return this.summaries.insert({
      conversationId: request.conversationId,
      coversFromSeq: request.previous?.coversFromSeq ?? covered[0].seq,
      coversToSeq: to,
      content,
      model: `${request.model.provider}:${request.model.modelId}`,
      tokens: this.counter.text(content, request.family),
    });
  }
}
