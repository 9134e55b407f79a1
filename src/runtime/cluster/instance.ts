import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * This Helix process among the instances that share a database: the owner name of the leases
 * it takes, and the address other instances send it commands at.
 * `host:pid:nonce`, so that a restart on the same host can tell its dead predecessor's leases.
 */
@Injectable()
export class Instance {
  readonly host = hostname();
  readonly id = `${this.host}:${process.pid}:${randomBytes(4).toString('hex')}`;

  /**
   * True for a lease owner that was an earlier process on this host and is gone (this very pid
   * with another nonce: a container restarted; or a pid that no longer exists).
   */
  isDeadPredecessor(owner: string): boolean {
    const [host, pid, nonce] = owner.split(':');
    if (host !== this.host || !nonce || owner === this.id) return false;
    const number = Number(pid);
    if (!Number.isInteger(number) || number <= 0) return false;
    if (number === process.pid) return true;
    try {
      process.kill(number, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }
}
