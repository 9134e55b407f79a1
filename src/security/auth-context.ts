import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';

export type Role = 'admin' | 'member';

/** Who is calling: every service method takes this first and scopes its queries to the workspace. */
export interface AuthContext {
  workspaceId: string;
  role: Role;
  /** the API key used; absent for the bootstrap token and for open (no-key) mode */
  keyId?: string;
  /** HELIX_API_TOKEN or open mode: an admin of every workspace, not only its own */
  bootstrap?: true;
  /** set when a signed stream token (not an API key) authenticated the request: this run only */
  streamRunId?: string;
}

/** The workspace seeded at start-up; the bootstrap token and open mode act in it. */
export const DEFAULT_WORKSPACE_ID = 'ws_default';

export interface RequestWithAuth {
  auth?: AuthContext;
}

/** The HTTP request behind a REST route or a GraphQL resolver. */
export function requestOf<T>(ctx: ExecutionContext): T {
  return ctx.getType<GqlContextType>() === 'graphql'
    ? GqlExecutionContext.create(ctx).getContext<{ req: T }>().req
    : ctx.switchToHttp().getRequest<T>();
}

export const Auth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const auth = requestOf<RequestWithAuth>(ctx).auth;
  if (!auth) throw new Error('Auth() used on a route the ApiKeyGuard did not authenticate');
  return auth;
});

export const IS_PUBLIC = 'helix:public';
/** Marks a route that needs no credentials (health checks). */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const ALLOWS_STREAM_TOKEN = 'helix:stream-token';
/** The route also accepts `?token=<stream token>` for the run named by its `:id` parameter. */
export const AllowStreamToken = () => SetMetadata(ALLOWS_STREAM_TOKEN, true);
