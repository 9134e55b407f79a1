import { entityKey, relationLabel, type ExtractedEntity, type ExtractedRelation } from './graph.types';

/** Chunks per extraction call: one model call reads this many. */
export const GRAPH_BATCH = 8;
/** The output an extraction call may produce (and the budget holds for it). */
export const GRAPH_MAX_OUTPUT_TOKENS = 2_000;
/** What a batch may yield, at most: a rambling answer is cut. */
const MAX_ENTITIES = 200;
const MAX_RELATIONS = 300;
const MAX_NAME = 120;

export const GRAPH_INSTRUCTION =
  'You extract a knowledge graph from document passages. Reply with one JSON object and nothing else: ' +
  '{"entities":[{"name":"…","type":"…"}],"relations":[{"source":"…","target":"…","label":"…"}]}. ' +
  'Entities are the named things the passages are about (people, organizations, products, places, concepts, terms); ' +
  'write each name exactly as it appears in the passages, and its type as one lower-case word. ' +
  'Relations connect two of those entities that one passage relates; the label is a short lower-case verb phrase ' +
  'such as "works_for", "part_of", "located_in", "uses". Leave out anything the passages do not state.';

/** The request's messages: the instruction, then the chunks numbered. */
export function graphPrompt(texts: string[]): { role: 'system' | 'user'; content: string }[] {
  const passages = texts.map((text, i) => `Passage ${i + 1}:\n${text.trim()}`).join('\n\n');
  return [
    { role: 'system', content: GRAPH_INSTRUCTION },
    { role: 'user', content: passages },
  ];
}

/** The JSON object in a model's answer (a fenced block, or the text from the first `{` to the last `}`). */
function jsonObject(answer: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(answer)?.[1] ?? answer;
  const start = fenced.indexOf('{');
  const end = fenced.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(fenced.slice(start, end + 1)) as unknown;
  } catch {
    return undefined;
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() && value.trim().length <= MAX_NAME ? value.replace(/\s+/g, ' ').trim() : undefined;

/**
 * The graph of a model's answer, validated: well-formed entries only, relations between
 * entities it named (an endpoint it did not list is added as an entity of type `thing`).
 * Undefined when the answer holds no such object.
 */
export function parseGraphAnswer(answer: string): { entities: ExtractedEntity[]; relations: ExtractedRelation[] } | undefined {
  const json = record(jsonObject(answer));
  if (!json || (!Array.isArray(json.entities) && !Array.isArray(json.relations))) return undefined;
  const entities = new Map<string, ExtractedEntity>();
  for (const item of Array.isArray(json.entities) ? json.entities.slice(0, MAX_ENTITIES) : []) {
    const entry = record(item);
    const name = text(entry?.name);
    if (!name || entities.has(entityKey(name))) continue;
    entities.set(entityKey(name), { name, type: relationLabel(text(entry?.type) ?? 'thing') });
  }
  const relations: ExtractedRelation[] = [];
  for (const item of Array.isArray(json.relations) ? json.relations.slice(0, MAX_RELATIONS) : []) {
    const entry = record(item);
    const source = text(entry?.source);
    const target = text(entry?.target);
    if (!source || !target || entityKey(source) === entityKey(target)) continue;
    for (const name of [source, target]) if (!entities.has(entityKey(name))) entities.set(entityKey(name), { name, type: 'thing' });
    relations.push({ source, target, label: relationLabel(text(entry?.label) ?? '') });
  }
  return { entities: [...entities.values()], relations };
}

/** Whether `text` names the entity (case-insensitive; whole words for Latin names). */
export function mentions(textKey: string, name: string): boolean {
  const key = entityKey(name);
  const at = textKey.indexOf(key);
  if (at < 0) return false;
  if (!/^[\p{L}\p{N}]/u.test(key) || /[\p{Script=Han}]/u.test(key)) return true;
  // `Ada` is not named by `Adapter`: some occurrence stands alone
  const word = new RegExp(`(?:^|[^\\p{L}\\p{N}])${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:$|[^\\p{L}\\p{N}])`, 'u');
  return word.test(textKey);
}

/**
 * A batch's graph split over its chunks: an entity belongs to each chunk that names it (names
 * the model made up belong to none and are dropped), a relation to each chunk naming both ends.
 */
export function attribute(
  chunks: { id: string; text: string }[],
  graph: { entities: ExtractedEntity[]; relations: ExtractedRelation[] },
): { chunkId: string; entities: ExtractedEntity[]; relations: ExtractedRelation[] }[] {
  return chunks.map((chunk) => {
    const folded = entityKey(chunk.text);
    const entities = graph.entities.filter((entity) => mentions(folded, entity.name));
    const named = new Set(entities.map((entity) => entityKey(entity.name)));
    const relations = graph.relations.filter((r) => named.has(entityKey(r.source)) && named.has(entityKey(r.target)));
    return { chunkId: chunk.id, entities, relations };
  });
}
