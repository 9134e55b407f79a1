import type { Request } from 'express';

/** The languages Helix writes its own texts in; English is the default and the stored form. */
export type Language = 'en' | 'zh';

const QUERY_VALUES: Readonly<Record<string, Language>> = { zh: 'zh', en: 'en' };

/**
 * The language of a request's human-readable messages: `?lang=zh|en` when it is one of those
 * (EventSource cannot send headers, so the query wins), else the `Accept-Language` header, else
 * English. Any other `lang` value is ignored rather than refused: the header may still choose
 * well, and an EventSource cannot read the body of a 400 anyway.
 */
export function pickLanguage(acceptLanguage: unknown, langQuery: unknown): Language {
  if (typeof langQuery === 'string') {
    const chosen = QUERY_VALUES[langQuery.trim().toLowerCase()];
    if (chosen) return chosen;
  }
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(',') : acceptLanguage;
  return typeof header === 'string' && prefersChinese(header) ? 'zh' : 'en';
}

/**
 * The language of an Express request (its `Accept-Language` header and `lang` query). Read
 * defensively: the error filter asks it of whatever request failed, and must not fail itself.
 */
export function requestLanguage(request: Partial<Pick<Request, 'headers' | 'query'>>): Language {
  return pickLanguage(request.headers?.['accept-language'], (request.query as Record<string, unknown> | undefined)?.lang);
}

/**
 * True when `zh*` has a higher q than English (`en*`, or `*`). Languages Helix does not speak are
 * left out, so `fr, zh;q=0.8` is Chinese: the best the client will take of what Helix has. On
 * equal q the one listed first wins; malformed entries (a q not from 0 to 1) are skipped.
 */
function prefersChinese(header: string): boolean {
  let zh = { q: 0, at: Infinity };
  let english = { q: 0, at: Infinity };
  header.split(',').forEach((entry, at) => {
    const [tag, ...params] = entry.split(';').map((part) => part.trim());
    if (!tag) return;
    const q = qualityOf(params);
    if (q === undefined || q === 0) return;
    const lower = tag.toLowerCase();
    const chinese = lower === 'zh' || lower.startsWith('zh-');
    if (!chinese && lower !== '*' && lower !== 'en' && !lower.startsWith('en-')) return;
    if (chinese && q > zh.q) zh = { q, at };
    if (!chinese && q > english.q) english = { q, at };
  });
  return zh.q > english.q || (zh.q > 0 && zh.q === english.q && zh.at < english.at);
}

function qualityOf(params: string[]): number | undefined {
  const q = params.find((param) => /^q\s*=/i.test(param));
  if (q === undefined) return 1;
  const value = q.slice(q.indexOf('=') + 1).trim();
  if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value)) return undefined;
  return Number(value);
}
