import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppConfig } from '../config';
import { contentTypeOf, INDEX_FILE, type WebTarget, webTarget } from './web-paths';

/** Hashed file names never change content: a browser keeps them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and the unhashed files revalidate on every load, so a new build is seen at once. */
const REVALIDATE = 'no-cache';

/** HELIX_WEB_DIR, or web/dist of this installation (the package root is above src/ and dist/ alike). */
export function webAppDir(config: Pick<AppConfig, 'HELIX_WEB_DIR'>): string {
  return resolve(config.HELIX_WEB_DIR ?? join(__dirname, '..', '..', 'web', 'dist'));
}

/**
 * The web chat app's production build (index.html, assets/), at `/` and every path outside the
 * API's prefixes (web-paths.ts), for GET and HEAD. Public: the files hold no data, and what the
 * app fetches still needs a key. Express middleware ahead of Nest's routes, because a Nest route
 * for every path would have to be excluded from the global prefix, which would take every other
 * route out of it too. A path it does not serve goes on to Nest: a route, or the JSON 404.
 * Files are read on each request, so a rebuild needs no restart.
 */
export function webApp(config: Pick<AppConfig, 'HELIX_WEB_DIR'>): RequestHandler {
  const root = webAppDir(config);
  const index = join(root, INDEX_FILE);
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    const target = webTarget(request.path);
    if (target.kind === 'none') return next();
    serve(target, response, next).catch(next);
  };

  async function serve(target: Exclude<WebTarget, { kind: 'none' }>, response: Response, next: NextFunction): Promise<void> {
    if (target.kind === 'asset') {
      if (!(await sendFile(join(root, target.relative), IMMUTABLE, response))) next();
      return;
    }
    if (target.kind === 'file' && (await sendFile(join(root, target.relative), REVALIDATE, response))) return;
    await sendPage(response);
  }

  /** Sends the file when it is a regular file inside the directory; false when there is none. */
  async function sendFile(path: string, cacheControl: string, response: Response): Promise<boolean> {
    // web-paths.ts already refused `..` and separators; this keeps it so whatever changes there
    if (!path.startsWith(root + sep)) return false;
    const body = await readRegularFile(path);
    if (!body) return false;
    response.setHeader('Content-Type', contentTypeOf(path));
    response.setHeader('Cache-Control', cacheControl);
    // Express adds the ETag and answers a matching If-None-Match with 304, and HEAD without a body
    response.send(body);
    return true;
  }

  async function sendPage(response: Response): Promise<void> {
    if (await sendFile(index, REVALIDATE, response)) return;
    // the API works without the web app: say what is missing instead of failing
    response.status(503).type('text/plain; charset=utf-8').setHeader('Cache-Control', 'no-store');
    response.send('The web app is not built: run `npm run build:web` (or point HELIX_WEB_DIR at a build).\n');
  }
}

/** The file's content, or undefined when there is no regular file at `path`. */
async function readRegularFile(path: string): Promise<Buffer | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return await readFile(path);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
}
