import type { Language } from './lexical';

type JsonRecord = Record<string, unknown>;

export interface KnowledgeBaseRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  /** how its words are indexed (lexical.ts) */
  language: Language;
  /** entities and relations are extracted at ingestion (graph-extractor.ts) */
  graph: boolean;
  documentCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A knowledge base as its routes show it: with its chunks whose vectors are not in the vector index yet (VectorIndexer; compared exactly meanwhile). */
export type KnowledgeBaseDetails = KnowledgeBaseRecord & { unindexedVectors: number };

export const DOCUMENT_STATUSES = ['pending', 'processing', 'ready', 'failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

export interface DocumentRecord {
  id: string;
  knowledgeBaseId: string;
  title: string;
  source: string;
  mimeType: string | null;
  status: DocumentStatus;
  error: string | null;
  chunkCount: number;
  charCount: number;
  metadata: JsonRecord;
  createdAt: Date;
  updatedAt: Date;
}

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobRecord {
  id: string;
  workspaceId: string;
  kind: string;
  state: JobState;
  /** 0..1 */
  progress: number;
  error: string | null;
  result: JsonRecord | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** What ingestion reads of a knowledge base: its language and whether `graph` is on. */
export interface IngestionSettings {
  language: Language;
  graph: boolean;
}

/** A chunk as ingestion stores it; `embedding` at its stored size (storedVector), when embedded. */
export interface NewChunk {
  id: string;
  ordinal: number;
  text: string;
  /** what to_tsvector indexes: lexicalText(text, the knowledge base's language) */
  lexical: string;
  tokenCount: number;
  headingPath: string[];
  charStart: number;
  charEnd: number;
  embedding?: Float32Array;
}

/** Where a unique index refused a row (PostgreSQL and PGlite both report SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** Where a foreign key refused a row: its parent is gone (SQLSTATE 23503). */
export function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
}
