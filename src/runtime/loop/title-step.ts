import { Injectable, Logger } from '@nestjs/common';
import type { MessageRecord } from '../../conversation';
import { EventLog } from '../events/event-log';
import { ModelStep } from './model-step';
import type { RunContext } from './run-context';
import { NO_USAGE, type RunRecord, type RunUsage } from '../store/run.records';
import { ConversationTitler } from './step-hooks';

/** The longest a title call may take: the run's `done` waits for it. */
export const TITLE_TIMEOUT_MS = 8_000;

/**
 * A conversation's auto-title, after the final answer of a run (before the answer is stored,
 * so that a crash meanwhile resumes the step like any step cut off, rather than leaving an
 * answered run that never finished). The call is one of the run's model calls: budget reserved,
 * span, `usage` event, charged to the run; memory (ConversationTitler) writes the prompt and
 * stores the title.
 */
@Injectable()
export class TitleStep {
  private readonly logger = new Logger('AutoTitle');

  constructor(
    private readonly titler: ConversationTitler,
    private readonly steps: ModelStep,
    private readonly events: EventLog,
  ) {}

  /**
   * Titles the conversation if it still has its default title, and announces it with a `title`
   * event. Never throws: a failed, refused or empty title call is logged and leaves the title as
   * it is (the next completed exchange tries again). Returns what the call used.
   */
  async run(run: RunRecord, context: RunContext, history: MessageRecord[], answer: string, signal: AbortSignal): Promise<RunUsage> {
    let charged = NO_USAGE;
    try {
      const question = history.find((message) => message.parts.kind === 'user')?.content;
      if (question === undefined || !(await this.titler.needsTitle(run.conversationId))) return NO_USAGE;
      const { estimatedTokens, ...prompt } = this.titler.prompt({ question, answer });
      const input = await this.steps.inputFor(run, context, history, 'title');
      const request = { model: run.model, fallbacks: context.fallbacks, workspaceId: context.workspaceId, ...prompt };
      const prepared = await this.steps.prepareCall(input, request, estimatedTokens);
      if (prepared.kind === 'denied') {
        this.logger.warn(`No auto-title for conversation ${run.conversationId}: ${prepared.reason}`);
        return NO_USAGE;
      }
      for (const event of prepared.events) this.events.emit(run.id, event.type, event.data);
      const done = await this.steps.complete(prepared, AbortSignal.any([signal, AbortSignal.timeout(TITLE_TIMEOUT_MS)]));
      charged = done.charged;
      const title = await this.titler.store(run.conversationId, done.result.text);
      if (title) this.events.emit(run.id, 'title', { title });
    } catch (error) {
      this.logger.warn(`No auto-title for conversation ${run.conversationId}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return charged;
  }
}
