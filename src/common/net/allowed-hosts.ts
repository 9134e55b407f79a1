/**
 * The workspace setting `httpFetchAllowedHosts`: hosts whose addresses are not checked (an intranet
 * wiki, a local test server). Entries are `host`, `host:port`, `*.domain` (any subdomain, not the
 * domain itself) or `[v6]:port`; matching is exact and case-insensitive, after the same
 * normalization URLs get (so `127.0.0.1` also covers `http://2130706433/`).
 */

export function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Whether `url`'s host (and port) is on the allow-list. */
export function isHostAllowed(patterns: readonly string[] | undefined, url: URL): boolean {
  if (!patterns?.length) return false;
  const host = trimDot(url.hostname.toLowerCase());
  const port = defaultPort(url);
  return patterns.some((pattern) => {
    const entry = splitEntry(pattern);
    if (!entry || (entry.port !== undefined && entry.port !== port)) return false;
    if (entry.host.startsWith('*.')) return host.endsWith(entry.host.slice(1)) && host.length > entry.host.length - 1;
    return entry.host === host;
  });
}

function splitEntry(pattern: string): { host: string; port?: string } | null {
  const lower = pattern.trim().toLowerCase();
  const bracketEnd = lower.startsWith('[') ? lower.indexOf(']') : -1;
  const colon = lower.indexOf(':', bracketEnd + 1);
  const rawHost = colon === -1 ? lower : lower.slice(0, colon);
  const port = colon === -1 ? undefined : String(Number(lower.slice(colon + 1)));
  if (rawHost.startsWith('*.')) return { host: trimDot(rawHost), port };
  try {
    // the URL parser's normalization, so an entry matches the hostname URLs of it end up with
    return { host: trimDot(new URL(`http://${rawHost}/`).hostname), port };
  } catch {
    return null;
  }
}

const trimDot = (host: string) => host.replace(/\.$/, '');
