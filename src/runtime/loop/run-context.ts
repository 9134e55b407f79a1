import type { ModelRef } from '../../model';
import type { EffectiveSettings } from '../../workspace';

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
