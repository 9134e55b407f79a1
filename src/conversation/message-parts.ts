import { isRecord } from '../common';
import type { ToolSpec } from '../model';
import type { Citation, GraphEntity, GraphRelation, SubGraph } from '../rag';
/**
 * What a message carries besides its text, stored as JSON in `messages.parts` and returned to
 * clients as is. One shape per kind of message; `kind` tells which (and implies the role).
 */

/** A tool call as the model made it (raw JSON arguments, after repair when repair was possible). */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A file attached to a user message: stored once per workspace (`files`), served by GET /files/:id. */
export interface AttachmentRef {
  fileId: string;
  name: string;
  /** sniffed from the bytes when it was stored */
  mediaType: string;
  size: number;
}

export type MessageParts =
  /** what a user wrote, with the client-side tools its run may call and the files attached to it */
  | { kind: 'user'; clientTools?: ToolSpec[]; attachments?: AttachmentRef[] }
  /**
   * a model answer that completed: step `step` of its run, with the tool calls it asked for; a
   * run's final answer lists the sources its run retrieved, in citation order
   */
  | { kind: 'answer'; step: number; toolCalls?: StoredToolCall[]; reasoning?: string; sources?: Citation[]; graph?: SubGraph; output?: unknown }
  /**
   * a run's final answer did not match its response format: Helix asks the model once to
   * correct it (the text is that request, sent to the model as a user turn), `errors` say why
   */
  | { kind: 'output_repair'; errors: string[] }
  /**
   * text clients were shown of an answer that never completed: the run was cancelled, or a
   * restart asked the model again and it answered differently (`interrupted`). Kept for the
   * user's record; never sent back to the model.
   */
  | { kind: 'partial'; step?: number; interrupted?: boolean }
  /**
   * the message a run that failed leaves in the conversation (its text says why); `step`: the
   * run's step that failed (a plan's step tried again goes on with a new one)
   */
  | { kind: 'failure'; error: string; step?: number }
  /** a tool's result (the message's toolCallId names the call), with the passages it found (`kb_search`) */
  | { kind: 'tool_result'; name: string; ok: boolean; sources?: Citation[] };

export type MessagePartsKind = MessageParts['kind'];
export type MessageRole = 'user' | 'assistant' | 'tool' | 'system';

/** The role each kind of message is stored with. */
export const ROLE_OF: Record<MessagePartsKind, MessageRole> = {
  user: 'user',
  answer: 'assistant',
  partial: 'assistant',
  failure: 'assistant',
  tool_result: 'tool',
  output_repair: 'system',
};


const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function toolCalls(value: unknown): StoredToolCall[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const calls: StoredToolCall[] = [];
  for (const call of value) {
    if (!isRecord(call)) continue;
    const id = str(call.id);
    const name = str(call.name);
    if (id === undefined || name === undefined) continue;
    calls.push({ id, name, arguments: str(call.arguments) ?? '' });
  }
  return calls.length ? calls : undefined;
}

function citations(value: unknown): Citation[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items: Citation[] = [];
  for (const item of value) {
    if (!isRecord(item)) continue;
    const n = num(item.n);
    const id = str(item.id);
    const documentId = str(item.documentId);
    if (n === undefined || id === undefined || documentId === undefined) continue;
    items.push({ n, id, documentId, title: str(item.title) ?? '', source: str(item.source) ?? '', snippet: str(item.snippet) ?? '', score: num(item.score) ?? 0 });
  }
  return items.length ? items : undefined;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The knowledge-graph neighbourhood an answer's retrieval added (its relations' entities), if any. */
function subGraph(value: unknown): SubGraph | undefined {
  if (!isRecord(value) || !Array.isArray(value.entities) || !Array.isArray(value.relations)) return undefined;
  const entities: GraphEntity[] = [];
  for (const e of value.entities) {
    const id = isRecord(e) ? str(e.id) : undefined;
    if (!isRecord(e) || id === undefined) continue;
    entities.push({ id, knowledgeBaseId: str(e.knowledgeBaseId) ?? '', name: str(e.name) ?? '', type: str(e.type) ?? '', mentions: num(e.mentions) ?? 0 });
  }
  const relations: GraphRelation[] = [];
  for (const r of value.relations) {
    if (!isRecord(r) || str(r.source) === undefined || str(r.target) === undefined) continue;
    relations.push({ source: str(r.source)!, target: str(r.target)!, label: str(r.label) ?? '', weight: num(r.weight) ?? 0, chunkIds: strings(r.chunkIds), documentIds: strings(r.documentIds) });
  }
  return entities.length || relations.length ? { entities, relations } : undefined;
}

function clientTools(value: unknown): ToolSpec[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const tools: ToolSpec[] = [];
  for (const tool of value) {
    if (!isRecord(tool) || typeof tool.name !== 'string' || !isRecord(tool.parameters)) continue;
    tools.push({ name: tool.name, description: str(tool.description) ?? '', parameters: tool.parameters });
  }
  return tools.length ? tools : undefined;
}

function attachments(value: unknown): AttachmentRef[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const refs: AttachmentRef[] = [];
  for (const item of value) {
    if (!isRecord(item)) continue;
    const fileId = str(item.fileId);
    const mediaType = str(item.mediaType);
    if (fileId === undefined || mediaType === undefined) continue;
    refs.push({ fileId, name: str(item.name) ?? '', mediaType, size: num(item.size) ?? 0 });
  }
  return refs.length ? refs : undefined;
}

/**
 * The typed parts of a stored message. Rows written before `kind` existed are recognised by
 * their role and fields (a migration also backfills it), so every stored message reads back.
 */
export function readMessageParts(role: MessageRole, stored: unknown): MessageParts {
  const json = isRecord(stored) ? stored : {};
  const kind = str(json.kind) ?? legacyKind(role, json);
  switch (kind) {
    case 'answer': {
      const calls = toolCalls(json.toolCalls);
      const reasoning = str(json.reasoning);
      const sources = citations(json.sources);
      const graph = subGraph(json.graph);
      return {
        kind, step: num(json.step) ?? 0, ...(calls && { toolCalls: calls }), ...(reasoning && { reasoning }), ...(sources && { sources }), ...(graph && { graph }),
        // the parsed answer of a run with a response format, checked before it was stored
        ...(json.output !== undefined && { output: json.output }),
      };
    }
    case 'output_repair':
      return { kind, errors: Array.isArray(json.errors) ? json.errors.filter((e): e is string => typeof e === 'string') : [] };
    case 'partial': {
      const step = num(json.step);
      return { kind, ...(step !== undefined && { step }), ...(json.interrupted === true && { interrupted: true }) };
    }
    case 'failure': {
      const step = num(json.step);
      return { kind, error: str(json.error) ?? 'internal', ...(step !== undefined && { step }) };
    }
    case 'tool_result': {
      const sources = citations(json.sources);
      return { kind, name: str(json.name) ?? '', ok: json.ok === true, ...(sources && { sources }) };
    }
    default: {
      const tools = clientTools(json.clientTools);
      const files = attachments(json.attachments);
      return { kind: 'user', ...(tools && { clientTools: tools }), ...(files && { attachments: files }) };
    }
  }
}

function legacyKind(role: MessageRole, json: Record<string, unknown>): MessagePartsKind {
  if (role === 'tool') return 'tool_result';
  if (role !== 'assistant') return 'user';
  if (json.partial === true) return 'partial';
  if (typeof json.error === 'string') return 'failure';
  return 'answer';
}
