import { Injectable } from '@nestjs/common';
import { ConversationService } from '../conversation/conversation.service';
import type { MessageView } from '../conversation/conversation.view';
import { SqlClient } from '../database/sql-client';
import type { Run } from '../generated/prisma/client';
import { EventLog } from './event-log';
import { RunEventStore } from './run-event-store';

/** Answers a crash cut off mid-stream: finding what clients saw, and keeping it if it changed. */
@Injectable()
export class InterruptedAnswers {
  constructor(
    private readonly sql: SqlClient,
    private readonly conversations: ConversationService,
    private readonly events: EventLog,
    private readonly store: RunEventStore,
  ) {}

  /**
   * The text a step was streaming when its process died: token events after the step's
   * `thinking` status with no stored answer for that step. Undefined when nothing was cut off.
   */
  async find(run: Run): Promise<string | undefined> {
    if (run.step === 0) return undefined; // no step has started
    const thinking = await this.store.last(run.id, 'status');
    if (thinking?.type !== 'status' || thinking.data.phase !== 'thinking') return undefined;
    let text = '';
    for (let after = thinking.seq, page; (page = await this.events.page(run.id, after)).length; after = page.at(-1)!.seq) {
      for (const event of page) if (event.type === 'token') text += event.data.text;
    }
    if (!text) return undefined;
    const history = await this.conversations.history(run.conversationId);
    const answered = (m: MessageView) => m.runId === run.id && m.role === 'assistant' && m.parts.step === run.step;
    if (history.some(answered)) return undefined;
    return text;
  }

  /** Keeps what clients were shown of an answer that was then given differently. */
  async keep(run: Run, text: string): Promise<void> {
    await this.events.flush(run.id);
    await this.conversations.appendMessage(this.sql, {
      conversationId: run.conversationId, runId: run.id, role: 'assistant', content: text,
      parts: { partial: true, interrupted: true },
    });
    this.events.emit(run.id, 'status', { phase: 'thinking', text: 'The answer changed after a restart; starting it over' });
  }
}
