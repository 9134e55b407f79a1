/** The knowledge graph of knowledge bases with `graph` on: what extraction finds and retrieval returns. */

/** An entity as extraction names it in one chunk. */
export interface ExtractedEntity {
  name: string;
  /** free text, lower-case: `person`, `organization`, … (offline: `name` or `term`) */
  type: string;
}

/** A relation between two entities named in the same chunk (by their names). */
export interface ExtractedRelation {
  source: string;
  target: string;
  /** lower-case, words joined by `_`: `works_for`, `related_to` */
  label: string;
}

/** What one chunk states. */
export interface ChunkGraph {
  chunkId: string;
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/** An entity of a knowledge base's graph. */
export interface GraphEntity {
  id: string;
  knowledgeBaseId: string;
  name: string;
  type: string;
  /** how many chunks mention it */
  mentions: number;
}

/** A relation of a knowledge base's graph: `source` and `target` are entity ids. */
export interface GraphRelation {
  source: string;
  target: string;
  label: string;
  /** how many chunks state it */
  weight: number;
  /** some chunks that state it (at most GRAPH_EVIDENCE), and their documents */
  chunkIds: string[];
  documentIds: string[];
}

/** A subgraph: entities and the relations among them. */
export interface SubGraph {
  entities: GraphEntity[];
  relations: GraphRelation[];
}

/** Chunks and documents a relation cites, at most. */
export const GRAPH_EVIDENCE = 3;

/** The key an entity is stored and looked up by: its name folded (case, width, spacing). */
export function entityKey(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** A label as stored: lower-case words joined by `_`, at most 40 characters (`related_to` when empty). */
export function relationLabel(label: string): string {
  const folded = label.normalize('NFKC').toLowerCase().trim().replace(/[^\p{L}\p{N}]+/gu, '_').replace(/^_+|_+$/g, '').slice(0, 40);
  return folded || 'related_to';
}
