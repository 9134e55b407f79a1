import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient, type Sql } from '../database';
import { type AgentChoice, type AgentConfig, type AgentRecord, readAgentConfig } from './agent.records';

interface AgentRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  config: unknown;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = Prisma.sql`id, workspace_id, name, description, config, version, created_at, updated_at`;

const toRecord = (row: AgentRow): AgentRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  description: row.description,
  config: readAgentConfig(row.config),
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export interface AgentWrite {
  name: string;
  description: string;
  config: AgentConfig;
}

/** Every statement on the `agents` table. */
@Injectable()
export class AgentRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * For a statement on `conversations c`: the chosen agent of the conversation's workspace
   * joined as `a` (no row for the default agent or an unknown id), its columns as
   * PROFILE_COLUMNS name them. So a run reads its agent in the same round trip as its
   * conversation and settings.
   */
  static profileJoin(choice: AgentChoice): Prisma.Sql {
    const id = choice.kind === 'named' ? Prisma.sql`${choice.id}::text` : Prisma.sql`c.agent_id`;
    return Prisma.sql`LEFT JOIN agents a ON a.id = ${id} AND a.workspace_id = c.workspace_id`;
  }

  static readonly PROFILE_COLUMNS = Prisma.sql`a.id AS profile_id, a.version AS profile_version, a.config AS profile_config`;

  /** The workspace's agents by name. */
  async list(workspaceId: string): Promise<AgentRecord[]> {
    const rows = await this.sql.$queryRaw<AgentRow[]>`SELECT ${COLUMNS} FROM agents WHERE workspace_id = ${workspaceId} ORDER BY name, id`;
    return rows.map(toRecord);
  }

  async find(workspaceId: string, id: string, tx: Sql = this.sql): Promise<AgentRecord | undefined> {
    const rows = await tx.$queryRaw<AgentRow[]>`SELECT ${COLUMNS} FROM agents WHERE id = ${id} AND workspace_id = ${workspaceId}`;
    return rows[0] && toRecord(rows[0]);
  }

  /** The agent whose id or name is `key` (the id wins when one agent's name is another's id). */
  async findByKey(workspaceId: string, key: string): Promise<AgentRecord | undefined> {
    const rows = await this.sql.$queryRaw<AgentRow[]>`
      SELECT ${COLUMNS} FROM agents WHERE workspace_id = ${workspaceId} AND (id = ${key} OR name = ${key})
      ORDER BY (id = ${key}) DESC LIMIT 1`;
    return rows[0] && toRecord(rows[0]);
  }

  async findByName(tx: Sql, workspaceId: string, name: string): Promise<AgentRecord | undefined> {
    const rows = await tx.$queryRaw<AgentRow[]>`SELECT ${COLUMNS} FROM agents WHERE workspace_id = ${workspaceId} AND name = ${name}`;
    return rows[0] && toRecord(rows[0]);
  }

  /** The agent, locked until `tx` ends. */
  async lock(tx: Sql, workspaceId: string, id: string): Promise<AgentRecord | undefined> {
    const rows = await tx.$queryRaw<AgentRow[]>`SELECT ${COLUMNS} FROM agents WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`;
    return rows[0] && toRecord(rows[0]);
  }

  async insert(tx: Sql, id: string, workspaceId: string, agent: AgentWrite): Promise<AgentRecord> {
    const rows = await tx.$queryRaw<AgentRow[]>`
      INSERT INTO agents (id, workspace_id, name, description, config, updated_at)
      VALUES (${id}, ${workspaceId}, ${agent.name}, ${agent.description}, ${JSON.stringify(agent.config)}::jsonb, now())
      RETURNING ${COLUMNS}`;
    return toRecord(rows[0]);
  }

  /** Writes a new version of the agent. */
  async update(tx: Sql, id: string, agent: AgentWrite): Promise<AgentRecord> {
    const rows = await tx.$queryRaw<AgentRow[]>`
      UPDATE agents SET name = ${agent.name}, description = ${agent.description}, config = ${JSON.stringify(agent.config)}::jsonb,
        version = version + 1, updated_at = now()
      WHERE id = ${id} RETURNING ${COLUMNS}`;
    return toRecord(rows[0]);
  }

  async delete(tx: Sql, id: string): Promise<void> {
    await tx.$executeRaw`DELETE FROM agents WHERE id = ${id}`;
  }
}
