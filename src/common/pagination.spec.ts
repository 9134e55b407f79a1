import { BadRequestException } from '@nestjs/common';
import { decodeCursor, encodeCursor } from './pagination';

const raw = (text: string) => Buffer.from(text).toString('base64url');

describe('keyset cursors', () => {
  it('round-trips what encodeCursor made', () => {
    const cursor = { createdAt: new Date('2026-12-02T07:00:00.123Z'), id: 'conv_01abc' };
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
  });

  it.each([
    ['a year past 9999', raw('+275760-09-13T00:00:00.000Z|conv_x')],
    ['a negative year', raw('-000001-01-01T00:00:00.000Z|conv_x')],
    ['year 0', raw('0000-01-01T00:00:00.000Z|conv_x')],
    ['not a date', raw('yesterday|conv_x')],
    ['a NUL in the id', raw('2026-01-01T00:00:00.000Z|conv\u0000x')],
    ['no id', raw('2026-01-01T00:00:00.000Z|')],
    ['an extra part', raw('2026-01-01T00:00:00.000Z|a|b')],
    ['a huge id', raw(`2026-01-01T00:00:00.000Z|${'x'.repeat(500)}`)],
    ['not base64', '!!!'],
  ])('%s is a 400 naming the field', (_name, value) => {
    expect(() => decodeCursor(value, 'after')).toThrow(new BadRequestException('after is not a valid cursor'));
  });
});
