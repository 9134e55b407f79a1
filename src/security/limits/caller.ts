import type { Request } from 'express';
import type { AppConfig } from '../../config';
import type { RequestWithAuth } from '../auth-context';
import { clientAddress } from '../api-key.guard';

/** Whom a request's limits count against: its API key, or its client address when it has none. */
export interface Caller {
  /** `key:<api key id>`, `key:bootstrap` (HELIX_API_TOKEN) or `ip:<address>` */
  id: string;
  kind: 'key' | 'ip';
}

/**
 * Open mode and stream tokens carry no key of their own, so they count by address (in open mode
 * every caller is local: one address). Runs after ApiKeyGuard has set `request.auth`.
 */
export function callerOf(request: Request & RequestWithAuth, config: AppConfig): Caller {
  const auth = request.auth;
  if (auth?.kind === 'key') return { id: `key:${auth.keyId}`, kind: 'key' };
  if (auth?.kind === 'bootstrap' && config.HELIX_API_TOKEN) return { id: 'key:bootstrap', kind: 'key' };
  return { id: `ip:${clientAddress(request)}`, kind: 'ip' };
}
