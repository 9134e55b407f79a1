import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../../database';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected';

export interface ApprovalRecord {
  id: string;
  runId: string;
  toolCallId: string;
  tool: string;
  args: unknown;
  risk: string;
  status: ApprovalStatus;
  decidedBy: string | null;
  reason: string | null;
  createdAt: Date;
  decidedAt: Date | null;
}

interface ApprovalRow {
  id: string;
  run_id: string;
  tool_call_id: string;
  tool: string;
  args: unknown;
  risk: string;
  status: ApprovalStatus;
  decided_by: string | null;
  reason: string | null;
  created_at: Date | string;
  decided_at: Date | string | null;
}

const COLUMNS = Prisma.sql`id, run_id, tool_call_id, tool, args, risk, status::text AS status, decided_by, reason, created_at, decided_at`;

function toRecord(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    tool: row.tool,
    args: row.args,
    risk: row.risk,
    status: row.status,
    decidedBy: row.decided_by,
    reason: row.reason,
    createdAt: new Date(row.created_at),
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at),
  };
}

export type NewApproval = Pick<ApprovalRecord, 'id' | 'runId' | 'toolCallId' | 'tool' | 'args' | 'risk'>;

/** Every statement on the `approvals` table: a tool call waiting for a human's decision. */
@Injectable()
export class ApprovalRepository {
  constructor(private readonly sql: SqlClient) {}

  /** The workspace of an approval whose run's conversation is not deleted (the access check's lookup). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<{ workspace_id: string }[]>`
      SELECT c.workspace_id FROM approvals a JOIN runs r ON r.id = a.run_id JOIN conversations c ON c.id = r.conversation_id
      WHERE a.id = ${id} AND c.deleted_at IS NULL`;
    return row?.workspace_id;
  }

  /** The approvals asked for these calls of the run, by call id (one statement for a step's calls). */
  async forCalls(runId: string, toolCallIds: readonly string[]): Promise<Map<string, ApprovalRecord>> {
    if (!toolCallIds.length) return new Map();
    const rows = await this.sql.$queryRaw<ApprovalRow[]>`
      SELECT ${COLUMNS} FROM approvals WHERE run_id = ${runId} AND tool_call_id IN (${Prisma.join(toolCallIds)})`;
    return new Map(rows.map((row) => { const record = toRecord(row); return [record.toolCallId, record]; }));
  }

  async find(runId: string, approvalId: string): Promise<ApprovalRecord | undefined> {
    const [row] = await this.sql.$queryRaw<ApprovalRow[]>`
      SELECT ${COLUMNS} FROM approvals WHERE id = ${approvalId} AND run_id = ${runId}`;
    return row && toRecord(row);
  }

  async create(approval: NewApproval): Promise<ApprovalRecord> {
    const [row] = await this.sql.$queryRaw<ApprovalRow[]>`
      INSERT INTO approvals (id, run_id, tool_call_id, tool, args, risk)
      VALUES (${approval.id}, ${approval.runId}, ${approval.toolCallId}, ${approval.tool}, ${JSON.stringify(approval.args ?? null)}::jsonb, ${approval.risk})
      RETURNING ${COLUMNS}`;
    return toRecord(row);
  }

  /** Records the decision if the approval is still pending; false if it was decided already. */
  async decide(approvalId: string, decision: { status: 'approved' | 'rejected'; reason: string | null; decidedBy: string }): Promise<boolean> {
    const count = await this.sql.$executeRaw`
      UPDATE approvals SET status = ${decision.status}::"ApprovalStatus", reason = ${decision.reason},
        decided_by = ${decision.decidedBy}, decided_at = now()
      WHERE id = ${approvalId} AND status = 'pending'`;
    return count === 1;
  }

  /** Tool calls waiting for a human's decision, across every run (metrics). */
  async countPending(): Promise<number> {
    const [row] = await this.sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM approvals WHERE status = 'pending'`;
    return row?.n ?? 0;
  }

  /** Rejects whatever the run still waits for (it is being cancelled). */
  async rejectPending(runId: string, reason: string): Promise<void> {
    await this.sql.$executeRaw`
      UPDATE approvals SET status = 'rejected', reason = ${reason}, decided_at = now() WHERE run_id = ${runId} AND status = 'pending'`;
  }
}
