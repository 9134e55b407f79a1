import { Injectable } from '@nestjs/common';
import { newId, toStorableText } from '../common';
import { Prisma, SqlClient, type Deferred, type UnitOfWork } from '../database';

/** A stored summary of the messages of a conversation with seq in [coversFromSeq, coversToSeq]. */
export interface SummaryRecord {
  id: string;
  conversationId: string;
  coversFromSeq: number;
  coversToSeq: number;
  content: string;
  /** `provider:modelId` of the model that wrote it */
  model: string;
  tokens: number;
  createdAt: Date;
}

export type NewSummary = Omit<SummaryRecord, 'id' | 'createdAt'>;

interface SummaryRow {
  id: string;
  conversation_id: string;
  covers_from_seq: number;
  covers_to_seq: number;
  content: string;
  model: string;
  tokens: number;
  created_at: Date | string;
}

const toRecord = (row: SummaryRow): SummaryRecord => ({
  id: row.id,
  conversationId: row.conversation_id,
  coversFromSeq: row.covers_from_seq,
  coversToSeq: row.covers_to_seq,
  content: row.content,
  model: row.model,
  tokens: row.tokens,
  createdAt: new Date(row.created_at),
});

/** The `conversation_summaries` table: summaries are only added, never changed (older ones stay as history). */
@Injectable()
export class SummaryRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The summary that reaches furthest; the newest of those if two runs wrote one each. */
  async latest(conversationId: string): Promise<SummaryRecord | undefined> {
    const [row] = await this.sql.$queryRaw<SummaryRow[]>(latestOf(conversationId));
    return row && toRecord(row);
  }

  /** `latest`, read by the caller's unit of work (with the other reads a run's first call needs). */
  latestIn(unit: UnitOfWork, conversationId: string): Deferred<SummaryRecord | undefined> {
    return unit.add<SummaryRow, SummaryRecord | undefined>(latestOf(conversationId), ([row]) => row && toRecord(row));
  }

  async insert(summary: NewSummary): Promise<SummaryRecord> {
    const [row] = await this.sql.$queryRaw<SummaryRow[]>`
      INSERT INTO conversation_summaries (id, conversation_id, covers_from_seq, covers_to_seq, content, model, tokens)
      VALUES (${newId('sum')}, ${summary.conversationId}, ${summary.coversFromSeq}, ${summary.coversToSeq},
              ${toStorableText(summary.content)}, ${summary.model}, ${summary.tokens})
      RETURNING *`;
    return toRecord(row);
  }
}

const latestOf = (conversationId: string) => Prisma.sql`
  SELECT * FROM conversation_summaries WHERE conversation_id = ${conversationId}
  ORDER BY covers_to_seq DESC, created_at DESC LIMIT 1`;
