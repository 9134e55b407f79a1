import type { RunState } from '../../generated/prisma/enums';

export type { RunState };

/** The run state machine (docs/ARCHITECTURE.md): any transition not listed here is a bug and throws. */
const TRANSITIONS: Record<RunState, readonly RunState[]> = {
  CREATED: ['PLANNING', 'EXECUTING', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED'],
  // a plan is a model call too: the budget can refuse it
  PLANNING: ['AWAIT_APPROVAL', 'EXECUTING', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED'],
  AWAIT_APPROVAL: ['EXECUTING', 'CANCELLED', 'FAILED'],
  AWAIT_USER: ['EXECUTING', 'CANCELLED', 'FAILED'],
  EXECUTING: ['AWAIT_APPROVAL', 'AWAIT_USER', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED'],
  SUCCEEDED: [],
  FAILED: [],
  CANCELLED: [],
  BUDGET_EXCEEDED: [],
};

export const RUN_STATES = Object.keys(TRANSITIONS) as RunState[];
export const TERMINAL_STATES: readonly RunState[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED'];

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: RunState,
    readonly to: RunState,
  ) {
    super(`Illegal run transition ${from} → ${to}`);
  }
}

export const RunFsm = {
  canTransition(from: RunState, to: RunState): boolean {
    return TRANSITIONS[from].includes(to);
  },
  assertTransition(from: RunState, to: RunState): void {
    if (!TRANSITIONS[from].includes(to)) throw new IllegalTransitionError(from, to);
  },
  isTerminal(state: RunState): boolean {
    return TERMINAL_STATES.includes(state);
  },
  /** live = not finished: a new message of the conversation has to wait for (or interrupt) it */
  isLive(state: RunState): boolean {
    return !TERMINAL_STATES.includes(state);
  },
};
