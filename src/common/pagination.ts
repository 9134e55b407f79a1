import { BadRequestException } from '@nestjs/common';
import { isStorableText } from './storable-text';
import { say } from './i18n/catalogue';

/** Opaque keyset cursor over (createdAt desc, id desc). */
export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`).toString('base64url');
}

/** The largest value of a PostgreSQL `integer` (seq columns): a larger `after` would fail in SQL. */
export const MAX_INT4 = 2_147_483_647;

/**
 * A cursor is only ever made by `encodeCursor`, so anything that does not decode to a date
 * PostgreSQL can compare (years 1–9999) and a short storable id is a client's mistake: a 400
 * naming the field, never a database error.
 */
export function decodeCursor(value: string, field = 'cursor'): Cursor {
  const [iso, id, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  const year = createdAt.getUTCFullYear();
  if (!id || rest.length || id.length > 200 || !isStorableText(id) || Number.isNaN(year) || year < 1 || year > 9999) {
    throw new BadRequestException(say('validation.bad_cursor', { field }));
  }
  return { createdAt, id };
}

/** A keyset page read as `limit + 1` rows: the first `limit`, and the next page's cursor when there were more. */
export function keysetPage<T>(rows: T[], limit: number, cursorOf: (item: T) => string): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
