import type { Citation } from './citation';
import type { SearchHit } from './retrieval.types';

/**
 * Passages as a model reads them: each under its citation number, with the document and the
 * heading it comes from, so an answer can cite `[n]` and say where a fact is from.
 */
export function renderPassages(passages: { n: number; hit: SearchHit }[]): string {
  return passages.map(({ n, hit }) => `[${n}] ${whereFrom(hit)}\n${hit.text.trim()}`).join('\n\n');
}

/** A hit as a run's sources list it (before it has its citation number). */
export function sourceOf(hit: SearchHit): Omit<Citation, 'n'> {
  return { id: hit.id, documentId: hit.documentId, title: hit.title, source: hit.source, snippet: hit.snippet, score: hit.score };
}

function whereFrom(hit: SearchHit): string {
  const path = [hit.title, ...hit.headingPath.filter((heading) => heading !== hit.title)].filter(Boolean).join(' › ');
  return hit.source && hit.source !== hit.title ? `${path} (${hit.source})` : path;
}
