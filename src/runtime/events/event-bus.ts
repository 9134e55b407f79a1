import { Injectable } from '@nestjs/common';
import { Observable, Subject } from 'rxjs';
import type { RunEvent } from '../store/run-events';

/**
 * Live fan-out of run events to subscribers: one RxJS Subject per run in a single process, Redis
 * pub/sub across instances (redis-event-bus.ts). Delivery may skip events: readers fill gaps
 * from the log.
 */
export abstract class EventBus {
  /**
   * Events of runs written by another instance may be lost on the way (pub/sub is at most once):
   * a reader that has heard nothing of such a run for this long looks at the table. Unset: never.
   */
  readonly quietPollMs?: number;

  abstract publish(event: RunEvent): void;
  /**
   * A run's live events. `resync` is called when events published before it may have been
   * missed (a subscription acknowledged late, or re-established after a loss): read the table.
   */
  abstract events(runId: string, resync?: () => void): Observable<RunEvent>;
  /** the run will publish nothing more (its `done` was published) */
  abstract end(runId: string): void;
}

@Injectable()
export class InProcessEventBus extends EventBus {
  private readonly subjects = new Map<string, Subject<RunEvent>>();

  publish(event: RunEvent): void {
    this.subjects.get(event.runId)?.next(event);
  }

  events(runId: string): Observable<RunEvent> {
    return new Observable<RunEvent>((subscriber) => {
      let subject = this.subjects.get(runId);
      if (!subject) {
        subject = new Subject<RunEvent>();
        this.subjects.set(runId, subject);
      }
      const subscription = subject.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        if (!subject.observed) this.subjects.delete(runId);
      };
    });
  }

  end(runId: string): void {
    this.subjects.get(runId)?.complete();
    this.subjects.delete(runId);
  }
}
