import { Injectable, Logger } from '@nestjs/common';
import { AttachmentContents, type MessageRecord } from '../conversation';
import type { Deferred, UnitOfWork } from '../database';
import { ModelRouter } from '../model';
import type { ChatMessage, ModelRef, ToolSpec } from '../model';
import { attachmentsOf, type LoadedAttachments, toChatMessage } from './chat-messages';
import { Compactor } from './compactor';
import { type SummaryRecord, SummaryRepository } from './summary.repository';
import type { SummaryMeter } from './summarizer';
import { REPLY_PRIMING, TokenCounter, type TokenFamily } from './token-counter';
import { cutMiddle, exchanges, type FittedWindow, fitWindow, type WindowEntry } from './window-fit';

/** Kept free of the prompt for what the count cannot see (provider templates, estimate error). */
export const RESERVE_FRACTION = 0.1;
/** At this share of the prompt limit a run is warned (`token_warning`)… */
export const WARN_AT = 0.8;
/** …and at this share the older half of the history is summarised. */
export const COMPACT_AT = 0.9;
/** …down to this share at most (with the summary), so that the next turns fit without another. */
export const COMPACT_TO = 0.6;
/** Why an earlier image is not shown to a model that cannot see (the model reads it). */
const UNSEEN_IMAGE = 'the model answering now cannot see images';

/** The reply's room when the model's config sets no output limit: a quarter of the window, at most 4,096. */
const DEFAULT_MAX_OUTPUT = 4096;

/** The size of a message older than anything the window can hold: never counted (see `layout`). */
const UNCOUNTED = Number.POSITIVE_INFINITY;

export const SUMMARY_HEADING = 'Summary of the earlier conversation (the messages it covers are not shown):';

/** What a prompt may take: the context window less the reply's room and the reserve. */
export function promptLimit(contextWindow: number, maxOutputTokens?: number): number {
  const output = maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT, Math.floor(contextWindow / 4));
  const reserve = Math.ceil(contextWindow * RESERVE_FRACTION);
  // a configured output limit near the window itself must not leave the prompt nothing
  return Math.max(Math.floor(contextWindow / 4), contextWindow - output - reserve);
}

export interface WindowRequest {
  conversationId: string;
  workspaceId: string;
  /** the model the call goes to (its window and tokenizer apply), and its fallbacks (for a summary) */
  model: ModelRef;
  fallbacks: ModelRef[];
  /** every message of the conversation, in seq order */
  history: MessageRecord[];
  /** the messages this call may see, in the order it sees them (a run's view of `history`) */
  view: MessageRecord[];
  /** the system prompt: base or custom prompt, plan, retrieved context */
  system: string;
  tools?: ToolSpec[];
  /** the most tokens the history (summary and messages) may take, below what the model allows (an agent's memory window) */
  historyTokens?: number;
  /** who pays for a summary written for this window */
  meter?: SummaryMeter;
  /** the conversation's summary as read moments ago by the caller's own reads (`summaryIn`): not read again */
  summary?: LatestSummary;
}

/** The conversation's latest summary as `MemoryWindow.summaryIn` read it (`record`: none yet). */
export interface LatestSummary {
  readonly record: SummaryRecord | undefined;
}

export interface BuiltWindow {
  messages: ChatMessage[];
  /** the prompt's tokens: system prompt, tools, summary and history */
  estimatedTokens: number;
  /** `provider:modelId` */
  model: string;
  contextWindow: number;
  /** what the prompt may take (`promptLimit`) */
  limit: number;
  /** estimatedTokens / limit, in percent (rounded) */
  percentage: number;
  historyMessages: number;
  /** the window includes a summary of older messages */
  summarized: boolean;
  /** a summary was written for this window */
  compacted: boolean;
  /** the newest exchange was cut in the middle */
  truncated: boolean;
}

interface Layout {
  summaryBlock: string;
  window: FittedWindow;
  tokens: number;
}

/**
 * Memory's window: the system prompt, the conversation's summary and the newest messages that
 * fit the model's prompt limit. When older messages no longer fit, or the prompt reaches
 * COMPACT_AT, they are summarised (extending the previous summary) and the window is laid out
 * again; if that fails, the run goes on with the recent messages alone.
 */
@Injectable()
export class MemoryWindow {
  private readonly logger = new Logger('Memory');

  constructor(
    private readonly router: ModelRouter,
    private readonly counter: TokenCounter,
    private readonly summaries: SummaryRepository,
    private readonly compactor: Compactor,
    private readonly attachments: AttachmentContents,
  ) {}

  /**
   * What `build` reads of the conversation's summaries, read by the caller's unit of work: a run's
   * first call reads it with the conversation and its messages in one round trip, then passes it
   * as `WindowRequest.summary`.
   */
  summaryIn(unit: UnitOfWork, conversationId: string): Deferred<LatestSummary> {
    return this.summaries.latestIn(unit, conversationId).map((record) => ({ record }));
  }

  async build(request: WindowRequest): Promise<BuiltWindow> {
    const limits = await this.router.limits(request.model, request.workspaceId);
    const limit = promptLimit(limits.contextWindow, limits.maxOutputTokens);
    const family = this.counter.family(limits.ref.modelId);
    const fixed = this.counter.message({ role: 'system', content: request.system }, family) + this.counter.tools(request.tools, family) + REPLY_PRIMING;
    const room = Math.min(limit - fixed, request.historyTokens ?? Infinity);

    // a summary covers older exchanges, so a conversation's first message has none: the query
    // (on the first token's path) is skipped for it, as it is when the caller read it already
    let summary = request.summary ? request.summary.record : request.view.length > 1 ? await this.summaries.latest(request.conversationId) : undefined;
    const loaded = await this.loadAttachments(request, summary);
    let layout = this.layout(request.view, summary, family, room, loaded);
    let compacted = false;
    const dropped = layout.window.dropped;
    if (dropped.length > 0 || fixed + layout.tokens >= COMPACT_AT * limit) {
      // the summary takes at most a quarter of the room (layout): the rest must fit beside it
      const target = COMPACT_TO * limit - fixed - Math.floor(room / 4);
      const older = dropped.length ? dropped : olderForHeadroom(layout.window.kept, target);
      if (older.length) {
        try {
          const made = await this.compactor.extend({
            conversationId: request.conversationId,
            workspaceId: request.workspaceId,
            model: request.model,
            fallbacks: request.fallbacks,
            family,
            limit,
            history: request.history,
            previous: summary,
            older: older.map((entry) => entry.seq),
            ...(request.meter && { meter: request.meter }),
          });
          if (made) {
            summary = made;
            compacted = true;
            layout = this.layout(request.view, summary, family, room, loaded);
          }
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          this.logger.warn(`Could not summarise conversation ${request.conversationId}; going on with the recent messages: ${reason}`);
        }
      }
    }

    const system = layout.summaryBlock ? `${request.system}\n\n${layout.summaryBlock}` : request.system;
    const estimatedTokens = fixed + layout.tokens;
    return {
      messages: [{ role: 'system', content: system }, ...layout.window.kept.map((entry) => entry.message)],
      estimatedTokens,
      model: `${limits.ref.provider}:${limits.ref.modelId}`,
      contextWindow: limits.contextWindow,
      limit,
      percentage: Math.round((estimatedTokens / limit) * 100),
      historyMessages: layout.window.kept.length,
      summarized: layout.summaryBlock !== '',
      compacted,
      truncated: layout.window.truncated,
    };
  }

  /**
   * The contents of the files attached to the messages after the summary (a summary only moves
   * forward). For a model that cannot see, earlier images are named instead of sent: a
   * conversation may change to such a model after a picture (another agent, a model override),
   * and the provider would refuse the whole request.
   */
  private async loadAttachments(request: WindowRequest, summary: SummaryRecord | undefined): Promise<LoadedAttachments> {
    const from = summary?.coversToSeq ?? 0;
    const refs = attachmentsOf(request.view.filter((record) => record.seq > from));
    if (!refs.length) return new Map();
    const loaded = await this.attachments.load(request.workspaceId, refs);
    if (![...loaded.values()].some((content) => content.kind === 'image')) return loaded;
    if ((await this.router.describe(request.model, request.workspaceId)).vision) return loaded;
    return new Map([...loaded].map(([id, content]) => [id, content.kind === 'image' ? { kind: 'unreadable', reason: UNSEEN_IMAGE } : content]));
  }

  /** The summary (at most a quarter of `room`) and the newest messages after it that fit. */
  private layout(view: MessageRecord[], summary: SummaryRecord | undefined, family: TokenFamily, room: number, loaded: LoadedAttachments): Layout {
    const from = summary?.coversToSeq ?? 0;
    let summaryBlock = summary ? `${SUMMARY_HEADING}\n${summary.content}` : '';
    let summaryTokens = this.counter.text(summaryBlock, family);
    const most = Math.floor(room / 4);
    if (summaryTokens > most) {
      summaryBlock = cutMiddle(summaryBlock, Math.floor((summaryBlock.length * most) / summaryTokens));
      summaryTokens = this.counter.text(summaryBlock, family);
    }
    // newest first: once the newer exchanges alone overflow the room, no older message can be in
    // the (contiguous) window, so those are left uncounted; a long conversation is not tokenised
    // further back than its window reaches
    const budget = room - summaryTokens;
    const entries: WindowEntry[] = [];
    let total = 0;
    let full = false;
    for (let i = view.length - 1; i >= 0; i--) {
      const record = view[i];
      const message = record.seq > from ? toChatMessage(record, loaded) : undefined;
      if (!message) continue;
      const tokens = full ? UNCOUNTED : this.counter.message(message, family, record.id);
      entries.push({ message, seq: record.seq, tokens });
      total += tokens;
      // an exchange starts at its first message that is not a tool result: it is counted whole
      if (total > budget && message.role !== 'tool') full = true;
    }
    entries.reverse();
    const window = fitWindow(entries, budget, (message) => this.counter.message(message, family));
    return { summaryBlock, window, tokens: summaryTokens + window.tokens };
  }
}

/** The older half of a window's exchanges (never the newest one): what a compaction on request summarises. */
export function olderHalf(kept: WindowEntry[]): WindowEntry[] {
  const groups = exchanges(kept);
  return groups.slice(0, Math.floor(groups.length / 2)).flat();
}

/**
 * What a window that reached COMPACT_AT summarises: its older half, and more of its oldest
 * exchanges (never the newest) until the rest takes at most `target` tokens. Halving alone can
 * leave a window above COMPACT_AT (a long exchange among the newer ones), and then every turn
 * after it paid for another summary.
 */
export function olderForHeadroom(kept: WindowEntry[], target: number): WindowEntry[] {
  const groups = exchanges(kept);
  const half = Math.floor(groups.length / 2);
  let rest = kept.reduce((total, entry) => total + entry.tokens, 0);
  let cut = 0;
  while (cut < groups.length - 1 && (cut < half || rest > target)) {
    rest -= groups[cut].reduce((total, entry) => total + entry.tokens, 0);
    cut++;
  }
  return groups.slice(0, cut).flat();
}
