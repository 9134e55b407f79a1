import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppConfig } from '../config';
import { SecretService } from './secret.service';

/** What a valid stream token grants: the events of this run of this workspace. */
export interface StreamGrant {
  runId: string;
  workspaceId: string;
}

/**
 * Short-lived signed tokens that let a browser EventSource (which cannot set headers) read one
 * run's events, never the API key in a URL: `<expiry, ms base36>.<workspace id, base64url>.
 * <HMAC-SHA256(runId, workspaceId, expiry)>`, keyed by a key derived from the master key (so
 * every instance of a deployment verifies what another issued). The run id is not in the token:
 * it is the URL's, and signed, so a token works on its own run only.
 */
@Injectable()
export class StreamTokenService {
  private key?: Buffer;
  private readonly ttlMs: number;

  constructor(
    private readonly secrets: SecretService,
    config: AppConfig,
  ) {
    this.ttlMs = config.HELIX_STREAM_TOKEN_TTL_SECONDS * 1000;
  }

  issue(grant: StreamGrant, now = Date.now()): string {
    const expiry = (now + this.ttlMs).toString(36);
    const workspace = Buffer.from(grant.workspaceId, 'utf8').toString('base64url');
    return `${expiry}.${workspace}.${this.sign(grant.runId, grant.workspaceId, expiry).toString('base64url')}`;
  }

  /** The grant of a token for `runId`; undefined when it is malformed, tampered with, for another run or expired. */
  verify(runId: string, token: string, now = Date.now()): StreamGrant | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [expiry, workspace, signature] = parts;
    if (!/^[0-9a-z]{1,12}$/.test(expiry) || Number.parseInt(expiry, 36) <= now) return undefined;
    const workspaceId = Buffer.from(workspace, 'base64url').toString('utf8');
    const expected = this.sign(runId, workspaceId, expiry);
    const given = Buffer.from(signature, 'base64url');
    // equal lengths first: timingSafeEqual throws on different ones (the length is no secret)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return { runId, workspaceId };
  }

  private sign(runId: string, workspaceId: string, expiry: string): Buffer {
    this.key ??= this.secrets.deriveKey('stream-token');
    // lengths first, so no two different (runId, workspaceId) pairs sign the same bytes
    return createHmac('sha256', this.key).update(`${runId.length}:${runId}|${workspaceId.length}:${workspaceId}|${expiry}`).digest();
  }
}
