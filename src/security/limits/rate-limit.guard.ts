import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type GqlContextType, GqlExecutionContext } from '@nestjs/graphql';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request } from 'express';
import { AppConfig } from '../../config';
import { LimitExceeded, say } from '../../common';
import type { RequestWithAuth } from '../auth-context';
import { callerOf } from './caller';

export const RATE_WINDOW_MS = 60_000;

type LimitedRequest = Request & RequestWithAuth & { [COUNTED]?: true };
const COUNTED = Symbol('helix.rateCounted');

const VARIABLES = { key: 'HELIX_RATE_LIMIT_PER_KEY', ip: 'HELIX_RATE_LIMIT_PER_IP' } as const;

/**
 * Requests per minute, per API key (HELIX_RATE_LIMIT_PER_KEY) or, for callers without one, per
 * client address (HELIX_RATE_LIMIT_PER_IP), over every route together: one window per caller,
 * not per route. It runs after ApiKeyGuard, which tells who the caller is. A request counts
 * once, however many guarded handlers it reaches (a GraphQL operation's root fields); an event
 * stream counts once, when it connects. Health and metrics are @SkipThrottle().
 * Beyond the limit: 429 with `Retry-After` (seconds) until the caller's block ends.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly config: AppConfig,
  ) {
    super(options, storage, reflector);
  }

  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const request = this.getRequestResponse(props.context).req as LimitedRequest;
    if (request[COUNTED]) return true;
    request[COUNTED] = true;
    const caller = callerOf(request, this.config);
    const limit = caller.kind === 'key' ? this.config.HELIX_RATE_LIMIT_PER_KEY : this.config.HELIX_RATE_LIMIT_PER_IP;
    if (limit === 0) return true;
    return super.handleRequest({ ...props, limit, getTracker: () => caller.id, generateKey: (_context, tracker) => tracker });
  }

  protected override getRequestResponse(context: ExecutionContext): { req: Record<string, any>; res: Record<string, any> } {
    if (context.getType<GqlContextType>() !== 'graphql') return super.getRequestResponse(context);
    const req = GqlExecutionContext.create(context).getContext<{ req: Request }>().req;
    return { req, res: req.res as Record<string, any> };
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const variable = detail.tracker.startsWith('key:') ? VARIABLES.key : VARIABLES.ip;
    const text = variable === VARIABLES.key ? 'limit.rate_key' : 'limit.rate_address';
    throw new LimitExceeded(variable, say(text, { limit: detail.limit, seconds: detail.timeToBlockExpire }), detail.timeToBlockExpire);
  }
}
