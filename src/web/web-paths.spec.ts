import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { webAppDir } from './web-app';
import { contentTypeOf, webTarget } from './web-paths';

describe('webTarget', () => {
  it.each([
    ['/', { kind: 'page' }],
    ['/index.html', { kind: 'page' }],
    ['/c/abc123', { kind: 'page' }],
    ['/c/hello%20world', { kind: 'page' }],
    ['/assets/app-abc123.js', { kind: 'asset', relative: 'assets/app-abc123.js' }],
    ['/assets/fonts/a%20b.woff2', { kind: 'asset', relative: 'assets/fonts/a b.woff2' }],
    ['/favicon.ico', { kind: 'file', relative: 'favicon.ico' }],
  ])('%s → %j', (path, target) => {
    expect(webTarget(path)).toEqual(target);
  });

  it.each([
    // the API's prefixes, in any case (Express routes case-insensitively)
    '/api', '/api/v1/x', '/API/v1/x', '/%61pi/v1/x', '/v1/chat', '/graphql', '/graphql/assets/x', '/metrics', '/health/ready',
    // out of the directory, hidden files, encoded separators, NUL, malformed escapes
    '/assets/../package.json', '/assets/..%2f..%2fpackage.json', '/assets/%2e%2e/x', '/assets/..%5cx', '/..%2fx', '/c/../x',
    '/.env', '/assets/.env', '/assets/%00x', '/c/%E0%A4%A', '/c/a%2Fb',
    // not a file under assets/
    '/assets', '/assets/', '/assets/x//y',
  ])('%s is not the web app', (path) => {
    expect(webTarget(path)).toEqual({ kind: 'none' });
  });
});

describe('contentTypeOf', () => {
  it('knows what a Vite build emits, and calls anything else bytes', () => {
    expect(contentTypeOf('assets/app-abc.js')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('assets/app-abc.CSS')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('assets/logo-abc.svg')).toBe('image/svg+xml');
    expect(contentTypeOf('assets/font-abc.woff2')).toBe('font/woff2');
    expect(contentTypeOf('assets/blob-abc')).toBe('application/octet-stream');
  });
});

describe('webAppDir', () => {
  it('is web/dist of the package by default (above src/ and dist/ alike), or HELIX_WEB_DIR resolved', () => {
    const root = resolve(__dirname, '..', '..');
    expect(existsSync(join(root, 'package.json'))).toBe(true);
    expect(webAppDir({})).toBe(join(root, 'web', 'dist'));
    expect(webAppDir({ HELIX_WEB_DIR: 'build/web' })).toBe(resolve('build/web'));
  });
});
