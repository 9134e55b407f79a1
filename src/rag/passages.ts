import type { SearchHit } from './retrieval.types';

/**
 * Passages as a model reads them: each under its citation number, with the document and the
 * heading it comes from, so an answer can cite `[n]` and say where a fact is from.
 */
export function renderPassages(passages: { n: number; hit: SearchHit }[]): string {
  return passages.map(({ n, hit }) => `[${n}] ${whereFrom(hit)}\n${hit.text.trim()}`).join('\n\n');
}

function whereFrom(hit: SearchHit): string {
  const path = [hit.title, ...hit.headingPath.filter((heading) => heading !== hit.title)].filter(Boolean).join(' › ');
  return hit.source && hit.source !== hit.title ? `${path} (${hit.source})` : path;
}
