import { Injectable } from '@nestjs/common';
import { decodeCursor, encodeCursor, keysetPage } from '../common';
import type { SpanNode, SpanRecord } from './span-rows';
import { SpanWriter } from './span-writer';
import { type TraceFilter, TraceRepository } from './trace.repository';

export const MAX_TRACES_PAGE = 100;

/** One page of traces: the runs' root spans, newest first, and the cursor of the next page. */
export interface TracePage {
  items: SpanRecord[];
  /** pass as `after` for the next page; null on the last one */
  nextCursor: string | null;
}

/** Builds the tree of `spans` (oldest first within each parent); spans whose parent is missing become roots. */
export function spanTree(spans: SpanRecord[]): SpanNode[] {
  const nodes = new Map<string, SpanNode>(spans.map((span) => [span.id, { ...span, children: [] }]));
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId === null ? undefined : nodes.get(node.parentId);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/**
 * The read models of traces for the admin API: a run's span tree, and the traces (runs' root
 * spans) filtered by workspace, model, state and time. What is still queued in the span writer
 * is written first, so a reader sees every span of what already happened.
 */
@Injectable()
export class TraceReader {
  constructor(
    private readonly spans: TraceRepository,
    private readonly writer: SpanWriter,
  ) {}

  /** The run's span tree: the run span at the root (empty when the run has no spans). */
  async spanTree(runId: string): Promise<SpanNode[]> {
    await this.writer.flush();
    return spanTree(await this.spans.ofRun(runId));
  }

  /** The span trees of many runs (in the order of `runIds`), read in one statement. */
  async spanTrees(runIds: readonly string[]): Promise<SpanNode[][]> {
    await this.writer.flush();
    const byRun = new Map<string, SpanRecord[]>(runIds.map((id) => [id, []]));
    for (const span of await this.spans.ofRuns([...byRun.keys()])) byRun.get(span.traceId)?.push(span);
    return runIds.map((id) => spanTree(byRun.get(id) ?? []));
  }

  /** Runs' root spans matching `filter`, newest first; `first` at most MAX_TRACES_PAGE; `after` a cursor of a previous page (400 when malformed). */
  async traces(filter: TraceFilter, first = 20, after?: string): Promise<TracePage> {
    const limit = Math.max(1, Math.min(MAX_TRACES_PAGE, Math.floor(first)));
    const cursor = after === undefined ? undefined : decodeCursor(after);
    await this.writer.flush();
    const rows = await this.spans.roots(filter, limit + 1, cursor && { startedAt: cursor.createdAt, id: cursor.id });
    return keysetPage(rows, limit, (span) => encodeCursor({ createdAt: span.startedAt, id: span.id }));
  }

  /** The longest spans of a kind (model calls by default) in a time range, longest first. */
  async slowest(filter: { workspaceId: string; kind: SpanRecord['kind']; from: Date; to: Date }, limit: number): Promise<SpanRecord[]> {
    await this.writer.flush();
    return this.spans.slowest(filter, limit);
  }
}
