import { requestHeaders } from '../api/client';
import { ApiError } from '../api/errors';

export interface SpanNode {
  name: string;
  kind: string;
  status: string;
  durationMs: number | null;
  attributes: Record<string, unknown> | null;
  children?: SpanNode[];
}

const FIELDS = 'name kind status durationMs attributes';
// the run, its steps, their model and tool calls
const QUERY = `query RunSpans($id: ID!) { run(id: $id) { spans { ${FIELDS} children { ${FIELDS} children { ${FIELDS} } } } } }`;

/** A run's span tree from the admin GraphQL API; `forbidden` when the caller is not an admin. */
export async function loadSpans(runId: string): Promise<SpanNode[] | 'forbidden'> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: { ...requestHeaders(), 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query: QUERY, variables: { id: runId } }),
  });
  const body = (await response.json().catch(() => null)) as { data?: { run?: { spans: SpanNode[] } }; errors?: { message: string; extensions?: { code?: string } }[] } | null;
  const error = body?.errors?.[0];
  if (error) {
    if (error.extensions?.code === 'FORBIDDEN' || error.extensions?.code === 'UNAUTHENTICATED') return 'forbidden';
    throw new ApiError(response.status, error.message, error.extensions?.code);
  }
  if (!body?.data?.run) throw new ApiError(response.status, response.statusText);
  return body.data.run.spans;
}
