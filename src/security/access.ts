import { BadRequestException, CanActivate, ExecutionContext, Injectable, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';
import type { Request } from 'express';
import { isStorableText, say, type TextKey } from '../common';
import { type AuthContext, isBootstrap, type RequestWithAuth, requestOf } from './auth-context';

/**
 * The kinds of resource an id in a path or a GraphQL argument can name, each with the text of
 * its 404 (common's catalogue). A module that owns a new kind adds it here, registers its owner
 * lookup (AccessService.register) and marks its routes with @Access(kind).
 */
export const RESOURCE_NOT_FOUND = {
  conversation: 'conversation.not_found',
  run: 'run.not_found',
  approval: 'approval.not_found',
  knowledgeBase: 'knowledge_base.not_found',
  document: 'document.not_found',
  chunk: 'chunk.not_found',
  job: 'job.not_found',
  file: 'file.not_found',
} as const satisfies Record<string, TextKey>;
export type ResourceKind = keyof typeof RESOURCE_NOT_FOUND;

/** The workspace owning the resource `id`, or undefined when there is none (or it was deleted). */
export type OwnerLookup = (id: string) => Promise<string | undefined>;

export interface OwnerLookupOptions {
  /**
   * The owners found may be remembered: the resource never changes workspace, and every
   * handler of its routes reads it scoped to the caller's workspace and not deleted, so that
   * read (not this check) answers 404 for one deleted since. Not for a kind some handler serves
   * without such a read (a run's event stream).
   */
  rememberOwners?: boolean;
}

/** Owners remembered per kind; beyond this the oldest are forgotten (a lookup finds them again). */
export const REMEMBERED_OWNERS = 10_000;

/**
 * Where a check happens. On the chat API (`api`) everyone acts in its own workspace; on the admin
 * API (`admin`) the bootstrap admin acts in every workspace.
 */
export type AccessSurface = 'api' | 'admin';

/**
 * The one access check: does the resource `id` of this kind belong to the caller's workspace?
 * Otherwise 404, exactly as for an id that never existed (never 403: ids are not confirmed).
 * A stream token reaches its own run only.
 */
@Injectable()
export class AccessService {
  private readonly owners = new Map<ResourceKind, OwnerLookup>();
  /** id → workspace, for the kinds registered with `rememberOwners` */
  private readonly remembered = new Map<ResourceKind, Map<string, string>>();

  /** Called once by the module owning `kind` (at module init), with a lookup from its repository. */
  register(kind: ResourceKind, lookup: OwnerLookup, options: OwnerLookupOptions = {}): void {
    if (this.owners.has(kind)) throw new Error(`An owner lookup for ${kind} is already registered`);
    this.owners.set(kind, lookup);
    if (options.rememberOwners) this.remembered.set(kind, new Map());
  }

  /**
   * The owner of a resource just created, for a kind registered with `rememberOwners`: its
   * first request (a chat's first message) then costs no lookup. Ignored for other kinds.
   */
  remember(kind: ResourceKind, id: string, workspaceId: string): void {
    const owners = this.remembered.get(kind);
    if (!owners || owners.has(id)) return;
    if (owners.size >= REMEMBERED_OWNERS) owners.delete(owners.keys().next().value as string);
    owners.set(id, workspaceId);
  }

  /** Resolves with the owning workspace when the caller may act on the resource; 404 otherwise. */
  async require(auth: AuthContext, kind: ResourceKind, id: string, surface: AccessSurface = 'api'): Promise<string> {
    const lookup = this.owners.get(kind);
    if (!lookup) throw new Error(`No owner lookup is registered for ${kind}`);
    const notFound = () => new NotFoundException(say(RESOURCE_NOT_FOUND[kind], { id }));
    if (auth.kind === 'stream' && (kind !== 'run' || id !== auth.runId)) throw notFound();
    const owner = this.remembered.get(kind)?.get(id) ?? (await lookup(id));
    if (owner === undefined) throw notFound();
    this.remember(kind, id, owner);
    if (owner !== auth.workspaceId && !(surface === 'admin' && isBootstrap(auth))) throw notFound();
    return owner;
  }
}

interface AccessRule {
  kind: ResourceKind;
  /** the path parameter (REST) or argument (GraphQL) holding the id */
  param: string;
}

export const ACCESS_RULES = 'helix:access';

/**
 * The route or resolver acts on the resource named by `param` (default `id`): AccessGuard checks
 * it before the handler runs. Stack several for nested ids (a run and one of its approvals).
 */
export function Access(kind: ResourceKind, param = 'id'): MethodDecorator {
  return (target, key, descriptor) => {
    const handler = descriptor.value as object;
    const rules = (Reflect.getMetadata(ACCESS_RULES, handler) as AccessRule[] | undefined) ?? [];
    // decorators apply bottom-up: prepending keeps the rules in the order they are written
    Reflect.defineMetadata(ACCESS_RULES, [{ kind, param }, ...rules], handler);
    return descriptor;
  };
}

/**
 * Runs after ApiKeyGuard on every REST route and GraphQL resolver: each @Access rule of the
 * handler goes through AccessService. A stream token authenticates only a handler that checks
 * its run, so it can never be used where nothing checks it.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: AccessService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const type = context.getType<GqlContextType>();
    if (type !== 'http' && type !== 'graphql') return true;
    const auth = requestOf<RequestWithAuth>(context).auth;
    if (!auth) return true; // a @Public() route
    const rules = this.reflector.get<AccessRule[] | undefined>(ACCESS_RULES, context.getHandler()) ?? [];
    const values: Record<string, unknown> =
      type === 'graphql' ? GqlExecutionContext.create(context).getArgs() : (context.switchToHttp().getRequest<Request>().params ?? {});
    let streamRunChecked = false;
    for (const { kind, param } of rules) {
      const id = values[param];
      if (id === undefined || id === null) continue; // an optional GraphQL argument left out
      // guards run before pipes: an id the database cannot even compare is refused here
      if (typeof id !== 'string' || !isStorableText(id)) throw new BadRequestException(say('validation.storable', { field: param }));
      await this.access.require(auth, kind, id, type === 'graphql' ? 'admin' : 'api');
      if (kind === 'run') streamRunChecked = true;
    }
    if (auth.kind === 'stream' && !streamRunChecked) throw new NotFoundException(say('http.not_found'));
    return true;
  }
}
