import type { FirstStep } from './model-step';
import type { RunContext } from './run-context';
import type { RunRecord } from '../store/run.records';

/**
 * What the creator of a new run hands to its loop: the run as written and its context (saving
 * the loop reading them again), and its first step when the creator prepared one.
 */
export interface RunLaunch {
  run: RunRecord;
  context: RunContext;
  first?: FirstStep;
}
