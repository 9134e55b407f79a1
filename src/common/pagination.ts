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
