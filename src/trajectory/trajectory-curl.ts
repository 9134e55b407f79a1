import type { ProviderRequest } from '../model';

/** One model call of a run, as the export lists it. */
export interface CurlCall {
  step: number;
  purpose: string;
  model: string;
  request: ProviderRequest | { kind: 'dropped' };
}

const HEREDOC = 'HELIX_REQUEST_BODY';

/** `text` as one single-quoted shell word. */
const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A shell script of cURL commands, one per model call of the run, against the provider's base
 * URL with the key taken from `$OPENAI_API_KEY` (never the real one). The body goes through a
 * quoted heredoc, so nothing in it is expanded by the shell; JSON has no raw newline, so the
 * body is one line and cannot end the heredoc early.
 */
export function curlScript(runId: string, calls: CurlCall[]): string {
  const out = ['#!/bin/sh', `# The model requests of Helix run ${runId}, in the order they were made.`, '# Set OPENAI_API_KEY to the provider key before running it.', ''];
  if (!calls.length) out.push('# This run made no model calls.', '');
  for (const [i, call] of calls.entries()) {
    out.push(`# ${i + 1}. step ${call.step}, ${call.purpose}, ${call.model}`);
    const request = call.request;
    if (request.kind === 'offline') out.push('# answered by the offline model in process: no HTTP request was made', '');
    else if (request.kind === 'dropped') out.push('# the request is no longer kept (traces keep requests for HELIX_TRACE_RETENTION_DAYS)', '');
    else if (request.kind === 'unknown') out.push(`# the request cannot be rebuilt: ${request.reason.replace(/\s+/g, ' ')}`, '');
    else {
      out.push(
        `curl -sS -N ${quoted(request.url)} \\`,
        `  -H "Authorization: Bearer $OPENAI_API_KEY" \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  --data-binary @- <<'${HEREDOC}'`,
        JSON.stringify(request.body),
        HEREDOC,
        '',
      );
    }
  }
  return out.join('\n');
}
