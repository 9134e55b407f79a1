import type { ApolloDriverConfig } from '@nestjs/apollo';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * GraphiQL for the admin API, at GET /graphql in a browser, from files of this installation only:
 * Nest's and Apollo's own pages load theirs from CDNs and hang on a machine without internet
 * access. The page holds no data (a browser gets it without an API key); the queries it sends
 * carry the headers typed into its Headers pane, where the admin key goes.
 */

/** Where the page's files are served (GraphiQLAssetsController, outside the API prefix, no auth). */
export const GRAPHIQL_ASSETS_PATH = 'graphql/assets';

interface AssetSource {
  file: () => string;
  contentType: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** A file of an installed package, resolved when first read. */
const packageFile = (name: string, path: string) => () => join(dirname(require.resolve(`${name}/package.json`)), path);

/**
 * The files the page may load, by the name in their URL: nothing else is served. GraphiQL's UMD
 * build expects React 18 as globals; its stylesheet embeds its fonts as data: URLs.
 */
const SOURCES = new Map<string, AssetSource>([
  ['react.production.min.js', { file: packageFile('react', 'umd/react.production.min.js'), contentType: JS }],
  ['react-dom.production.min.js', { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), contentType: JS }],
  ['graphiql.min.js', { file: packageFile('graphiql', 'graphiql.min.js'), contentType: JS }],
  ['graphiql.min.css', { file: packageFile('graphiql', 'graphiql.min.css'), contentType: CSS }],
  // copied next to the compiled graphiql.js by scripts/build-server.js
  ['graphiql-start.js', { file: () => join(__dirname, 'graphiql-start.js'), contentType: JS }],
]);

export interface GraphiQLAsset {
  body: Buffer;
  contentType: string;
  /** a digest of the content: the `?v=` of the page's URLs, so a new version is a new URL */
  version: string;
}

// ~4 MB, read once: the files of the installed packages do not change while the process runs
const loaded = new Map<string, GraphiQLAsset>();

/** The allowed file of that name, or undefined for any other name. */
export function graphiqlAsset(name: string): GraphiQLAsset | undefined {
  const source = SOURCES.get(name);
  if (!source) return undefined;
  let asset = loaded.get(name);
  if (!asset) {
    const body = readFileSync(source.file());
    asset = { body, contentType: source.contentType, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
    loaded.set(name, asset);
  }
  return asset;
}

function assetUrl(name: string): string {
  const asset = graphiqlAsset(name);
  if (!asset) throw new Error(`${name} is not a GraphiQL asset`);
  return `/${GRAPHIQL_ASSETS_PATH}/${name}?v=${asset.version}`;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export const DEFAULT_HEADERS = '{\n  "Authorization": "Bearer <your admin API key>"\n}';

const DEFAULT_QUERY = `# Helix admin API. Put an admin API key in the Headers pane below, in place of
# <your admin API key>, then run the query (Ctrl-Enter). The key is kept in this
# browser's local storage.
{
  workspace {
    id
    name
  }
}
`;

/**
 * The page's own policy, as strict as GraphiQL allows: scripts from this server only (no inline
 * script, no eval), queries to this server only. Styles need 'unsafe-inline' (GraphiQL's
 * components inject <style> elements), fonts come as data: URLs from its stylesheet.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'font-src data:',
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The HTML of the page; `endpoint` is the path queries are posted to. */
export function graphiqlHtml(endpoint: string): string {
  const script = (name: string) => `<script src="${escapeHtml(assetUrl(name))}"></script>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${GRAPHIQL_CSP}">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>Helix admin GraphQL</title>
<link rel="stylesheet" href="${escapeHtml(assetUrl('graphiql.min.css'))}">
<style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
<div id="graphiql" data-endpoint="${escapeHtml(endpoint)}" data-default-query="${escapeHtml(DEFAULT_QUERY)}" data-default-headers="${escapeHtml(DEFAULT_HEADERS)}">Loading GraphiQL…</div>
${script('react.production.min.js')}
${script('react-dom.production.min.js')}
${script('graphiql.min.js')}
${script('graphiql-start.js')}
</body>
</html>
`;
}

/** Apollo's plugin type as Nest's driver declares it (its ESM typings, not the CJS ones). */
type Plugin = NonNullable<ApolloDriverConfig['plugins']>[number];

/**
 * Apollo's landing page (what a GET of the endpoint that prefers text/html gets): GraphiQL. A GET
 * asking for JSON is still a query. The page is built on its first request, not at start-up: a
 * missing file then fails that page alone (Apollo answers 500 and logs it), not the API.
 */
export function graphiqlLandingPage(endpoint: string): Plugin {
  return {
    async serverWillStart() {
      let html: string | undefined;
      return { renderLandingPage: async () => ({ html: async () => (html ??= graphiqlHtml(endpoint)) }) };
    },
  };
}
