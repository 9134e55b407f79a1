/**
 * Query parameters whose value is a credential: `token` is the stream token (and what clients
 * wrongly send API keys as); the others are the usual names of API keys in URLs. Compared
 * case-insensitively, after percent-decoding, so `%74oken=` and `TOKEN=` are caught as well.
 */
const SECRET_PARAMS = new Set(['token', 'api_key', 'apikey', 'api-key', 'key', 'access_token']);

export const REDACTED_PARAM = '[redacted]';

/** Whether a query parameter of this name (as written in the URL, or decoded) holds a credential. */
export const isSecretParam = (name: string): boolean => SECRET_PARAMS.has(paramName(name));

function paramName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).trim().toLowerCase();
  } catch {
    return raw.toLowerCase(); // malformed percent-encoding: judge it as written
  }
}

/**
 * A request URL fit for a log line or an error message: the values of credential parameters
 * replaced by `[redacted]` (`?token=[redacted]&after=3`), or, with `withQuery: false`, the path
 * alone (what answers that echo a path show: a client needs no query string back). Every log
 * line and answer that shows a URL goes through here.
 */
export function redactUrl(url: string, options: { withQuery?: boolean } = {}): string {
  const hash = url.indexOf('#');
  const withoutHash = hash < 0 ? url : url.slice(0, hash);
  const start = withoutHash.indexOf('?');
  if (start < 0) return withoutHash;
  const path = withoutHash.slice(0, start);
  if (options.withQuery === false) return path;
  const query = withoutHash
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return isSecretParam(name) ? `${name}=${REDACTED_PARAM}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** A parsed query (as logged beside the URL) with the credential parameters' values redacted. */
export function redactQuery(query: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).map(([name, value]) => [name, isSecretParam(name) ? REDACTED_PARAM : value]));
}
