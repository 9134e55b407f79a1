import { convert, type HtmlToTextOptions } from 'html-to-text';

export type BodyKind = 'html' | 'json' | 'text' | 'binary';

const TEXT_TYPES = /^(?:text\/|application\/(?:[\w.+-]+\+)?(?:json|xml)$|application\/(?:javascript|ecmascript|x-javascript|x-www-form-urlencoded|x-ndjson|ld\+json|yaml|x-yaml|toml|csv|sql|graphql)$)/;

/** What a Content-Type holds, as far as the tool is concerned; undefined when it does not say. */
export function kindOfType(contentType: string | undefined): BodyKind | undefined {
  const type = mediaType(contentType);
  if (!type) return undefined;
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type)) return 'json';
  return TEXT_TYPES.test(type) ? 'text' : 'binary';
}

/** A body without a Content-Type: text unless it has NUL bytes; HTML when it starts like HTML. */
export function sniffKind(bytes: Buffer): BodyKind {
  const head = bytes.subarray(0, 1024);
  if (head.includes(0)) return 'binary';
  return /^\s*(?:<!doctype html|<html|<head|<body)/i.test(head.toString('latin1')) ? 'html' : 'text';
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** The body as text in the charset the Content-Type names (UTF-8 when it names none or one unknown). */
export function decodeBody(bytes: Buffer, contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

const htmlOptions = (baseUrl: string): HtmlToTextOptions => ({
  wordwrap: false,
  selectors: [
    // links keep their text, with the target (made absolute) when it says more than the text
    { selector: 'a', options: { pathRewrite: (href: string) => absolute(href, baseUrl), hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'noscript', format: 'skip' },
    { selector: 'svg', format: 'skip' },
    { selector: 'template', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
});

/** html-to-text's own baseUrl only prepends; links resolve the way a browser would resolve them */
function absolute(href: string, baseUrl: string): string {
  try {
    return new URL(href, baseUrl).href;
  } catch {
    return href;
  }
}

/** Readable text of an HTML page: its title, then the body's text (no scripts, styles or images). */
export function htmlToReadable(html: string, baseUrl: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const text = convert(html, htmlOptions(baseUrl)).replace(/\n{3,}/g, '\n\n').trim();
  const titleText = title ? convert(title, { wordwrap: false }).trim() : '';
  return titleText ? `Title: ${titleText}\n\n${text}` : text;
}
