import { Injectable } from '@nestjs/common';
import { newId, toStorableText } from '../common';
import { Prisma, type Sql, SqlClient, type Deferred, UnitCondition, type UnitOfWork } from '../database';
import type { MessageRecord, NewMessage } from './conversation.records';
import { type MessageRole, readMessageParts, ROLE_OF } from './message-parts';

/** Messages are read and written with hand-written SQL: several statements of every run. */
const COLUMNS = Prisma.sql`id, conversation_id, run_id, seq, role::text AS role, content, parts, tool_call_id, created_at`;

interface MessageRow {
  id: string;
  conversation_id: string;
  run_id: string | null;
  seq: number;
  role: MessageRole;
  content: string;
  parts: unknown;
  tool_call_id: string | null;
  created_at: Date | string;
}

function toRecord(row: MessageRow): MessageRecord {
  return {
    id: row.id,
    conversationId: row.conversation_id,
    runId: row.run_id,
    seq: row.seq,
    role: row.role,
    content: row.content,
    parts: readMessageParts(row.role, row.parts),
    toolCallId: row.tool_call_id,
    createdAt: new Date(row.created_at),
  };
}

const toRecords = (rows: MessageRow[]) => rows.map(toRecord);

/** Every statement on the `messages` table; a message takes the conversation's next seq. */
@Injectable()
export class MessageRepository {
  constructor(private readonly sql: SqlClient) {}

  /** Appends on `db`: the root client, or the caller's transaction. Undefined: no such conversation. */
  async append(message: NewMessage, db: Sql = this.sql): Promise<MessageRecord | undefined> {
    const [row] = await db.$queryRaw<MessageRow[]>(appendStatement(message, UnitCondition.always));
    return row && toRecord(row);
  }

  /** Appends in the caller's unit, only if `onlyIf` holds then (undefined otherwise). */
  appendIn(unit: UnitOfWork, message: NewMessage, onlyIf = UnitCondition.always): Deferred<MessageRecord | undefined> {
    return unit.add(appendStatement(message, onlyIf), ([row]: MessageRow[]) => row && toRecord(row));
  }

  /** For a unit's later statements: the message was stored as number `seq` of its conversation. */
  storedAs(messageId: string, seq: number): UnitCondition {
    return new UnitCondition(Prisma.sql`EXISTS (SELECT 1 FROM messages WHERE id = ${messageId} AND seq = ${seq}::int)`);
  }

  /** Every message of a conversation in seq order (the model's context is built from it). */
  async history(conversationId: string): Promise<MessageRecord[]> {
    return toRecords(await this.sql.$queryRaw<MessageRow[]>(historyStatement(conversationId)));
  }

  historyIn(unit: UnitOfWork, conversationId: string): Deferred<MessageRecord[]> {
    return unit.add(historyStatement(conversationId), toRecords);
  }

  /**
   * Copies the messages of `from` up to seq `throughSeq` into `to` in the caller's unit, in order,
   * as seq 1, 2, …, with the given new ids (one per message copied) and no run: the copies
   * belong to no run of `to`. Only if `onlyIf` holds then.
   */
  copyIn(unit: UnitOfWork, copy: { from: string; to: string; throughSeq: number; ids: string[] }, onlyIf = UnitCondition.always): void {
    unit.add(
      Prisma.sql`
        INSERT INTO messages (id, conversation_id, run_id, seq, role, content, parts, tool_call_id, created_at)
        SELECT ids.id, ${copy.to}::text, NULL, ids.n::int, m.role, m.content, m.parts, m.tool_call_id, m.created_at
        FROM (SELECT role, content, parts, tool_call_id, created_at, row_number() OVER (ORDER BY seq) AS n
              FROM messages WHERE conversation_id = ${copy.from} AND seq <= ${copy.throughSeq}) m
        JOIN jsonb_array_elements_text(${JSON.stringify(copy.ids)}::jsonb) WITH ORDINALITY AS ids(id, n) ON ids.n = m.n
        WHERE ${onlyIf.sql}`,
      () => undefined,
    );
  }

  async page(conversationId: string, after: number, limit: number): Promise<MessageRecord[]> {
    return toRecords(await this.sql.$queryRaw<MessageRow[]>`
      SELECT ${COLUMNS} FROM messages WHERE conversation_id = ${conversationId} AND seq > ${after}
      ORDER BY seq ASC LIMIT ${limit}`);
  }
}

function historyStatement(conversationId: string): Prisma.Sql {
  return Prisma.sql`SELECT ${COLUMNS} FROM messages WHERE conversation_id = ${conversationId} ORDER BY seq ASC`;
}

/** One statement for the seq bump and the insert. */
function appendStatement(message: NewMessage, onlyIf: UnitCondition): Prisma.Sql {
  return Prisma.sql`
    WITH bumped AS (
      UPDATE conversations SET last_seq = last_seq + 1, updated_at = now()
      WHERE id = ${message.conversationId} AND ${onlyIf.sql} RETURNING last_seq
    )
    INSERT INTO messages (id, conversation_id, run_id, seq, role, content, parts, tool_call_id)
    SELECT ${message.id ?? newId('msg')}, ${message.conversationId}, ${message.runId ?? null}, bumped.last_seq,
           ${ROLE_OF[message.parts.kind]}::"MessageRole", ${toStorableText(message.content)}, ${JSON.stringify(message.parts)}::jsonb,
           ${message.toolCallId ?? null}
    FROM bumped
    RETURNING ${COLUMNS}`;
}
