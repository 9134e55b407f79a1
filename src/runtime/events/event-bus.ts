import { Injectable } from '@nestjs/common';
import { Observable, Subject } from 'rxjs';
import type { RunEvent } from '../store/run-events';

/**
 * Live fan-out of run events to subscribers. The in-process implementation is one RxJS Subject
 * per run; a Redis pub/sub implementation can replace it (same two methods) without touching
 * the EventLog or the AgentLoop. Delivery may skip events: readers fill gaps from the log.
 */
export abstract class EventBus {
  abstract publish(event: RunEvent): void;
  abstract events(runId: string): Observable<RunEvent>;
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
