import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';

export type Role = 'admin' | 'member';

/** The workspace seeded at start-up; the bootstrap token and open mode act in it. */
export const DEFAULT_WORKSPACE_ID = 'ws_default';

/** An API key from the api_keys table: its workspace and role, nothing more. */
export interface KeyAuth {
  kind: 'key';
  workspaceId: string;
  role: Role;
  keyId: string;
}

/**
 * HELIX_API_TOKEN (`via: 'token'`) or open mode, no token configured and loopback only
 * (`via: 'open'`): the admin of the default workspace on the chat API, of every workspace on the
 * admin API.
 */
export interface BootstrapAuth {
  kind: 'bootstrap';
  workspaceId: string;
  role: 'admin';
  via: 'token' | 'open';
}

/** A signed stream token (`?token=`): reads the events of one run of one workspace, nothing else. */
export interface StreamAuth {
  kind: 'stream';
  workspaceId: string;
  runId: string;
  role: 'member';
}

/** Who is calling: every service method takes this first and scopes its queries to the workspace. */
export type AuthContext = KeyAuth | BootstrapAuth | StreamAuth;

export const isBootstrap = (auth: AuthContext): auth is BootstrapAuth => auth.kind === 'bootstrap';

export const bootstrapAuth = (via: BootstrapAuth['via']): BootstrapAuth => ({ kind: 'bootstrap', workspaceId: DEFAULT_WORKSPACE_ID, role: 'admin', via });

/** Who acted, as audit rows, version history and decided approvals record it. */
export const actorOf = (auth: AuthContext): string => (auth.kind === 'key' ? auth.keyId : auth.kind === 'stream' ? `stream:${auth.runId}` : 'bootstrap');

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

export const ALLOWS_STREAM_TOKEN = 'helix:stream-token';
/** The route also accepts `?token=<stream token>` for the run named by its `:id` parameter. */
export const AllowStreamToken = () => SetMetadata(ALLOWS_STREAM_TOKEN, true);
