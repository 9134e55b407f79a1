import { IllegalTransitionError, RUN_STATES, RunFsm, RunState } from './run-fsm';

const ALLOWED: [RunState, RunState[]][] = [
  ['CREATED', ['PLANNING', 'EXECUTING', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED']],
  ['PLANNING', ['AWAIT_APPROVAL', 'EXECUTING', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED']],
  ['AWAIT_APPROVAL', ['EXECUTING', 'CANCELLED', 'FAILED']],
  ['AWAIT_USER', ['EXECUTING', 'CANCELLED', 'FAILED']],
  ['EXECUTING', ['AWAIT_APPROVAL', 'AWAIT_USER', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED']],
  ['SUCCEEDED', []],
  ['FAILED', []],
  ['CANCELLED', []],
  ['BUDGET_EXCEEDED', []],
];

describe('RunFsm', () => {
  expect(RUN_STATES).toHaveLength(9);
  const pairs = ALLOWED.flatMap(([from, targets]) =>
    RUN_STATES.map((to) => [from, to, targets.includes(to)] as const),
  );

  it.each(pairs)('%s → %s allowed: %s', (from, to, allowed) => {
    expect(RunFsm.canTransition(from, to)).toBe(allowed);
    if (allowed) {
      expect(() => RunFsm.assertTransition(from, to)).not.toThrow();
    } else {
      expect(() => RunFsm.assertTransition(from, to)).toThrow(IllegalTransitionError);
      expect(() => RunFsm.assertTransition(from, to)).toThrow(`Illegal run transition ${from} → ${to}`);
    }
  });

  it('knows which states are terminal', () => {
    expect(RUN_STATES.filter(RunFsm.isTerminal)).toEqual(['SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED']);
    expect(RUN_STATES.filter(RunFsm.isLive)).toEqual(['CREATED', 'PLANNING', 'AWAIT_APPROVAL', 'AWAIT_USER', 'EXECUTING']);
  });
});
