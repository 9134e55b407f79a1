/** Response and request shapes of the REST API, named after the OpenAPI document's schemas. */
import type { components } from './openapi';

type Schemas = components['schemas'];
export type Conversation = Schemas['ConversationResponse'];
export type ConversationSettings = Schemas['ConversationSettingsDto'];
export type Message = Schemas['MessageResponse'];
export type KnowledgeBase = Schemas['KnowledgeBaseResponse'];
export type Agent = Schemas['AgentView'];
export type KbDocument = Schemas['DocumentResponse'];
export type Job = Schemas['JobResponse'];
export type SearchHit = Schemas['SearchHitResponse'];
export type ModelRef = Schemas['ModelRefDto'];
export type RunMode = NonNullable<Schemas['PostMessageDto']['mode']>;
export type RetrievalMode = NonNullable<ConversationSettings['retrieval']>;
export type SourceMode = Schemas['KnowledgeSourceDto']['mode'];
