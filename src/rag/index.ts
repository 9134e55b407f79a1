/** The public face of src/rag: what other modules may import from it. */
export type { Citation } from './citation';
export { renderPassages, sourceOf } from './passages';
export { RagModule } from './rag.module';
export { RetrievalService } from './retrieval.service';
export type { RerankCall } from './rerank';
export type { SearchHit } from './retrieval.types';
export { readPdfText } from './text-extraction';
export { IngestionBudget } from './graph-budget';
export type { CallUsage, IngestionHold } from './graph-budget';
export { KnowledgeGraph, MAX_GRAPH_DEPTH, renderGraph } from './graph.service';
export type { GraphStart, Neighbourhood } from './graph.service';
export type { GraphEntity, GraphRelation, SubGraph } from './graph.types';
