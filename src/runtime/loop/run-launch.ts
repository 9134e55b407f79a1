import type { EffectiveSettings } from '../workspace';
import type { ModelRef } from '../model';
import type { FirstStep } from './model-step';
import type { RunRecord } from './run.records';

/** Whose run it is and the settings in force for it. */
export interface RunContext {
  workspaceId: string;
  settings: EffectiveSettings;
  fallbacks: ModelRef[];
  /**
   * the conversation had its default title when this was read: its run's final answer asks for
   * an auto-title (ConversationTitler, which checks again when it stores one)
   */
  needsTitle?: boolean;
}

/**
 * What the creator of a new run hands to its loop: the run as written and its context (saving
 * the loop reading them again), and its first step when the creator prepared one.
 */
export interface RunLaunch {
  run: RunRecord;
  context: RunContext;
  first?: FirstStep;
}
