import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { Injectable } from '@nestjs/common';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult } from '../../tool.types';
import { decodeBody, htmlToReadable, kindOfType, mediaType, sniffKind } from './body-text';
import { discard, openPinned, readBody } from './pinned-request';
import { resolveTarget, systemResolver, type Resolver } from '../../../common';

export const MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MAX_REDIRECTS = 5;
const DEFAULT_MAX_CHARS = 20_000;
const MAX_CHARS = 100_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET a web page or API over http(s) for the model, as readable text. Only public addresses are
 * reached: the address every hop resolves to is checked (address-policy.ts) and then connected to
 * as is, unless the workspace lists the host in `httpFetchAllowedHosts`. A non-2xx status is a
 * successful call whose output states the status: the model can read a 404 page and act on it.
 */
@Injectable()
@HelixTool()
export class HttpFetchTool implements ToolDefinition {
  readonly name = 'http_fetch';
  readonly description =
    'Fetch a public web page or HTTP API with GET and return its status, content type, final URL and body as text ' +
    '(HTML converted to readable text, JSON and text as they are; binary content is refused). Follows up to 5 redirects.';
  readonly parameters = {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 2000, description: 'absolute http:// or https:// URL' },
      maxChars: {
        type: 'integer',
        minimum: 100,
        maximum: MAX_CHARS,
        description: `at most this many characters of the body (default ${DEFAULT_MAX_CHARS})`,
      },
    },
    required: ['url'],
    additionalProperties: false,
  };
  readonly risk = 'low';
  readonly timeoutMs = 15_000;
  // the body is cut to maxChars here, with a note; the hub's limit only has to leave room for the header lines
  readonly maxOutputChars = MAX_CHARS + 2_000;

  /** tests swap the resolver to check names without DNS */
  resolver: Resolver = systemResolver;

  async run(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    const first = parseUrl(String(args.url));
    if (typeof first === 'string') return { ok: false, error: first };
    const maxChars = typeof args.maxChars === 'number' ? args.maxChars : DEFAULT_MAX_CHARS;
    const allowed = context.settings.httpFetchAllowedHosts;
    const trail: string[] = [];

    let url = first;
    for (let hop = 0; ; hop++) {
      const target = await resolveTarget(url, allowed, this.resolver);
      if (!target.ok) return { ok: false, error: `Refused to fetch ${url.href}${via(trail)}: ${target.error}` };
      if (context.signal.aborted) return { ok: false, error: 'http_fetch was cancelled.' };
      let response: IncomingMessage;
      try {
        response = await openPinned(url, target, context.signal, context.traceparent);
      } catch (error) {
        return { ok: false, error: `Could not fetch ${url.href}${via(trail)}: ${reason(error)}` };
      }
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (!REDIRECTS.has(status) || !location) return this.answer(url, response, trail, maxChars);
      discard(response);
      if (hop >= MAX_REDIRECTS) return { ok: false, error: `Too many redirects (more than ${MAX_REDIRECTS}) from ${first.href}` };
      const next = parseUrl(location, url);
      if (typeof next === 'string') return { ok: false, error: `${url.href} redirects to an unusable location: ${next}` };
      trail.push(url.href);
      url = next;
    }
  }

  private async answer(url: URL, response: IncomingMessage, trail: string[], maxChars: number): Promise<ToolResult> {
    const status = response.statusCode ?? 0;
    const contentType = headerText(response.headers['content-type']);
    const declared = kindOfType(contentType);
    if (declared === 'binary') {
      discard(response);
      return { ok: false, error: `${url.href} returned ${mediaType(contentType)} content, which http_fetch does not read (text, HTML and JSON only).` };
    }
    let body;
    try {
      body = await readBody(response, MAX_BODY_BYTES);
    } catch (error) {
      return { ok: false, error: `Could not read the response of ${url.href}: ${reason(error)}` };
    }
    const kind = declared ?? sniffKind(body.bytes);
    if (kind === 'binary') return { ok: false, error: `${url.href} returned binary content, which http_fetch does not read (text, HTML and JSON only).` };
    const decoded = decodeBody(body.bytes, contentType);
    const text = kind === 'html' ? htmlToReadable(decoded, url.href) : decoded;

    const lines = [
      `Status: ${status} ${response.statusMessage || STATUS_CODES[status] || ''}`.trimEnd(),
      `Content-Type: ${contentType || '(none)'}`,
      `URL: ${url.href}`,
    ];
    if (trail.length) lines.push(`Redirected from: ${trail.join(' → ')}`);
    const notes: string[] = [];
    if (body.truncated) notes.push(`[the response was larger than ${MAX_BODY_BYTES / 1024 / 1024} MB: only its beginning was read]`);
    let shown = text;
    if (text.length > maxChars) {
      shown = text.slice(0, maxChars);
      notes.push(`[… ${text.length - maxChars} more characters not shown; maxChars is ${maxChars}]`);
    }
    return { ok: true, output: [...lines, '', shown, ...notes].join('\n') };
  }
}

/** An absolute http(s) URL, or what is wrong with it. */
function parseUrl(raw: string, base?: URL): URL | string {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return `"${raw.slice(0, 200)}" is not a valid absolute URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}:`;
  if (!url.hostname) return `"${raw.slice(0, 200)}" has no host`;
  url.hash = '';
  return url;
}

const via = (trail: string[]) => (trail.length ? ` (redirected from ${trail[0]})` : '');
const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';

function reason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'AbortError') return 'the request was aborted (cancelled or timed out)';
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
