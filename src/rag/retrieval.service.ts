import { BadRequestException, ConflictException, Injectable, Logger, Optional } from '@nestjs/common';
import { VectorSupport } from '../database';
import type { AuthContext } from '../security';
import { type ChunkSearch, ChunkSearchRepository, type LexicalSearch } from './chunk-search.repository';
import { Embedder } from './embedder';
import { KnowledgeBaseService } from './knowledge-base.service';
import { type Language, lexicalQuery, queryTerms, textSearchConfig } from './lexical';
import { parseRanking, RERANK_CANDIDATES, RERANK_TIMEOUT_MS, rerankRequest, type RerankCall } from './rerank';
import type { SearchHit, SearchRequest, SearchResult } from './retrieval.types';
import { SearchRerank } from './search-rerank';
import { snippetOf } from './snippet';
import { say } from '../common';

/** Most hits one search returns. */
export const MAX_K = 50;

/**
 * Hybrid retrieval over knowledge bases of the caller's workspace: full-text and vector top
 * lists fused by reciprocal rank. Without vector search (no pgvector, or the query could not be
 * embedded) the results are lexical-only and flagged `degraded`, with the reason. With a
 * `rerank` call, the best RERANK_CANDIDATES fused hits are reordered by a model before the top k
 * are kept; when it fails, times out or answers no order, the fused order stands.
 */
@Injectable()
export class RetrievalService {
  private readonly logger = new Logger('Retrieval');

  constructor(
    private readonly knowledgeBases: KnowledgeBaseService,
    private readonly chunks: ChunkSearchRepository,
    private readonly embedder: Embedder,
    private readonly vector: VectorSupport,
    /** the rerank of searches outside runs (absent in tests of retrieval alone: none) */
    @Optional() private readonly reranks?: SearchRerank,
  ) {}

  /**
   * 404 naming the first knowledge base that is not the caller's workspace's. With `rerank`, the
   * workspace's `rerankModel` reorders the candidates (charged to its daily budget); 409 when it
   * has none.
   */
  async search(auth: AuthContext, request: Omit<SearchRequest, 'rerank'>, options: { rerank?: boolean } = {}): Promise<SearchResult> {
    const ids = [...new Set(request.knowledgeBaseIds)];
    const languages = await this.knowledgeBases.requireLanguages(auth, ids);
    const rerank = options.rerank ? await this.reranks?.callFor(auth.workspaceId) : undefined;
    if (options.rerank && !rerank) throw new ConflictException(say('knowledge_base.no_rerank_model'));
    return this.searchIn(auth.workspaceId, { ...request, rerank }, languages);
  }

  /**
   * For a run of the workspace, whose settings name the knowledge bases: those deleted since
   * (or never the workspace's) are skipped, so a stale setting never fails a run.
   */
  async searchForRun(workspaceId: string, request: SearchRequest): Promise<SearchResult> {
    // the knowledge bases of the workspace among those named (a run's stale setting may name others)
    const languages = await this.knowledgeBases.languages(workspaceId, [...new Set(request.knowledgeBaseIds)]);
    return this.searchIn(workspaceId, request, languages);
  }

  /** `request` in the knowledge bases of `languages` (their ids and each one's language). */
  private async searchIn(workspaceId: string, request: Omit<SearchRequest, 'knowledgeBaseIds'>, languages: Map<string, Language>): Promise<SearchResult> {
    const query = request.query.trim();
    if (!query) throw new BadRequestException(say('validation.not_empty', { field: 'query' }));
    if (!Number.isInteger(request.k) || request.k < 1 || request.k > MAX_K) throw new BadRequestException(say('validation.integer_range', { field: 'k', min: 1, max: MAX_K }));
    if (!languages.size) return { items: [], degraded: false };

    const vector = await this.queryVector(workspaceId, query);
    const wanted = request.rerank ? Math.min(MAX_K, Math.max(RERANK_CANDIDATES, request.k)) : request.k;
    const rows = await this.chunks.search({
      knowledgeBaseIds: [...languages.keys()],
      lexical: lexicalSearches(query, languages),
      vector: 'literal' in vector ? vector : undefined,
      filter: request.filter && Object.keys(request.filter).length ? request.filter : undefined,
      // 40: what an HNSW scan returns by default (hnsw.ef_search); never fewer than asked for
      candidates: Math.max(40, wanted),
      k: wanted,
    });
    const terms = [...new Set([...languages.values()].flatMap((language) => queryTerms(query, language)))];
    let items: SearchHit[] = rows.map((row) => ({
      id: row.id,
      documentId: row.document_id,
      knowledgeBaseId: row.knowledge_base_id,
      title: row.title,
      source: row.source,
      headingPath: row.heading_path,
      text: row.text,
      snippet: snippetOf(row.text, terms),
      score: Number(row.score),
    }));
    let reranked: { reranked: boolean } | undefined;
    if (request.rerank) {
      const order = await this.rerankOrder(query, items, request.rerank);
      if (order) items = order.map((i) => items[i]);
      reranked = { reranked: order !== undefined };
      items = items.slice(0, request.k);
    }
    const result: SearchResult = 'degradedReason' in vector ? { items, degraded: true, degradedReason: vector.degradedReason } : { items, degraded: false };
    return { ...result, ...reranked };
  }

  /** The model's order of `hits` (indexes), or undefined when there is none to apply (logged). */
  private async rerankOrder(query: string, hits: SearchHit[], call: RerankCall): Promise<number[] | undefined> {
    if (hits.length < 2) return hits.map((_, i) => i);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`no answer within ${RERANK_TIMEOUT_MS} ms`)), RERANK_TIMEOUT_MS);
    try {
      const answer = await call(rerankRequest(query, hits.map((hit) => hit.text)), timeout.signal);
      const order = parseRanking(answer, hits.length);
      if (!order) this.logger.warn('The rerank model answered no ranking: the fused order stands');
      return order;
    } catch (error) {
      this.logger.warn(`Rerank failed (${error instanceof Error ? error.message : String(error)}): the fused order stands`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private async queryVector(workspaceId: string, query: string): Promise<NonNullable<ChunkSearch['vector']> | { degradedReason: string }> {
    if (!this.vector.enabled) return { degradedReason: `vector search unavailable: ${this.vector.reason}` };
    try {
      const model = await this.embedder.model(workspaceId);
      return { ...(await this.embedder.embedQuery(workspaceId, model, query)), model: model.label };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.logger.warn(`Query embedding failed (${reason}): lexical-only results`);
      return { degradedReason: `the query could not be embedded: ${reason}` };
    }
  }
}

/** One full-text query per language among the knowledge bases searched. */
function lexicalSearches(query: string, languages: Map<string, Language>): LexicalSearch[] {
  const byLanguage = new Map<Language, string[]>();
  for (const [id, language] of languages) byLanguage.set(language, [...(byLanguage.get(language) ?? []), id]);
  return [...byLanguage].map(([language, knowledgeBaseIds]) => ({
    knowledgeBaseIds,
    config: textSearchConfig(language),
    query: lexicalQuery(query, language),
  }));
}
