import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config';
import { LimitExceeded, say } from '../../common';

export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Addresses remembered at most (the oldest forgotten first): a flood of spoofed sources costs bounded memory. */
const MAX_ADDRESSES = 10_000;

/**
 * Failed authentications per client address (HELIX_AUTH_FAILURES_PER_MINUTE): once an address has
 * failed that many times within a minute, every request from it is a 429 with `Retry-After` until
 * its oldest failure leaves the window, a valid credential included (else the block would not
 * slow guessing: a right guess would still stand out). Successes count nothing. Counted in this
 * process (each instance of a cluster limits on its own).
 */
@Injectable()
export class AuthFailureLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly limit: number;
  /** the clock (tests move it) */
  now: () => number = Date.now;

  constructor(config: AppConfig) {
    this.limit = config.HELIX_AUTH_FAILURES_PER_MINUTE;
  }

  /** Throws the 429 when `address` has failed too often within the window. */
  check(address: string): void {
    if (this.limit === 0) return;
    const recent = this.recent(address);
    if (recent.length < this.limit) return;
    const seconds = Math.max(1, Math.ceil((recent[0] + AUTH_FAILURE_WINDOW_MS - this.now()) / 1000));
    throw new LimitExceeded('HELIX_AUTH_FAILURES_PER_MINUTE', say('limit.auth_failures', { limit: this.limit, seconds }), seconds);
  }

  /** Counts one failed authentication from `address`. */
  fail(address: string): void {
    if (this.limit === 0) return;
    const recent = this.recent(address);
    recent.push(this.now());
    this.failures.delete(address); // re-inserted last: Map order is then least recently failed first
    this.failures.set(address, recent.slice(-this.limit));
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value as string);
  }

  private recent(address: string): number[] {
    const since = this.now() - AUTH_FAILURE_WINDOW_MS;
    const recent = (this.failures.get(address) ?? []).filter((at) => at > since);
    if (!recent.length) this.failures.delete(address);
    return recent;
  }
}
