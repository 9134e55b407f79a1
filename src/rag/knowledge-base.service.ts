import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { newId, say } from '../common';
import { VectorSupport } from '../database';
import type { AuthContext } from '../security';
import { KnowledgeBaseRepository } from './knowledge-base.repository';
import type { Language } from './lexical';
import { isUniqueViolation, type KnowledgeBaseDetails, type KnowledgeBaseRecord } from './rag.records';
import { VectorIndexRepository } from './vector-index.repository';

/** Knowledge bases of the caller's workspace. */
@Injectable()
export class KnowledgeBaseService {
  constructor(
    private readonly knowledgeBases: KnowledgeBaseRepository,
    /** the vectors waiting for their index (absent in SQL-only tests: none wait) */
    private readonly vectorIndex?: VectorIndexRepository,
    private readonly vector?: VectorSupport,
  ) {}

  async create(auth: AuthContext, input: { name: string; description?: string; language?: Language; graph?: boolean }): Promise<KnowledgeBaseDetails> {
    try {
      const kb = await this.knowledgeBases.create({
        id: newId('kb'),
        workspaceId: auth.workspaceId,
        name: input.name,
        description: input.description ?? null,
        language: input.language ?? 'auto',
        graph: input.graph ?? false,
      });
      return { ...kb, unindexedVectors: 0 };
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(say('knowledge_base.name_taken', { name: input.name }));
      throw error;
    }
  }

  /**
   * Changes its description or `graph`. Turning the graph on applies to documents added from
   * then on; turning it off removes the graph extracted so far.
   */
  async update(auth: AuthContext, id: string, changes: { description?: string | null; graph?: boolean }): Promise<KnowledgeBaseDetails> {
    const updated = await this.knowledgeBases.update(auth.workspaceId, id, changes);
    if (!updated) throw notFound(id);
    return (await this.details([updated]))[0];
  }

  async list(auth: AuthContext): Promise<KnowledgeBaseDetails[]> {
    return this.details(await this.knowledgeBases.list(auth.workspaceId));
  }

  /** The knowledge base of the caller's workspace; 404 naming the id otherwise. */
  async get(auth: AuthContext, id: string): Promise<KnowledgeBaseRecord> {
    const kb = await this.knowledgeBases.find(auth.workspaceId, id);
    if (!kb) throw notFound(id);
    return kb;
  }

  /** get(…) with what its route shows besides. */
  async describe(auth: AuthContext, id: string): Promise<KnowledgeBaseDetails> {
    return (await this.details([await this.get(auth, id)]))[0];
  }

  /** The language of each of `ids` that is a knowledge base of the workspace (others are left out). */
  languages(workspaceId: string, ids: string[]): Promise<Map<string, Language>> {
    return this.knowledgeBases.languages(workspaceId, ids);
  }

  /** The language of each of `ids`; 404 naming the first that is not a knowledge base of the caller's workspace. */
  async requireLanguages(auth: AuthContext, ids: string[]): Promise<Map<string, Language>> {
    const languages = await this.knowledgeBases.languages(auth.workspaceId, ids);
    const missing = ids.find((id) => !languages.has(id));
    if (missing !== undefined) throw notFound(missing);
    return languages;
  }

  /** Deletes it with its documents and chunks. */
  async remove(auth: AuthContext, id: string): Promise<void> {
    if (!(await this.knowledgeBases.delete(auth.workspaceId, id))) throw notFound(id);
  }

  private async details(kbs: KnowledgeBaseRecord[]): Promise<KnowledgeBaseDetails[]> {
    const waiting = this.vector?.enabled && this.vectorIndex ? await this.vectorIndex.waitingIn(kbs.map((kb) => kb.id)) : new Map<string, number>();
    return kbs.map((kb) => ({ ...kb, unindexedVectors: waiting.get(kb.id) ?? 0 }));
  }
}

const notFound = (id: string) => new NotFoundException(say('knowledge_base.not_found', { id }));
