/**
 * Deterministic "embeddings" without a model: a hashed bag of words, L2-normalised. Texts that
 * share words get a high cosine similarity, so retrieval behaves sensibly offline and in tests
 * (the mock LLM serves the same vectors). Not semantic: synonyms do not match.
 */
export const DEFAULT_EMBEDDING_DIMENSIONS = 1536;

/**
 * The offline embedder's size (ModelGateway without a key): half of DEFAULT_EMBEDDING_DIMENSIONS
 * halves what is stored, indexed and compared per chunk, for a little more collision between a
 * chunk's ~250 hashed slots; smaller sizes collide enough to rank noticeably worse
 * (docs/BENCHMARKS.md, ranking quality).
 */
export const OFFLINE_EMBEDDING_DIMENSIONS = 768;

const WORD = /[\p{L}\p{N}]+/gu;

export function hashEmbedding(text: string, dimensions = DEFAULT_EMBEDDING_DIMENSIONS): Float32Array {
  const v = new Float32Array(dimensions);
  let any = false;
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const h = fnv1a(match[0]);
    // two slots per word with independent signs keep collisions from cancelling out whole words
    v[h % dimensions] += h & 0x80000000 ? -1 : 1;
    const h2 = fnv1a(`${match[0]}#`);
    v[h2 % dimensions] += h2 & 0x80000000 ? -0.5 : 0.5;
    any = true;
  }
  if (!any) v[0] = 1;
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += v[i] * v[i];
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dimensions; i++) v[i] /= norm;
  return v;
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
