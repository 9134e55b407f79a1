import { BadRequestException } from '@nestjs/common';
import { isStorableText } from './storable-text';

/**
 * A scalar argument checked where no DTO class can (GraphQL `String!` arguments): trimmed,
 * not empty, at most `max` characters, storable, optionally matching `pattern`. A 400 names `field`.
 */
export function textArg(field: string, value: string, max: number, pattern?: { test: RegExp; says: string }): string {
  const trimmed = value.trim();
  if (!trimmed) throw new BadRequestException(`${field} must not be empty`);
  if (trimmed.length > max) throw new BadRequestException(`${field} must be at most ${max} characters`);
  if (!isStorableText(trimmed)) throw new BadRequestException(`${field} must not contain NUL or unpaired surrogate characters`);
  if (pattern && !pattern.test.test(trimmed)) throw new BadRequestException(`${field} ${pattern.says}`);
  return trimmed;
}
