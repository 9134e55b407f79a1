import { Injectable } from '@nestjs/common';
import { ApprovalRepository } from '../store/approval.repository';
import { RunExecutor } from './run-executor';
import { SseWriter } from '../events/sse-writer';

/**
 * The runtime's state as gauges, read when metrics are scraped rather than told on every
 * change: nothing is paid on the hot path, and a value can never drift from the truth.
 * Observe resolves this class by its token; the runtime never imports observe.
 */
@Injectable()
export class RuntimeGauges {
  constructor(
    private readonly executor: RunExecutor,
    private readonly sse: SseWriter,
    private readonly approvals: ApprovalRepository,
  ) {}

  /** runs waiting for an execution slot in this process */
  queueLength(): number {
    return this.executor.queueLength;
  }

  /** event streams open on this process */
  openStreams(): number {
    return this.sse.openStreams;
  }

  /** tool calls waiting for a human's decision, in the whole database (every instance sees the same) */
  approvalsWaiting(): Promise<number> {
    return this.approvals.countPending();
  }
}
