import { randomBytes } from 'node:crypto';

/**
 * Sortable, URL-safe ids with a readable prefix (`conv_…`, `run_…`, `msg_…`): 10 characters of
 * millisecond time then 16 of randomness, so ids created later sort later.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newId(prefix: string): string {
  let time = Date.now();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = ALPHABET[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const bytes = randomBytes(16);
  let tail = '';
  for (const byte of bytes) tail += ALPHABET[byte % 32];
  return `${prefix}_${head}${tail}`;
}

/** Drops keys whose value is undefined (DTO instances declare every optional field). */
export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
