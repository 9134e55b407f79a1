/**
 * A knowledge-base passage a run's model was given (prefetched, or found by `kb_search`). `n`
 * is the number the model cites it by (`[n]`): the same passage keeps its number for the whole run.
 */
export interface Citation {
  n: number;
  /** the chunk's id */
  id: string;
  documentId: string;
  title: string;
  source: string;
  snippet: string;
  score: number;
}
