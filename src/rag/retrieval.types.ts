export type MetadataFilter = Record<string, string | number | boolean>;
export interface SearchRequest { knowledgeBaseIds: string[]; query: string; k: number; filter?: MetadataFilter }
export interface SearchHit {
  id: string;
  documentId: string; knowledgeBaseId: string;
  title: string;
  source: string;
  headingPath: string[];
  text: string;
  snippet: string;
  score: number;
}
export interface SearchResult { items: SearchHit[]; degraded: boolean; degradedReason?: string }
