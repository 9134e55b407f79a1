import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common';
import { SqlClient } from '../../database';

/** What a response was asked with, echoed in the response object. */
export interface ResponseRequest {
  instructions: string | null;
  tools: Record<string, unknown>[];
  toolChoice: unknown;
  textFormat: Record<string, unknown>;
  temperature: number | null;
  topP: number | null;
  maxOutputTokens: number | null;
  metadata: Record<string, unknown>;
  background: boolean;
  store: boolean;
  user: string | null;
  /** the tool call this response's input approved or rejected: its result is this response's `mcp_call` */
  decided: { approvalId: string; callId: string; name: string; args: unknown } | null;
}

/** A response of the OpenAI-compatible API: the events of its run after `afterSeq`. */
export interface ResponseRecord {
  id: string;
  workspaceId: string;
  conversationId: string;
  runId: string;
  afterSeq: number;
  previousResponseId: string | null;
  model: string;
  request: ResponseRequest;
  input: Record<string, unknown>[];
  stored: boolean;
  createdAt: Date;
}

interface ResponseRow {
  id: string;
  workspace_id: string;
  conversation_id: string;
  run_id: string;
  after_seq: number;
  previous_response_id: string | null;
  model: string;
  request: unknown;
  input: unknown;
  stored: boolean;
  created_at: Date | string;
}

const json = (value: unknown) => JSON.stringify(value);

const toRecord = (row: ResponseRow): ResponseRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  conversationId: row.conversation_id,
  runId: row.run_id,
  afterSeq: row.after_seq,
  previousResponseId: row.previous_response_id,
  model: row.model,
  request: readRequest(row.request),
  input: Array.isArray(row.input) ? row.input.filter(isRecord) : [],
  stored: row.stored,
  createdAt: new Date(row.created_at),
});

/** The JSON column read, not trusted: known keys with values of the right type. */
function readRequest(value: unknown): ResponseRequest {
  const r = isRecord(value) ? value : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    instructions: typeof r.instructions === 'string' ? r.instructions : null,
    tools: Array.isArray(r.tools) ? r.tools.filter(isRecord) : [],
    toolChoice: r.toolChoice ?? 'auto',
    textFormat: isRecord(r.textFormat) ? r.textFormat : { type: 'text' },
    temperature: num(r.temperature),
    topP: num(r.topP),
    maxOutputTokens: num(r.maxOutputTokens),
    metadata: isRecord(r.metadata) ? r.metadata : {},
    background: r.background === true,
    store: r.store !== false,
    user: typeof r.user === 'string' ? r.user : null,
    decided: readDecided(r.decided),
  };
}

function readDecided(value: unknown): ResponseRequest['decided'] {
  if (!isRecord(value) || typeof value.approvalId !== 'string' || typeof value.callId !== 'string' || typeof value.name !== 'string') return null;
  return { approvalId: value.approvalId, callId: value.callId, name: value.name, args: value.args };
}

/** Every statement on `openai_responses`. A deleted response is as unknown as one never made. */
@Injectable()
export class ResponseRepository {
  constructor(private readonly sql: SqlClient) {}

  async insert(record: Omit<ResponseRecord, 'createdAt'>): Promise<ResponseRecord> {
    const [row] = await this.sql.$queryRaw<ResponseRow[]>`
      INSERT INTO openai_responses (id, workspace_id, conversation_id, run_id, after_seq, previous_response_id, model, request, input, stored)
      VALUES (${record.id}, ${record.workspaceId}, ${record.conversationId}, ${record.runId}, ${record.afterSeq}::int, ${record.previousResponseId},
              ${record.model}, ${json(record.request)}::jsonb, ${json(record.input)}::jsonb, ${record.stored})
      RETURNING *`;
    return toRecord(row);
  }

  /** A stored response of the workspace that was not deleted. */
  async find(workspaceId: string, id: string): Promise<ResponseRecord | undefined> {
    const [row] = await this.sql.$queryRaw<ResponseRow[]>`
      SELECT * FROM openai_responses WHERE id = ${id} AND workspace_id = ${workspaceId} AND stored AND deleted_at IS NULL`;
    return row && toRecord(row);
  }

  /** Whether it was there to delete. */
  async softDelete(workspaceId: string, id: string): Promise<boolean> {
    const count = await this.sql.$executeRaw`
      UPDATE openai_responses SET deleted_at = now() WHERE id = ${id} AND workspace_id = ${workspaceId} AND stored AND deleted_at IS NULL`;
    return count > 0;
  }
}
