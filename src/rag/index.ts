/** The public face of src/rag: what other modules may import from it. */
export type { Citation } from './citation';
export { renderPassages, sourceOf } from './passages';
export { RagModule } from './rag.module';
export { RetrievalService } from './retrieval.service';
export type { RerankCall } from './rerank';
export type { SearchHit } from './retrieval.types';
export { readPdfText } from './text-extraction';
