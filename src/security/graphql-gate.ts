import { HttpException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { type DocumentNode, parse, visit } from 'graphql';
import { LimitExceeded, say } from '../common';
import type { ApiKeyGuard } from './api-key.guard';
import type { RequestWithAuth } from './auth-context';

/** GraphQL codes of the statuses the gate answers with (as graphql-errors.ts maps them). */
const CODES: Record<number, string> = { 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 429: 'TOO_MANY_REQUESTS' };

/**
 * Authenticates every GraphQL operation before Apollo sees it: a request without a valid
 * credential gets HTTP 401 (not Apollo's 200 with an UNAUTHENTICATED error), and introspection
 * (`__schema`, `__type`), which no resolver guards, needs an admin key whenever keys are configured.
 * Its answers have the GraphQL error shape. GraphiQL's page (a GET without a query) stays public.
 */
export function graphqlGate(guard: Pick<ApiKeyGuard, 'authenticate'>) {
  return async (request: Request & RequestWithAuth, response: Response, next: NextFunction): Promise<void> => {
    const query = operationText(request);
    if (query === undefined) return next();
    try {
      request.auth ??= await guard.authenticate(request);
      if (request.auth.role !== 'admin' && asksForSchema(query)) throw new HttpException(say('auth.admin_only'), 403);
      next();
    } catch (error) {
      if (!(error instanceof HttpException)) return next(error);
      const status = error.getStatus();
      if (error instanceof LimitExceeded && error.retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(error.retryAfterSeconds));
      response.status(status).json({ errors: [{ message: error.message, extensions: { code: CODES[status] ?? 'BAD_REQUEST', status } }] });
    }
  };
}

/** The query a request carries (POST body or GET parameter); undefined for GraphiQL's page and preflights. */
function operationText(request: Request): string | undefined {
  if (request.method === 'POST') {
    const body: unknown = request.body;
    if (Array.isArray(body)) return body.map((op) => queryOf(op)).join('\n');
    return queryOf(body);
  }
  if (request.method === 'GET' && typeof request.query.query === 'string') return request.query.query;
  return undefined;
}

const queryOf = (operation: unknown): string =>
  typeof operation === 'object' && operation !== null && 'query' in operation && typeof operation.query === 'string' ? operation.query : '';

/** Whether a query selects `__schema` or `__type` (`__typename` reveals nothing). Unparsable: Apollo's 400. */
function asksForSchema(query: string): boolean {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return false;
  }
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') found = true;
    },
  });
  return found;
}
