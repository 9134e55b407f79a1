import { extname } from 'node:path';

/**
 * Where a request path goes when the web chat app is served (web-app.ts). Pure: no file is read
 * here, so every rule can be tested on its own.
 */

/** The first segments the API and its own pages own: their unknown paths stay JSON 404s. */
const RESERVED = new Set(['api', 'v1', 'graphql', 'metrics', 'health']);

export const INDEX_FILE = 'index.html';

export type WebTarget =
  /** a built file under assets/: its name carries its content's hash */
  | { kind: 'asset'; relative: string }
  /** a file at the top of the directory (Vite copies public/ there: favicon, robots.txt), when it exists */
  | { kind: 'file'; relative: string }
  /** index.html: `/` and every deep link the app routes itself (`/c/abc123`) */
  | { kind: 'page' }
  /** not the web app's: a route of Nest, or its JSON 404 */
  | { kind: 'none' };

const NONE: WebTarget = { kind: 'none' };
const PAGE: WebTarget = { kind: 'page' };

/**
 * The decoded segments of a raw (still percent-encoded) path, or undefined when one could step
 * outside the directory or name a hidden file: `..`, `.env`, an encoded `/` or `\`, a NUL, a
 * malformed escape. Such a path is refused whole (404), never the page: a probe learns nothing.
 */
function segmentsOf(rawPath: string): string[] | undefined {
  const segments: string[] = [];
  for (const raw of rawPath.split('/').slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment.startsWith('.') || /[/\\\0]/.test(segment)) return undefined;
    segments.push(segment);
  }
  return segments;
}

/** What a GET or HEAD of `rawPath` (Express's `request.path`) is. */
export function webTarget(rawPath: string): WebTarget {
  const segments = segmentsOf(rawPath);
  // Express matches routes case-insensitively: /API/v1/x is the API's too
  if (!segments || RESERVED.has(segments[0].toLowerCase())) return NONE;
  if (segments[0] === 'assets') {
    const rest = segments.slice(1);
    return rest.length > 0 && rest.every(Boolean) ? { kind: 'asset', relative: ['assets', ...rest].join('/') } : NONE;
  }
  if (segments.length === 1 && segments[0] !== '' && segments[0] !== INDEX_FILE) return { kind: 'file', relative: segments[0] };
  return PAGE;
}

const JS = 'text/javascript; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** The types a Vite build emits; anything else is bytes (and never sniffed: helmet sends nosniff). */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': JS,
  '.mjs': JS,
  '.css': 'text/css; charset=utf-8',
  '.json': JSON_TYPE,
  '.map': JSON_TYPE,
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

export function contentTypeOf(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}
