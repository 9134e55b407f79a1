import { BadGatewayException, ConflictException, Injectable } from '@nestjs/common';
import { ConversationService } from '../conversation';
import { SqlClient, UnitOfWork } from '../database';
import { ModelRouter } from '../model';
import type { AuthContext } from '../security';
import { toChatMessage } from './chat-messages';
import { Compactor } from './compactor';
import { olderHalf, promptLimit } from './memory-window';
import { SummaryRepository, type SummaryRecord } from './summary.repository';
import { TokenCounter } from './token-counter';
import type { WindowEntry } from './window-fit';
import { say } from '../common';

/** A summary as the REST API returns it. */
export interface SummaryView {
  id: string;
  conversationId: string;
  coversFromSeq: number;
  coversToSeq: number;
  content: string;
  createdAt: string;
}

export const toSummaryView = (summary: SummaryRecord): SummaryView => ({
  id: summary.id,
  conversationId: summary.conversationId,
  coversFromSeq: summary.coversFromSeq,
  coversToSeq: summary.coversToSeq,
  content: summary.content,
  createdAt: summary.createdAt.toISOString(),
});

/**
 * `POST /conversations/:id/compact`: summarises the older half of the exchanges not yet
 * summarised, with the conversation's model, as a run at COMPACT_AT would. Nothing is deleted.
 */
@Injectable()
export class CompactionService {
  constructor(
    private readonly sql: SqlClient,
    private readonly conversations: ConversationService,
    private readonly router: ModelRouter,
    private readonly counter: TokenCounter,
    private readonly summaries: SummaryRepository,
    private readonly compactor: Compactor,
  ) {}

  async compact(auth: AuthContext, conversationId: string): Promise<SummaryView> {
    // the conversation (404 unless the caller's), its workspace's settings and its messages: one round trip
    const read = new UnitOfWork();
    const found = this.conversations.findWithSettingsIn(read, auth, conversationId);
    const loaded = this.conversations.historyIn(read, conversationId);
    await read.run(this.sql);
    const { conversation, workspaceSettings } = found.value;
    const history = loaded.value;
    const { model, fallbacks } = await this.router.route(undefined, conversation.model, workspaceSettings, auth.workspaceId);
    const limits = await this.router.limits(model, auth.workspaceId);
    const previous = await this.summaries.latest(conversation.id);
    const from = previous?.coversToSeq ?? 0;
    const entries: WindowEntry[] = [];
    for (const record of history) {
      const message = record.seq > from ? toChatMessage(record) : undefined;
      if (message) entries.push({ message, seq: record.seq, tokens: 0 });
    }
    const older = olderHalf(entries);
    if (!older.length) throw nothingToCompact(conversation.id);
    let made: SummaryRecord | undefined;
    try {
      made = await this.compactor.extend({
        conversationId: conversation.id,
        workspaceId: auth.workspaceId,
        model,
        fallbacks,
        family: this.counter.family(limits.ref.modelId),
        limit: promptLimit(limits.contextWindow, limits.maxOutputTokens),
        history,
        previous,
        older: older.map((entry) => entry.seq),
      });
    } catch (error) {
      throw new BadGatewayException(say('memory.summary_failed', { reason: error instanceof Error ? error.message : String(error) }));
    }
    if (!made) throw nothingToCompact(conversation.id);
    return toSummaryView(made);
  }
}

const nothingToCompact = (id: string) =>
  new ConflictException(say('conversation.nothing_to_compact', { id }));
