/**
 * A seeded generator of malformed HTTP requests over FUZZ_ENDPOINTS (fuzz-endpoints.ts), and the
 * checks each answer must pass. The same seed gives the same requests, so a failure reproduces
 * with HELIX_FUZZ_SEED and its request index.
 */
import type { FuzzEndpoint, FuzzFixtures } from './fuzz-endpoints';

/** mulberry32: small, fast, and the same sequence everywhere for a seed */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface FuzzRequest {
  /** what was done to the valid request, for the failure report */
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');

/** Strings a client could send that PostgreSQL, a driver or a parser might choke on. */
const NASTY_STRINGS = [
  '',
  ' ',
  "'; DROP TABLE runs; --",
  '$1 $2 $10 $$ $tag$',
  '\\',
  '\\x00',
  '"quoted" \'single\' `back`',
  '😀👍🏽‍🔥',
  '\u202e\u200b\ufeff',
  '%00%ff',
  'x'.repeat(120_000),
  '\ud800',
  'a\udc00b',
  'nul\u0000inside',
  '\u0000',
];
const WRONG_TYPES: unknown[] = [null, 0, -1, 1.5, 1e308, -1e308, 2 ** 31, 2 ** 53 + 1, true, false, [], [1, 'a'], {}, { nested: { a: 1 } }, '123', 'true'];
const IDS = [
  'conv_doesnotexist',
  'run_doesnotexist',
  'x',
  '%00',
  'a%00b',
  '%ff',
  '%ED%A0%80', // a lone surrogate, UTF-8 encoded
  '%',
  '%E0%A4%A',
  'y'.repeat(5000),
  '..%2F..%2Fetc',
  "'%20OR%201=1--",
  '%F0%9F%98%80',
  '0',
  '-1',
  '99999999999999999999',
];
const LAST_EVENT_IDS = ['-1', 'abc', '1e3', '0x10', '99999999999999999999', '2147483648', '2147483647', ' 7 ', '1.5', '', '4294967296'];
const QUERY_VALUES = [
  '-1',
  '0',
  'abc',
  '1e400',
  '99999999999999999999',
  '2147483648',
  '1.5',
  '%00',
  '%ff',
  '%ED%A0%80',
  'z'.repeat(3000),
  b64('275760-09-13T00:00:00.000Z|conv_x'),
  b64('-000001-01-01T00:00:00.000Z|conv_x'),
  b64('0000-01-01T00:00:00.000Z|conv_x'),
  b64('2026-01-01T00:00:00.000Z|conv\u0000x'),
  b64('2026-01-01T00:00:00.000Z|'),
  b64('not a date|conv_x'),
  b64('2026-01-01T00:00:00.000Z|a|b'),
  'not base64 at all!!',
];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/xml',
  'application/json-patch+json',
];

function deepObject(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Replaces `':name'` placeholders with fixtures, anywhere in a JSON value. */
function fill(value: unknown, fixtures: FuzzFixtures): unknown {
  if (typeof value === 'string' && value.startsWith(':') && value.slice(1) in fixtures) return fixtures[value.slice(1) as keyof FuzzFixtures];
  if (Array.isArray(value)) return value.map((v) => fill(v, fixtures));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, fixtures)]));
  return value;
}

/** Every path to a leaf or object of `value` (`[]` is the whole value). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) out.push(...paths(child, [...prefix, Array.isArray(value) ? Number(key) : key]));
  }
  return out;
}

const isPlainObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

function setAt(root: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (!path.length) return replacement;
  const copy: any = structuredClone(root);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = replacement;
  return copy;
}

export class Fuzzer {
  private readonly random: () => number;

  constructor(
    seed: number,
    private readonly fixtures: FuzzFixtures,
    private readonly apiPrefix = '/api/v1',
  ) {
    this.random = prng(seed);
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  private chance(p: number): boolean {
    return this.random() < p;
  }

  /** One malformed (or, now and then, valid) request to `endpoint`. */
  next(endpoint: FuzzEndpoint): FuzzRequest {
    const labels: string[] = [];
    const headers: Record<string, string> = { 'x-fuzz': '1' };
    let path = endpoint.path.replace(/:([a-zA-Z]+)/g, (_, name: string) => {
      if (this.chance(0.6)) return encodeURIComponent(this.fixtures[name as keyof FuzzFixtures] ?? name);
      const id = this.pick(IDS);
      labels.push(`:${name}=${id.slice(0, 40)}`);
      return id;
    });
    path = path.startsWith('//') ? path.slice(1) : `${this.apiPrefix}${path}`;

    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(fill(endpoint.query ?? {}, this.fixtures) as Record<string, string>)) {
      if (this.chance(0.5)) continue;
      query.set(name, value);
    }
    let search = query.toString();
    if (this.chance(0.5) && endpoint.query) {
      const name = this.pick([...Object.keys(endpoint.query), 'after', 'cursor', 'limit']);
      const value = this.pick(QUERY_VALUES);
      labels.push(`?${name}=${value.slice(0, 40)}`);
      // raw, so that malformed escapes reach the server as they are
      search = `${search ? `${search}&` : ''}${name}=${value}`;
    }

    if (endpoint.stream && this.chance(0.5)) {
      headers.accept = this.pick(['text/event-stream', 'application/json', 'text/event-stream, application/json', '*/*']);
      labels.push(`accept=${headers.accept}`);
    }
    if (endpoint.stream && this.chance(0.4)) {
      headers['last-event-id'] = this.pick(LAST_EVENT_IDS);
      labels.push(`last-event-id=${headers['last-event-id']}`);
    }

    let body: string | Buffer | undefined;
    if (endpoint.method !== 'GET' && endpoint.method !== 'DELETE') {
      ({ body } = this.body(endpoint, headers, labels));
    }
    return { label: labels.join(' ') || 'valid', method: endpoint.method, url: search ? `${path}?${search}` : path, headers, body };
  }

  private body(endpoint: FuzzEndpoint, headers: Record<string, string>, labels: string[]): { body: string | Buffer } {
    headers['content-type'] = 'application/json';
    const valid = fill(endpoint.body ?? {}, this.fixtures);
    const roll = this.random();
    if (roll < 0.45) {
      // one part of the body replaced
      const at = this.pick(paths(valid));
      const kind = this.pick(['wrong type', 'nasty string', 'deep', 'unknown key']);
      const where = at.join('.') || '(body)';
      if (kind === 'unknown key') {
        const objects = paths(valid).filter((p) => isPlainObject(p.reduce<any>((node, key) => node[key], valid)));
        const into = this.pick(objects);
        labels.push(`extra key in ${into.join('.') || '(body)'}`);
        return { body: JSON.stringify(setAt(valid, [...into, 'unexpected'], 1)) };
      }
      const replacement = kind === 'wrong type' ? this.pick(WRONG_TYPES) : kind === 'deep' ? deepObject(this.pick([65, 200, 1000])) : this.pick(NASTY_STRINGS);
      labels.push(`${where} = ${kind} ${JSON.stringify(replacement)?.slice(0, 40)}`);
      return { body: JSON.stringify(setAt(valid, at, replacement)) };
    }
    if (roll < 0.55) {
      const key = this.pick(['__proto__', 'constructor', 'prototype']);
      const text = JSON.stringify(valid);
      labels.push(`prototype key ${key}`);
      // written by hand: JSON.stringify never writes a __proto__ key
      return { body: text.length > 2 ? `{"${key}":{"polluted":true},${text.slice(1)}` : `{"${key}":{"polluted":true}}` };
    }
    if (roll < 0.65) {
      const depth = this.pick([65, 500, 5000, 20000]);
      labels.push(`raw JSON nested ${depth} deep`);
      return { body: this.chance(0.5) ? '['.repeat(depth) + ']'.repeat(depth) : `{"text":${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}}` };
    }
    if (roll < 0.72) {
      const bytes = this.pick([
        [0xff, 0xfe],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xe2, 0x82],
      ]);
      labels.push(`invalid UTF-8 ${bytes.map((b) => b.toString(16)).join(' ')}`);
      const text = JSON.stringify(valid);
      const cut = Math.max(2, text.indexOf('"', 2) + 1);
      return { body: Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from(bytes), Buffer.from(text.slice(cut))]) };
    }
    if (roll < 0.8) {
      const raw = this.pick(['', 'null', '[]', '42', '"text"', '{', '{"text":', '{"text":"a"}}', 'not json', '{"text":"\\ud800"}', '{"text":"\\u0000"}', '{"a":1,"a":2}']);
      labels.push(`raw body ${JSON.stringify(raw)}`);
      return { body: raw };
    }
    if (roll < 0.88) {
      headers['content-type'] = this.pick(CONTENT_TYPES);
      labels.push(`content-type ${headers['content-type']}`);
      return { body: this.chance(0.5) ? JSON.stringify(valid) : 'text=hello&__proto__[x]=1&constructor[prototype][y]=2' };
    }
    if (roll < 0.9) {
      labels.push('body over the size limit');
      return { body: JSON.stringify({ ...(valid as object), text: 'x'.repeat(1_100_000) }) };
    }
    return { body: JSON.stringify(valid) };
  }
}

/** What no answer may contain: a stack trace, a source path, or a database's or driver's own words. */
const LEAKS: [string, RegExp][] = [
  ['stack trace', /\bat [\w.<>$]+ \([^)]*:\d+:\d+\)|\bat \/[^\s]+:\d+:\d+/],
  ['source path', /node_modules|\/src\/|\.ts:\d+/],
  ['driver', /Prisma|DriverAdapter|pglite|SQLSTATE|pg-protocol/i],
  ['SQL error', /syntax error at|invalid input syntax|violates|out of range for type|relation "|column "|duplicate key|invalid byte sequence|date\/time field value|unterminated/i],
];

/** The problems of one answer (empty when it is fine). */
export function answerProblems(status: number, body: string): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`status ${status}`);
  for (const [what, pattern] of LEAKS) {
    const match = pattern.exec(body);
    if (match) problems.push(`${what}: …${body.slice(Math.max(0, match.index - 40), match.index + 80)}…`);
  }
  return problems;
}
