/** The surface other modules (runtime, tool) use to search knowledge bases: RetrievalService. */
import type { RerankCall } from './rerank';

/** Matches documents whose metadata contains every key with exactly this value. */
export type MetadataFilter = Record<string, string | number | boolean>;

export interface SearchRequest {
  knowledgeBaseIds: string[];
  query: string;
  k: number;
  filter?: MetadataFilter;
  /** reorders the fused candidates with a model (the workspace's `rerankModel`; rerank.ts) */
  rerank?: RerankCall;
}

export interface SearchHit {
  /** chunk id */
  id: string;
  documentId: string;
  knowledgeBaseId: string;
  /** document title */
  title: string;
  /** document source (URL, file name, or 'text') */
  source: string;
  /** Markdown heading path of the chunk, outermost first */
  headingPath: string[];
  /** the chunk's text */
  text: string;
  /** short excerpt (≤ ~240 chars) for UIs */
  snippet: string;
  /** fused reciprocal-rank score (higher is better; a reranked list keeps each hit's, in the model's order) */
  score: number;
}

export interface SearchResult {
  items: SearchHit[];
  /** true when the results are lexical-only: no vector search was possible */
  degraded: boolean;
  /** why, when degraded */
  degradedReason?: string;
  /** with `rerank`: whether the model's order was applied (false: it failed, the fused order stands) */
  reranked?: boolean;
}
