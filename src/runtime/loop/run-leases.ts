import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config';
import { DatabaseHandle } from '../../database';
import { Instance } from '../cluster/instance';
import { RunRepository } from '../store/run.repository';

/** A lease this instance holds on a run it drives. */
export interface HeldLease {
  /** when it runs out (epoch ms) */
  until: number;
}

/**
 * The leases that make exactly one instance drive a run. HELIX_LEASE_MS is the longest a dead
 * instance's run waits for another to resume it: a lease written to the database lasts two
 * thirds of it and is renewed every sixth, and every instance looks for expired leases every
 * sixth, so a lease runs out at most two thirds after its driver died and is found a sixth later.
 * An instance that cannot renew a lease in time stops driving the run, so that when another
 * takes the expired lease over, no two instances ever write one run.
 */
@Injectable()
export class RunLeases {
  private readonly logger = new Logger(RunLeases.name);

  constructor(
    private readonly config: AppConfig,
    private readonly database: DatabaseHandle,
    private readonly runRows: RunRepository,
    private readonly instance: Instance,
  ) {}

  get owner(): string {
    return this.instance.id;
  }

  /** how long a lease taken or renewed now holds */
  get leaseMs(): number {
    return Math.floor((this.config.HELIX_LEASE_MS * 2) / 3);
  }

  /** how often a driver renews its leases, and instances look for expired ones */
  get renewMs(): number {
    return Math.floor(this.config.HELIX_LEASE_MS / 6);
  }

  /** A lease to write with a run this process creates and drives (saves taking it). */
  newLease(): { owner: string; until: Date } {
    return { owner: this.owner, until: new Date(Date.now() + this.leaseMs) };
  }

  /** Takes or renews the run's lease; false when another instance holds it (or the run ended). */
  async claim(runId: string, held: HeldLease): Promise<boolean> {
    const until = Date.now() + this.leaseMs;
    if (!(await this.runRows.claimLease(runId, this.owner, new Date(until)))) return false;
    held.until = until;
    return true;
  }

  /** Renews the lease: undefined while it holds, else why driving the run must stop. */
  async renew(runId: string, held: HeldLease): Promise<string | undefined> {
    try {
      return (await this.claim(runId, held)) ? undefined : 'its lease was taken by another instance';
    } catch (error) {
      this.logger.warn(`Could not renew the lease of run ${runId}: ${String(error)}`);
      // the next renewal may still come in time
      return Date.now() + this.renewMs < held.until ? undefined : 'its lease runs out before it can be renewed';
    }
  }

  release(runId: string): Promise<void> {
    return this.runRows.releaseLease(runId, this.owner).catch(() => undefined);
  }

  /**
   * At start-up, frees the leases of processes that died: on the embedded database all of them
   * (it is locked to one process); on PostgreSQL those of an earlier process on this host, so a
   * restart takes its runs back at once instead of after the lease time.
   */
  async releaseDead(): Promise<void> {
    if (this.database.kind === 'embedded') return this.runRows.releaseAllLeases();
    try {
      const dead = (await this.runRows.leaseOwnersOn(this.instance.host)).filter((owner) => this.instance.isDeadPredecessor(owner));
      if (dead.length) await this.runRows.releaseLeasesOf(dead);
    } catch (error) {
      this.logger.warn(`Could not release the leases of earlier processes on this host: ${String(error)}`);
    }
  }
}
