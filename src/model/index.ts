/** The public face of src/model: what other modules may import from it. */
export { ModelCatalog } from './model-catalog';
export { DEFAULT_EMBEDDING_MODEL, ModelGateway } from './model-gateway';
export { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from './providers/hash-embedding';
export { ModelRouter } from './model-router';
export { ModelModule } from './model.module';
export { ModelError } from './model.types';
export type { CallObserver, ChatImage, ChatMessage, FinishReason, ModelChunk, ModelLimits, ModelRef, ModelRequest, ModelResult, ResponseFormat, SamplingParams, ToolCall, ToolSpec, Usage } from './model.types';
export { formatModelRef } from './provider-errors';
export { requestView } from './request-view';
export type { RequestView } from './request-view';
export { SecretRedactor } from './secret-redactor';
export { ModelListService } from './model-list.service';
export type { ModelListItem } from './model-list.dto';
export { ProviderRequests } from './provider-requests';
export type { ProviderRequest } from './provider-requests';
