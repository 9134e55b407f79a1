import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SecretService } from './secret.service';

/** How long a stream token returned with a run stays valid. */
export const STREAM_TOKEN_TTL_MS = 60 * 60 * 1000;

/**
 * Short-lived signed tokens that let a browser EventSource (which cannot set headers) read one
 * run's events: `<expiry ms base36>.<HMAC-SHA256(runId|expiry)>`. Never the API key in a URL.
 */
@Injectable()
export class StreamTokenService {
  private key?: Buffer;

  constructor(private readonly secrets: SecretService) {}

  issue(runId: string, now = Date.now()): string {
    const expiry = (now + STREAM_TOKEN_TTL_MS).toString(36);
    return `${expiry}.${this.sign(runId, expiry)}`;
  }

  verify(runId: string, token: string, now = Date.now()): boolean {
    const [expiry, signature] = token.split('.');
    if (!expiry || !signature || Number.parseInt(expiry, 36) < now) return false;
    const expected = Buffer.from(this.sign(runId, expiry));
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private sign(runId: string, expiry: string): string {
    this.key ??= this.secrets.deriveKey('stream-token');
    return createHmac('sha256', this.key).update(`${runId}|${expiry}`).digest('base64url');
  }
}
