/**
 * Probes and scrapes, every few seconds, say nothing of the API's traffic: they are neither
 * logged, counted in the HTTP metrics nor traced.
 */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/health', '/health/ready', '/metrics']);

/** Whether a request URL (its path, any query ignored) is a probe's. */
export function isProbe(url: string): boolean {
  const query = url.indexOf('?');
  return PROBE_PATHS.has(query === -1 ? url : url.slice(0, query));
}
