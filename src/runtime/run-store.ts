import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { Subject } from 'rxjs';
import { Prisma, PrismaService } from '../database/prisma.service';
import type { Run } from '../generated/prisma/client';
import { EventLog } from './event-log';
import { RunFsm, RunState } from './run-fsm';

/** What a run is waiting for or doing that must survive a restart. */
export type PendingAction =
  | { type: 'queued' }
  | { type: 'tool_running'; callId: string; name: string }
  | { type: 'approval'; approvalId: string; callId: string }
  | { type: 'user_reply'; callId: string; question: string };

export function pendingOf(run: Run): PendingAction | null {
  return (run.pendingAction as PendingAction | null) ?? null;
}

export const LIVE_STATES: RunState[] = ['CREATED', 'PLANNING', 'EXECUTING', 'AWAIT_APPROVAL', 'AWAIT_USER'];

/**
 * Runs in the database and every state change. A transition first flushes the run's events so
 * the table never shows a state its event log has not caught up with, then commits only if
 * the run is still in the state the caller saw (optimistic check).
 */
@Injectable()
export class RunStore {
  /** conversation ids whose run just ended (the executor starts queued runs) */
  readonly ended$ = new Subject<string>();

  constructor(
    private readonly prisma: PrismaService,
    private readonly events: EventLog,
  ) {}

  async load(runId: string): Promise<Run> {
    const run = await this.prisma.run.findUnique({ where: { id: runId } });
    if (!run) throw new NotFoundException(`Run ${runId} not found`);
    return run;
  }

  async update(run: Run, data: Prisma.RunUncheckedUpdateInput): Promise<Run> {
    return this.prisma.run.update({ where: { id: run.id }, data });
  }

  /** Counts a new step (hand-written SQL: once per model call of every run). */
  async nextStep(run: Run): Promise<Run> {
    const [row] = await this.prisma.$queryRaw<{ step: number }[]>`
      UPDATE runs SET step = step + 1, updated_at = now() WHERE id = ${run.id} RETURNING step`;
    if (!row) throw new NotFoundException(`Run ${run.id} not found`);
    return { ...run, step: row.step };
  }

  async transition(run: Run, to: RunState, data: Prisma.RunUncheckedUpdateInput = {}): Promise<Run> {
    RunFsm.assertTransition(run.state, to);
    await this.events.flush(run.id);
    const terminal = RunFsm.isTerminal(to);
    try {
      return await this.prisma.run.update({
        where: { id: run.id, state: run.state },
        data: {
          ...data,
          state: to,
          ...(terminal && { finishedAt: new Date(), pendingAction: Prisma.DbNull, leaseOwner: null, leaseUntil: null }),
        } as Prisma.RunUncheckedUpdateInput,
      });
    } catch (error) {
      if ((error as { code?: string }).code !== 'P2025') throw error;
      const current = await this.load(run.id);
      throw new ConflictException(`Run ${run.id} is ${current.state}, not ${run.state}`);
    }
  }

  /** Moves the run to a terminal state, then emits `done` and closes its event stream. */
  async finish(run: Run, to: RunState, data: Prisma.RunUncheckedUpdateInput = {}): Promise<Run> {
    const ended = await this.transition(run, to, data);
    await this.events.finish(run.id, to);
    this.ended$.next(run.conversationId);
    return ended;
  }
}
