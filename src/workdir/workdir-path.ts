/**
 * Paths of a conversation's working directory. Every path is stored in one normal form (relative,
 * `/`-separated, no `.` or empty segments) so that `a.txt`, `./a.txt` and `dir//a.txt` name one
 * file each, and a path can never point outside the directory: there is no `..`, no absolute
 * path, nothing the shell's file system or a download header could read differently.
 */

/** The longest path, in characters (the REST route and Content-Disposition carry it). */
export const MAX_PATH_CHARS = 512;
/** The longest single name between slashes (what common file systems allow). */
export const MAX_SEGMENT_CHARS = 255;
/** The deepest nesting of folders. */
export const MAX_PATH_DEPTH = 32;

export type PathCheck = { ok: true; path: string } | { ok: false; error: string };

// C0 controls, DEL and C1 controls: invisible in listings and unsafe in headers
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** The normal form of `raw`, or why it is not a path of the working directory (the model reads it). */
export function normalisePath(raw: string): PathCheck {
  const refuse = (why: string): PathCheck => ({ ok: false, error: `Invalid path ${JSON.stringify(raw.slice(0, 80))}: ${why}.` });
  if (raw.includes('\u0000')) return refuse('it contains a NUL character');
  if (CONTROL.test(raw)) return refuse('it contains a control character');
  if (raw.includes('\\')) return refuse('use / to separate folders, not \\');
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw) || raw.startsWith('~')) {
    return refuse('paths are relative to the working directory (e.g. "notes/todo.md"), never absolute');
  }
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return refuse('".." is not allowed: every file stays inside the working directory');
  if (!segments.length) return refuse('it names no file');
  if (segments.some((segment) => segment.length > MAX_SEGMENT_CHARS)) return refuse(`a name is longer than ${MAX_SEGMENT_CHARS} characters`);
  if (segments.length > MAX_PATH_DEPTH) return refuse(`more than ${MAX_PATH_DEPTH} nested folders`);
  const path = segments.join('/');
  if (path.length > MAX_PATH_CHARS) return refuse(`longer than ${MAX_PATH_CHARS} characters`);
  if (segments.some((segment) => segment.trim() !== segment)) return refuse('a name starts or ends with a space');
  return { ok: true, path };
}
