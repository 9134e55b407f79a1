import { CanActivate, ExecutionContext, ForbiddenException, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import type { GqlContextType } from '@nestjs/graphql';
import { Reflector } from '@nestjs/core';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppConfig } from '../config';
import { ApiKeyRepository } from './api-key.repository';
import { ALLOWS_STREAM_TOKEN, type AuthContext, bootstrapAuth, type RequestWithAuth, requestOf } from './auth-context';
import { IS_PUBLIC, say } from '../common';
import { StreamTokenService } from './stream-token.service';
import { AuthFailureLimiter } from './limits/auth-failures';

export const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** last_used_at is written at most this often per key (and instance): a busy key costs no write per request. */
export const LAST_USED_INTERVAL_MS = 60_000;

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(request: Request): string | undefined {
  return request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

/** The client's address: the socket's, or X-Forwarded-For's as HELIX_TRUST_PROXY lets Express believe it. */
export function clientAddress(request: Request): string {
  return request.ip ?? request.socket?.remoteAddress ?? 'unknown';
}

function presentedToken(request: Request): string | undefined {
  const header = request.headers['x-api-token'];
  if (typeof header === 'string' && header) return header;
  return bearerToken(request);
}

/**
 * Authenticates every route except @Public() ones. With HELIX_API_TOKEN set, callers present it
 * (or an API key from the api_keys table) as `X-API-Token` or `Authorization: Bearer`. With no
 * token configured Helix runs open (main.ts then binds to loopback only) as the default admin.
 * Keys are looked up by their SHA-256 on every request, so a revocation or an expiry holds at
 * once on every instance; what the caller may touch is AccessGuard's business (access.ts).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly logger = new Logger('ApiKeyGuard');
  private readonly bootstrapHash?: Buffer;
  /** when this instance last wrote each key's last_used_at */
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(
    private readonly reflector: Reflector,
    config: AppConfig,
    private readonly apiKeys: ApiKeyRepository,
    private readonly streamTokens: StreamTokenService,
    private readonly failures: AuthFailureLimiter,
  ) {
    if (config.HELIX_API_TOKEN) this.bootstrapHash = sha256(config.HELIX_API_TOKEN);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType<GqlContextType>() === 'graphql') return this.admitAdmin(requestOf<Request & RequestWithAuth>(context));
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<Request & RequestWithAuth>();
    const streamToken = typeof request.query.token === 'string' ? request.query.token : undefined;
    const runId = typeof request.params?.id === 'string' ? request.params.id : undefined;
    if (streamToken && runId && !presentedToken(request) && this.reflector.get<boolean>(ALLOWS_STREAM_TOKEN, context.getHandler())) {
      this.failures.check(clientAddress(request));
      const grant = this.streamTokens.verify(runId, streamToken);
      if (!grant) this.refuse(request, 'auth.invalid_stream_token');
      request.auth = { kind: 'stream', workspaceId: grant.workspaceId, runId: grant.runId, role: 'member' };
      return true;
    }
    request.auth = await this.authenticate(request);
    return true;
  }

  /**
   * The admin GraphQL API: an admin key only (a member's key gets FORBIDDEN, no data). One
   * operation runs this for each of its root fields, so the request remembers who it is.
   */
  private async admitAdmin(request: Request & RequestWithAuth): Promise<boolean> {
    request.auth ??= await this.authenticate(request);
    if (request.auth.role !== 'admin') throw new ForbiddenException(say('auth.admin_only'));
    return true;
  }

  /**
   * Who presents the request's API token; 401 without a valid one (when a token is configured),
   * 429 once its address has failed too often (AuthFailureLimiter).
   */
  async authenticate(request: Request): Promise<AuthContext> {
    if (!this.bootstrapHash) return bootstrapAuth('open');
    this.failures.check(clientAddress(request));
    const token = presentedToken(request);
    if (!token) this.refuse(request, 'auth.missing_token');
    // digests of equal length, compared in constant time; keys are found by their digest alone
    const hash = sha256(token);
    if (timingSafeEqual(hash, this.bootstrapHash)) return bootstrapAuth('token');
    const key = await this.apiKeys.findByHash(hash.toString('hex'));
    if (!key || key.revokedAt) this.refuse(request, 'auth.invalid_token');
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) this.refuse(request, 'auth.key_expired');
    this.noteUse(key.id);
    return { kind: 'key', workspaceId: key.workspaceId, role: key.role, keyId: key.id };
  }

  /** A 401, counted against the request's address. */
  private refuse(request: Request, text: 'auth.missing_token' | 'auth.invalid_token' | 'auth.key_expired' | 'auth.invalid_stream_token'): never {
    this.failures.fail(clientAddress(request));
    throw new UnauthorizedException(say(text));
  }

  /** Records the key's use, at most once a minute, without holding up the request. */
  private noteUse(keyId: string, now = Date.now()): void {
    const last = this.lastUsedWrites.get(keyId);
    if (last !== undefined && now - last < LAST_USED_INTERVAL_MS) return;
    this.lastUsedWrites.set(keyId, now);
    this.apiKeys.touch(keyId, LAST_USED_INTERVAL_MS).catch((error: unknown) => {
      this.lastUsedWrites.delete(keyId);
      this.logger.warn(`Could not record the use of API key ${keyId}: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
