import { Injectable } from '@nestjs/common';
import { Prisma, SqlClient } from '../database';
import { isLanguage, type Language } from './lexical';
import type { IngestionSettings, KnowledgeBaseRecord } from './rag.records';

interface KnowledgeBaseRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  language: string;
  graph: boolean;
  document_count: number;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = Prisma.sql`kb.id, kb.workspace_id, kb.name, kb.description, kb.language, kb.graph, kb.created_at, kb.updated_at,
  (SELECT count(*)::int FROM documents d WHERE d.knowledge_base_id = kb.id) AS document_count`;

/** A knowledge base's `language` and `graph` columns, as ingestion reads them. */
export interface IngestionSettingsRow {
  language: string;
  graph: boolean;
}

export function toIngestionSettings(row: IngestionSettingsRow): IngestionSettings {
  return { language: isLanguage(row.language) ? row.language : 'simple', graph: row.graph === true };
}

function toRecord(row: KnowledgeBaseRow): KnowledgeBaseRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    description: row.description,
    // a value written by a later version reads as the stock configuration
    language: isLanguage(row.language) ? row.language : 'simple',
    graph: row.graph === true,
    documentCount: row.document_count,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Every statement on `knowledge_bases`. */
@Injectable()
export class KnowledgeBaseRepository {
  constructor(private readonly sql: SqlClient) {}

  /** Throws a unique violation when the workspace already has a knowledge base of that name. */
  async create(kb: { id: string; workspaceId: string; name: string; description: string | null; language: Language; graph: boolean }): Promise<KnowledgeBaseRecord> {
    await this.sql.$executeRaw`
      INSERT INTO knowledge_bases (id, workspace_id, name, description, language, graph, updated_at)
      VALUES (${kb.id}, ${kb.workspaceId}, ${kb.name}, ${kb.description}, ${kb.language}, ${kb.graph}, now())`;
    return (await this.find(kb.workspaceId, kb.id))!;
  }

  /**
   * Changes the fields given; undefined when it is not the workspace's. `graph` turned off
   * removes the graph extracted so far (entities take their mentions and relations along).
   */
  async update(workspaceId: string, id: string, changes: { description?: string | null; graph?: boolean }): Promise<KnowledgeBaseRecord | undefined> {
    const sets = [
      ...(changes.description !== undefined ? [Prisma.sql`description = ${changes.description}`] : []),
      ...(changes.graph !== undefined ? [Prisma.sql`graph = ${changes.graph}`] : []),
      Prisma.sql`updated_at = now()`,
    ];
    const [updated] = await this.sql.$atomic([
      Prisma.sql`UPDATE knowledge_bases SET ${Prisma.join(sets)} WHERE id = ${id} AND workspace_id = ${workspaceId} RETURNING id`,
      ...(changes.graph === false
        ? [Prisma.sql`DELETE FROM kb_entities WHERE knowledge_base_id = ${id} AND EXISTS (SELECT 1 FROM knowledge_bases WHERE id = ${id} AND workspace_id = ${workspaceId})`]
        : []),
    ]);
    return updated.length ? this.find(workspaceId, id) : undefined;
  }

  /** Which of `ids` are knowledge bases of the workspace with `graph` on. */
  async withGraph(workspaceId: string, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows = await this.sql.$queryRaw<{ id: string }[]>`
      SELECT id FROM knowledge_bases WHERE workspace_id = ${workspaceId} AND graph AND id IN (${Prisma.join(ids)}) ORDER BY id`;
    return rows.map((row) => row.id);
  }

  /** Whether the knowledge base has `graph` on; false when it is gone. */
  async graphOf(id: string): Promise<boolean> {
    const [row] = await this.sql.$queryRaw<{ graph: boolean }[]>`SELECT graph FROM knowledge_bases WHERE id = ${id}`;
    return row?.graph === true;
  }

  async list(workspaceId: string): Promise<KnowledgeBaseRecord[]> {
    const rows = await this.sql.$queryRaw<KnowledgeBaseRow[]>`
      SELECT ${COLUMNS} FROM knowledge_bases kb WHERE kb.workspace_id = ${workspaceId} ORDER BY kb.created_at, kb.id`;
    return rows.map(toRecord);
  }

  async find(workspaceId: string, id: string): Promise<KnowledgeBaseRecord | undefined> {
    const [row] = await this.sql.$queryRaw<KnowledgeBaseRow[]>`
      SELECT ${COLUMNS} FROM knowledge_bases kb WHERE kb.id = ${id} AND kb.workspace_id = ${workspaceId}`;
    return row && toRecord(row);
  }

  /** The workspace owning the knowledge base (the access check's lookup). */
  async workspaceOf(id: string): Promise<string | undefined> {
    const [row] = await this.sql.$queryRaw<{ workspace_id: string }[]>`SELECT workspace_id FROM knowledge_bases WHERE id = ${id}`;
    return row?.workspace_id;
  }

  /** The language of each of `ids` that is a knowledge base of the workspace. */
  async languages(workspaceId: string, ids: string[]): Promise<Map<string, Language>> {
    if (!ids.length) return new Map();
    const rows = await this.sql.$queryRaw<{ id: string; language: string }[]>`
      SELECT id, language FROM knowledge_bases WHERE workspace_id = ${workspaceId} AND id IN (${Prisma.join(ids)})`;
    return new Map(rows.map((row) => [row.id, isLanguage(row.language) ? row.language : 'simple']));
  }

  /** The language of a knowledge base; undefined when it is gone. */
  async languageOf(id: string): Promise<Language | undefined> {
    const [row] = await this.sql.$queryRaw<IngestionSettingsRow[]>`SELECT language, graph FROM knowledge_bases WHERE id = ${id}`;
    return row && toIngestionSettings(row).language;
  }

  /** Deletes it with its documents and chunks (foreign keys cascade). Whether it existed. */
  async delete(workspaceId: string, id: string): Promise<boolean> {
    return (await this.sql.$executeRaw`DELETE FROM knowledge_bases WHERE id = ${id} AND workspace_id = ${workspaceId}`) > 0;
  }
}
