import type { MessageView } from '../conversation/conversation.view';
import type { EffectiveSettings } from '../conversation/workspace.service';
import type { Run } from '../generated/prisma/client';
import type { ModelRef } from '../model/model.types';
import type { PrefetchedCall } from './prefetched-call';

/** The status event that announces a step of a run. */
export const STEP_STATUS = { phase: 'thinking', text: 'Thinking' } as const;

/** What the caller that just created a run already knows: saves the loop re-reading it. */
export interface RunStart {
  run: Run;
  workspaceId: string;
  settings: EffectiveSettings;
  /** the conversation's messages up to and including the one that started the run */
  history?: MessageView[];
  /** the first step's model call, sent for exactly that history (see `AgentLoop.prefetch`) */
  prefetched?: PrefetchedCall;
  /** the creator wrote the run at step 1 with the step's status event (not to be repeated) */
  stepStarted?: boolean;
}

/** What a run about to be created will send at its first step (see `AgentLoop.prefetch`). */
export interface FirstStep {
  runId: string;
  mode: Run['mode'];
  model: ModelRef;
  workspaceId: string;
  settings: EffectiveSettings;
  /** the conversation's messages including the run's own, not yet stored */
  history: MessageView[];
}
