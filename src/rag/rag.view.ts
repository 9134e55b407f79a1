import type { Language } from './lexical';
import type { DocumentRecord, JobRecord, KnowledgeBaseDetails } from './rag.records';

export interface KnowledgeBaseView {
  id: string;
  name: string;
  description: string | null;
  language: Language;
  graph: boolean;
  documentCount: number;
  unindexedVectors: number;
  createdAt: string;
  updatedAt: string;
}

/** A document as clients see it: never its checksum or chunks. */
export type DocumentView = Omit<DocumentRecord, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

/** A job as clients see it: not its workspace. */
export interface JobView {
  id: string;
  kind: string;
  state: JobRecord['state'];
  progress: number;
  error: string | null;
  result: Record<string, unknown>;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export function toKnowledgeBaseView(kb: KnowledgeBaseDetails): KnowledgeBaseView {
  return {
    id: kb.id,
    name: kb.name,
    description: kb.description,
    language: kb.language,
    graph: kb.graph,
    documentCount: kb.documentCount,
    unindexedVectors: kb.unindexedVectors,
    createdAt: kb.createdAt.toISOString(),
    updatedAt: kb.updatedAt.toISOString(),
  };
}

export function toDocumentView(doc: DocumentRecord): DocumentView {
  return {
    id: doc.id,
    knowledgeBaseId: doc.knowledgeBaseId,
    title: doc.title,
    source: doc.source,
    mimeType: doc.mimeType,
    status: doc.status,
    error: doc.error,
    chunkCount: doc.chunkCount,
    charCount: doc.charCount,
    metadata: doc.metadata,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

export function toJobView(job: JobRecord): JobView {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    progress: job.progress,
    error: job.error,
    result: job.result ?? {},
    createdAt: job.createdAt.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}
