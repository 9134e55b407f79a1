/** in a system message: retrieval's rerank rubric (src/rag/rerank.ts) */
export const RERANK_PHRASE = 'rank the passages by how well each answers the question';

/** Words too common to say what a question is about. */
const STOP_WORDS = new Set(
  ('a an and are as at be by can do does for from how i if in is it its of on or should that the this to was what when where which who why will with ' +
    'you your my me we our they their there these those has have had not no so than then into about use using used get')
    .split(' '),
);
const WORD = /[\p{L}\p{N}]+/gu;

/** A crude stem, so `streams` meets `stream` and `parsing` meets `parse`. */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

const words = (text: string) => (text.toLowerCase().match(WORD) ?? []).map(stem);

/** A question's terms: its words without stop words (all of them when that leaves none), stemmed, once each. */
function termsOf(question: string): string[] {
  const all = question.toLowerCase().match(WORD) ?? [];
  const meaningful = all.filter((word) => !STOP_WORDS.has(word));
  return [...new Set((meaningful.length ? meaningful : all).map(stem))];
}

/** The shortest stretch of `tokens` that holds every one of `found`, in tokens (a sliding window). */
function shortestWindow(tokens: string[], found: Set<string>): number {
  const counts = new Map<string, number>();
  let inside = 0;
  let shortest = tokens.length;
  for (let right = 0, left = 0; right < tokens.length; right++) {
    const token = tokens[right];
    if (!found.has(token)) continue;
    counts.set(token, (counts.get(token) ?? 0) + 1);
    if (counts.get(token) === 1) inside++;
    while (inside === found.size) {
      shortest = Math.min(shortest, right - left + 1);
      const leaving = tokens[left++];
      if (!found.has(leaving)) continue;
      counts.set(leaving, counts.get(leaving)! - 1);
      if (counts.get(leaving) === 0) inside--;
    }
  }
  return shortest;
}

/** Weights of the offline score's parts (chosen on bench/rag-questions.json: see docs/BENCHMARKS.md). */
const PROXIMITY_WEIGHT = 0.1;
const PRIOR_WEIGHT = 0.2;

/**
 * Scores of `passages` (in their fused order) for a question of `terms` (stemmed, without stop
 * words): the share of the terms' weight a passage holds, each term weighted by how rare it is
 * among the passages (a word every passage has tells them apart least); plus a little for
 * proximity (how densely the terms it holds stand together) and for its fused position, so
 * near-ties keep the search's order.
 */
export function coverageScores(terms: string[], passages: string[]): number[] {
  const tokens = passages.map(words);
  const weight = new Map(terms.map((term) => [term, Math.log(1 + (passages.length + 1) / (tokens.filter((t) => t.includes(term)).length + 0.5))]));
  const total = [...weight.values()].reduce((sum, w) => sum + w, 0) || 1;
  return tokens.map((passage, i) => {
    const prior = PRIOR_WEIGHT / (i + 1);
    const found = new Set(passage.filter((token) => weight.has(token)));
    if (!found.size) return prior;
    const coverage = [...found].reduce((sum, term) => sum + weight.get(term)!, 0) / total;
    return coverage + (PROXIMITY_WEIGHT * found.size) / shortestWindow(passage, found) + prior;
  });
}

/**
 * The offline model's answer to the rerank rubric: `Question: …` and the `[n] …` passages of the
 * user message ranked by coverageScores, ties in their given order, as `{"ranking": […]}`. The
 * same request always gets the same ranking, without a key.
 */
export function offlineRanking(prompt: string): string {
  const question = /^Question:\s*(.*)$/m.exec(prompt)?.[1] ?? '';
  const body = prompt.slice(prompt.indexOf('Passages:') + 'Passages:'.length);
  const passages = [...body.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2] }));
  const scores = coverageScores(termsOf(question), passages.map((passage) => passage.text));
  const scored = passages.map((passage, i) => ({ n: passage.n, i, score: scores[i] }));
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return JSON.stringify({ ranking: scored.map((passage) => passage.n) });
}
