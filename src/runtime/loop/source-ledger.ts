import type { MessageRecord } from '../../conversation';
import type { Citation } from '../../rag';
import type { CitationLedger, SourceDraft } from '../../tool';

/**
 * The sources of one run, numbered in the order the model was first given them: the passages
 * prefetched for it (classic retrieval) are 1…p, then each passage a `kb_search` of the run
 * returned, at its first appearance. It is rebuilt from the run's stored tool results, so the
 * numbers survive a restart and an approval wait; the final answer stores `items()`.
 */
export class SourceLedger implements CitationLedger {
  private readonly byId = new Map<string, Citation>();
  private readonly taken = new Set<number>();
  private next = 1;

  constructor(prefetched: readonly SourceDraft[] = [], history: readonly MessageRecord[] = [], runId?: string) {
    for (const draft of prefetched) this.cite(draft);
    for (const message of history) {
      if (message.runId !== runId || message.parts.kind !== 'tool_result') continue;
      for (const citation of message.parts.sources ?? []) this.restore(citation);
    }
  }

  get size(): number {
    return this.byId.size;
  }

  cite(draft: SourceDraft): Citation {
    const known = this.byId.get(draft.id);
    if (known) return known;
    while (this.taken.has(this.next)) this.next++;
    return this.add({ ...draft, n: this.next });
  }

  /** Every source in citation order (`items()[i]` is `[i + 1]` unless a restart renumbered). */
  items(): Citation[] {
    return [...this.byId.values()].sort((a, b) => a.n - b.n);
  }

  /** A stored citation keeps its number, unless the prefetch of a restarted run gave that number to another passage. */
  private restore(citation: Citation): void {
    if (this.byId.has(citation.id)) return;
    if (this.taken.has(citation.n)) this.cite(citation);
    else this.add(citation);
  }

  private add(citation: Citation): Citation {
    this.byId.set(citation.id, citation);
    this.taken.add(citation.n);
    return citation;
  }
}

/** The sources in a `sources` event: the stored citations without their numbers (their order is their number). */
export function sourcesEventItems(sources: Citation[]): SourceDraft[] {
  return sources.map(({ n: _n, ...item }) => item);
}
