import { HttpException, Logger } from '@nestjs/common';
import { unwrapResolverError } from '@apollo/server/errors';
import type { GraphQLFormattedError } from 'graphql';
import type { Plugin } from './graphql-limits';

/** HTTP statuses of Nest exceptions, as the GraphQL error codes clients switch on. */
const CODES: Record<number, string> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'BAD_USER_INPUT',
  429: 'TOO_MANY_REQUESTS',
};

/** Errors Apollo raises itself (parse, validation, bad variables): their messages are for clients. */
const CLIENT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
]);

const logger = new Logger('GraphQL');

/**
 * Every GraphQL error leaves with a code a client can switch on (`NOT_FOUND`, `BAD_USER_INPUT`,
 * `FORBIDDEN`, `UNAUTHENTICATED`, `CONFLICT`, …) and a message meant for it. A Nest
 * HttpException keeps its message (a 400 names the field) and gets its status as `extensions.status`;
 * anything unexpected is logged with its stack and answered as a bare internal error, so no
 * stack trace or driver message ever reaches a client.
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  const base = { locations: formatted.locations, path: formatted.path };
  if (original instanceof HttpException) {
    const status = original.getStatus();
    return { ...base, message: httpMessage(original), extensions: { code: CODES[status] ?? 'INTERNAL_SERVER_ERROR', status } };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && (CLIENT_CODES.has(code) || code === 'UNAUTHENTICATED' || code === 'FORBIDDEN')) {
    return { ...base, message: formatted.message, extensions: { code } };
  }
  // an error about the request itself, before any resolver ran (e.g. a variable of the wrong
  // type, which Apollo codes as an internal error): the client's to fix
  if (isRequestError(error) && !formatted.path) {
    return { ...base, message: formatted.message, extensions: { code: 'BAD_USER_INPUT' } };
  }
  logger.error(original instanceof Error ? (original.stack ?? original.message) : String(original));
  return { ...base, message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

function httpMessage(exception: HttpException): string {
  const body = exception.getResponse();
  const raw = typeof body === 'string' ? body : (body as { message?: unknown }).message;
  return Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
}

/**
 * A GraphQLError (by name, not `instanceof`: Apollo's ESM build and this CommonJS code load two
 * copies of `graphql`); without a path it was raised before any field ran.
 */
function isRequestError(error: unknown): boolean {
  return error instanceof Error && error.name === 'GraphQLError';
}

/**
 * Apollo answers HTTP 500 to a request error it does not recognise as one (a variable of the
 * wrong type: see isRequestError). Once formatGraphQLError has found every error to be the
 * client's, the status says so too: 400, as for any other bad request.
 */
export function clientErrorStatus(): Plugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.http.status !== 500 || response.body.kind !== 'single') return;
          const { data, errors } = response.body.singleResult;
          if (data !== undefined && data !== null) return;
          if (errors?.length && errors.every((error) => error.extensions?.code !== 'INTERNAL_SERVER_ERROR')) response.http.status = 400;
        },
      };
    },
  };
}
