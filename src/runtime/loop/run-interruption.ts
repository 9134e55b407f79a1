/**
 * Why a run's signal was aborted. A user's cancel ends the run; a shutdown or a lost lease hands
 * it over (to recovery here or on another instance) without ending it.
 */
export class RunInterruption extends Error {
  constructor(readonly reason: 'cancelled' | 'shutdown' | 'lease_lost', message: string) {
    super(message);
  }

  get handsOver(): boolean {
    return this.reason !== 'cancelled';
  }

  static of(signal: AbortSignal): RunInterruption | undefined {
    return signal.reason instanceof RunInterruption ? signal.reason : undefined;
  }
}
