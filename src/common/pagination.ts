import { BadRequestException } from '@nestjs/common';
import { isStorableText } from './storable-text';

/** Opaque keyset cursor over (createdAt desc, id desc). */
export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`).toString('base64url');
}

export function decodeCursor(value: string, field = 'cursor'): Cursor {
  const [iso, id] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  if (!id || !isStorableText(id) || Number.isNaN(createdAt.getTime())) throw new BadRequestException(`${field} is not a valid cursor`);
  return { createdAt, id };
}

/** A keyset page read as `limit + 1` rows: the first `limit`, and the next page's cursor when there were more. */
export function keysetPage<T>(rows: T[], limit: number, cursorOf: (item: T) => string): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
