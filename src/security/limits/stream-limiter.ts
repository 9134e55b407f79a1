import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig } from '../../config';
import { LimitExceeded, say } from '../../common';
import type { RequestWithAuth } from '../auth-context';
import { callerOf } from './caller';

/**
 * Open event streams per API key (or per client address without one), HELIX_MAX_SSE_PER_KEY:
 * each holds a socket and a subscription for as long as the client likes, so one caller cannot
 * hold them all. Counted in this process (each instance enforces the limit on its own streams).
 */
@Injectable()
export class StreamLimiter {
  private readonly open = new Map<string, number>();

  constructor(private readonly config: AppConfig) {}

  /** Counts a stream about to be opened on `response` (429 beyond the limit); it is released when the response closes. */
  admit(request: Request & RequestWithAuth, response: Response): void {
    const max = this.config.HELIX_MAX_SSE_PER_KEY;
    if (max === 0) return;
    const { id, kind } = callerOf(request, this.config);
    const count = this.open.get(id) ?? 0;
    if (count >= max) {
      throw new LimitExceeded('HELIX_MAX_SSE_PER_KEY', say(kind === 'key' ? 'limit.streams_key' : 'limit.streams_address', { count }), 1);
    }
    this.open.set(id, count + 1);
    response.once('close', () => {
      const left = (this.open.get(id) ?? 1) - 1;
      if (left > 0) this.open.set(id, left);
      else this.open.delete(id);
    });
  }
}
