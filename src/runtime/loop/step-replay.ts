import { Injectable } from '@nestjs/common';
import { ConversationService } from '../../conversation';
import type { MessageRecord } from '../../conversation';
import { EventLog } from '../events/event-log';
import type { RunEventPayloads } from '../store/run-events';
import type { Shown } from './step-echo';
import { say } from '../../common';

type Status = RunEventPayloads['status'];

/** The status events that start, resume and restart a step (the step number tells which). */
export const stepStatus = {
  started: (step: number): Status => ({ phase: 'thinking', text: say('run.thinking'), step }),
  resumed: (step: number): Status => ({ phase: 'thinking', text: say('run.resuming'), step }),
  restarted: (step: number): Status => ({ phase: 'thinking', text: say('run.restarted'), step, restart: true }),
};

const RESUMED_TEXT = stepStatus.resumed(0).text;

/** What the event log holds of a step that began and has no stored answer. */
export interface StepSoFar {
  /** its start is in the log (else nothing of it reached clients) */
  started: boolean;
  /** events after its start (or last restart) */
  followed: boolean;
  shown: Shown;
}

/** True when the run's history holds the answer of `step` (the step completed), or its failure. */
export function answered(history: MessageRecord[], runId: string, step: number): boolean {
  // a failed step is over too: a plan's step tried again begins a new one
  return history.some((m) => m.runId === runId && (m.parts.kind === 'answer' || m.parts.kind === 'failure') && m.parts.step === step);
}

/**
 * A step cut off by a crash, as clients saw it: the text and reasoning after the step's start
 * (or its last restart), whatever resumptions came in between. Resuming repeats none of it.
 */
@Injectable()
export class StepReplay {
  constructor(
    private readonly events: EventLog,
    private readonly conversations: ConversationService,
  ) {}

  /** Reads the run's events (from memory for a run this process just created). */
  async soFar(runId: string, step: number): Promise<StepSoFar> {
    const state: StepSoFar = { started: false, followed: false, shown: { text: '', reasoning: '' } };
    for (let after = 0, page; (page = await this.events.page(runId, after)).length; after = page.at(-1)!.seq) {
      for (const event of page) {
        if (event.type === 'status' && event.data.step === step && event.data.phase === 'thinking' && event.data.text !== RESUMED_TEXT) {
          Object.assign(state, { started: true, followed: false, shown: { text: '', reasoning: '' } });
          continue;
        }
        if (!state.started) continue;
        state.followed = true;
        if (event.type === 'token') state.shown.text += event.data.text;
        else if (event.type === 'reasoning') state.shown.reasoning += event.data.text;
      }
    }
    return state;
  }

  /** Keeps the text clients were shown of an answer that is now given differently, and says so. */
  async restart(run: { id: string; conversationId: string }, step: number, shownText: string): Promise<void> {
    if (shownText) {
      await this.events.flush(run.id);
      await this.conversations.append({
        conversationId: run.conversationId,
        runId: run.id,
        content: shownText,
        parts: { kind: 'partial', step, interrupted: true },
      });
    }
    this.events.emit(run.id, 'status', stepStatus.restarted(step));
  }
}
