'use strict';
// The text of an uploaded file, read in a worker thread of the extraction pool
// (extraction-pool.ts). Plain CommonJS, run as is: from src/ under the test runner, from dist/
// in the build (scripts/build-server.js copies it). Not in the server's thread: a large or
// hostile file must not block the event loop every stream shares, and pdf-parse's bundle
// installs core-js polyfills that replace globals such as `JSON.parse`.
const { readFile } = require('node:fs/promises');
const { convert } = require('html-to-text');
const { Parser } = require('htmlparser2');

/** HTML headings become Markdown headings, so chunks keep their heading path. */
const HTML_OPTIONS = {
  wordwrap: false,
  selectors: [
    ...[1, 2, 3, 4, 5, 6].map((level) => ({ selector: `h${level}`, format: 'markdownHeading', options: { level } })),
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
  ],
  formatters: {
    markdownHeading: (elem, walk, builder, options) => {
      builder.openBlock({ leadingLineBreaks: 2 });
      builder.addLiteral(`${'#'.repeat(Number(options.level ?? 1))} `);
      walk(elem.children, builder);
      builder.closeBlock({ trailingLineBreaks: 2 });
    },
  },
};

/**
 * How deep the document nests elements, counted by htmlparser2's streaming parser (no tree, no
 * recursion: it runs in constant stack whatever the depth), stopping past `limit`. html-to-text
 * walks its tree recursively, so a document nested deeper than that is refused before it is.
 */
function deeperThan(html, limit) {
  let depth = 0;
  let exceeded = false;
  const parser = new Parser({
    onopentag() {
      if (++depth > limit && !exceeded) {
        exceeded = true;
        parser.pause();
      }
    },
    onclosetag() {
      depth--;
    },
  });
  parser.write(html);
  if (!exceeded) parser.end();
  return exceeded;
}

async function pdfText(data) {
  const { PDFParse } = require('pdf-parse');
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText({ pageJoiner: '' })).text;
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}

/**
 * `{format, data: Uint8Array | path: string, maxHtmlDepth}` → `{ok: true, text}` or `{ok: false, error}`
 * (a reason for the user). A `path` (a stored upload) is read here, in the worker's bounded heap.
 */
module.exports = async function extract({ format, data: bytes, path, maxHtmlDepth }) {
  const data = path === undefined ? bytes : new Uint8Array(await readFile(path));
  if (format === 'pdf') {
    try {
      return { ok: true, text: await pdfText(data) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
  const text = new TextDecoder('utf-8').decode(data).replace(/^\uFEFF/, '');
  if (format !== 'html') return { ok: true, text };
  if (deeperThan(text, maxHtmlDepth)) return { ok: false, error: `the HTML nests elements more than ${maxHtmlDepth} levels deep` };
  try {
    return { ok: true, text: convert(text, HTML_OPTIONS) };
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, error: 'the HTML is nested too deeply to be read' };
    throw error;
  }
};
