import { Injectable } from '@nestjs/common';
import { ConversationService } from '../conversation/conversation.service';
import type { MessageView } from '../conversation/conversation.view';
import { PrismaService } from '../database/prisma.service';
import type { Run } from '../generated/prisma/client';
import { EventLog } from './event-log';

/** Answers a crash cut off mid-stream: finding what clients saw, and keeping it if it changed. */
@Injectable()
export class InterruptedAnswers {
  constructor(
    private readonly prisma: PrismaService,
    private readonly conversations: ConversationService,
    private readonly events: EventLog,
  ) {}

  /**
   * The text a step was streaming when its process died: token events after the step's
   * `thinking` status with no stored answer for that step. Undefined when nothing was cut off.
   */
  async find(run: Run): Promise<string | undefined> {
    if (run.step === 0) return undefined; // no step has started
    const thinking = await this.prisma.runEvent.findFirst({ where: { runId: run.id, type: 'status' }, orderBy: { seq: 'desc' } });
    if (!thinking || (thinking.data as { phase?: string }).phase !== 'thinking') return undefined;
    const tokens = await this.prisma.runEvent.findMany({
      where: { runId: run.id, type: 'token', seq: { gt: thinking.seq } },
      orderBy: { seq: 'asc' },
    });
    if (!tokens.length) return undefined;
    const history = await this.conversations.history(run.conversationId);
    const answered = (m: MessageView) => m.runId === run.id && m.role === 'assistant' && m.parts.step === run.step;
    if (history.some(answered)) return undefined;
    return tokens.map((t) => (t.data as { text: string }).text).join('');
  }

  /** Keeps what clients were shown of an answer that was then given differently. */
  async keep(run: Run, text: string): Promise<void> {
    await this.events.flush(run.id);
    await this.prisma.$transaction((tx) =>
      this.conversations.appendMessage(tx, {
        conversationId: run.conversationId, runId: run.id, role: 'assistant', content: text,
        parts: { partial: true, interrupted: true },
      }),
    );
    this.events.emit(run.id, 'status', { phase: 'thinking', text: 'The answer changed after a restart; starting it over' });
  }
}
