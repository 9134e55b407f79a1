import { BadRequestException, Injectable } from '@nestjs/common';
import { say } from '../common';
import { ConversationService, type ImportedMessage } from '../conversation';
import { SqlClient, UnitOfWork } from '../database';
import type { AuthContext } from '../security';
import type { ImportedMessageDto, ImportTrajectoryDto } from './trajectory.dto';

type Kind = ImportedMessageDto['parts']['kind'];
const ROLE: Record<Kind, ImportedMessageDto['role']> = {
  user: 'user', answer: 'assistant', partial: 'assistant', failure: 'assistant', tool_result: 'tool', output_repair: 'system',
};

const required = (index: number, field: string, kind: Kind) => new BadRequestException(say('trajectory.field_required', { index, field, kind }));

/** One exported message as a message of the new conversation, or the 400 naming what is wrong with it. */
function toImported(m: ImportedMessageDto, index: number, calls: Set<string>): ImportedMessage {
  const p = m.parts;
  if (m.role !== ROLE[p.kind]) throw new BadRequestException(say('trajectory.role_mismatch', { index, kind: p.kind, role: ROLE[p.kind] }));
  if (p.kind !== 'tool_result' && m.toolCallId) throw new BadRequestException(say('trajectory.field_not_allowed', { index, field: 'toolCallId' }));
  switch (p.kind) {
    case 'user':
      // attachments name files of the exporting workspace, client tools belong to its client: neither comes along
      return { content: m.content, parts: { kind: 'user' }, toolCallId: null };
    case 'answer': {
      if (p.step === undefined) throw required(index, 'parts.step', p.kind);
      for (const call of p.toolCalls ?? []) calls.add(call.id);
      const toolCalls = p.toolCalls?.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
      return { content: m.content, parts: { kind: 'answer', step: p.step, ...(toolCalls?.length && { toolCalls }), ...(p.reasoning && { reasoning: p.reasoning }) }, toolCallId: null };
    }
    case 'partial':
      return { content: m.content, parts: { kind: 'partial', ...(p.step !== undefined && { step: p.step }), ...(p.interrupted && { interrupted: true }) }, toolCallId: null };
    case 'failure':
      if (p.error === undefined) throw required(index, 'parts.error', p.kind);
      return { content: m.content, parts: { kind: 'failure', error: p.error, ...(p.step !== undefined && { step: p.step }) }, toolCallId: null };
    case 'output_repair':
      return { content: m.content, parts: { kind: 'output_repair', errors: p.errors ?? [] }, toolCallId: null };
    case 'tool_result':
      if (!m.toolCallId) throw required(index, 'toolCallId', p.kind);
      if (p.name === undefined) throw required(index, 'parts.name', p.kind);
      if (p.ok === undefined) throw required(index, 'parts.ok', p.kind);
      // a result without its call would be sent to the model as an orphan, which providers refuse
      if (!calls.has(m.toolCallId)) throw new BadRequestException(say('trajectory.orphan_result', { index, id: m.toolCallId }));
      return { content: m.content, parts: { kind: 'tool_result', name: p.name, ok: p.ok }, toolCallId: m.toolCallId };
  }
}

/**
 * A new conversation in the caller's workspace holding an exported trajectory's messages (with
 * the default agent and model): every message is checked first, then the conversation and all
 * its messages are written in one unit, so a bad import leaves nothing behind.
 */
@Injectable()
export class TrajectoryImport {
  constructor(
    private readonly conversations: ConversationService,
    private readonly sql: SqlClient,
  ) {}

  async import(auth: AuthContext, dto: ImportTrajectoryDto) {
    const calls = new Set<string>();
    const history = dto.messages.map((m, index) => toImported(m, index, calls));
    const draft = this.conversations.draft(auth, { title: dto.conversation.title, agentId: null, history });
    const unit = new UnitOfWork();
    draft.addTo(unit);
    await unit.run(this.sql);
    draft.created();
    return this.conversations.get(auth, draft.id);
  }
}
