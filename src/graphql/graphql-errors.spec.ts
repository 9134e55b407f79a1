import { BadRequestException, ConflictException, Logger, NotFoundException } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import { formatGraphQLError } from './graphql-errors';

const located = { message: 'raw', path: ['run'], locations: [{ line: 1, column: 3 }] };
const fromResolver = (original: Error) => new GraphQLError(original.message, { path: ['run'], originalError: original });

describe('formatGraphQLError', () => {
  it('gives Nest exceptions the codes clients switch on, keeping their message', () => {
    expect(formatGraphQLError(located, fromResolver(new BadRequestException('first must be between 1 and 100')))).toEqual({
      ...located,
      message: 'first must be between 1 and 100',
      extensions: { code: 'BAD_USER_INPUT', status: 400 },
    });
    expect(formatGraphQLError(located, fromResolver(new NotFoundException('Run r not found'))).extensions).toEqual({ code: 'NOT_FOUND', status: 404 });
    expect(formatGraphQLError(located, fromResolver(new ConflictException('Run is SUCCEEDED'))).extensions).toEqual({ code: 'CONFLICT', status: 409 });
  });

  it('hides unexpected errors behind a bare internal error, and logs them', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const formatted = formatGraphQLError(located, fromResolver(new TypeError("Cannot read properties of undefined (reading 'x')")));
    expect(formatted).toEqual({ ...located, message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(String(logged.mock.calls[0][0])).toContain("reading 'x'");
    logged.mockRestore();
  });

  it('treats errors raised before any field ran as the client’s, and keeps GraphQL’s own codes', () => {
    const variable = new GraphQLError('Variable "$id" got invalid value', { originalError: new TypeError('ID cannot represent value') });
    expect(formatGraphQLError({ message: variable.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }, variable)).toEqual({
      message: 'Variable "$id" got invalid value',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const invalid = new GraphQLError('Cannot query field "x"');
    expect(formatGraphQLError({ message: invalid.message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }, invalid).extensions).toEqual({
      code: 'GRAPHQL_VALIDATION_FAILED',
    });
  });
});
