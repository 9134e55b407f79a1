import { Injectable } from '@nestjs/common';
import { ConversationService } from '../conversation';
import { type PostMessageDto, RunService } from '../runtime';
import type { AuthContext } from '../security';
import { DEFAULT_AGENT } from '../workspace';
import type { ChatTurn } from './chat/chat-turns';
import type { ModelTarget } from './model-directory';
import { importedMessages } from './request-mapping';

/** Where a posted message's run is: its conversation and run, its answer from the run's first event. */
export interface Posted {
  conversationId: string;
  runId: string;
  afterSeq: number;
}

const TITLE_CHARS = 80;

/**
 * A conversation started through /v1 is titled by its first message (its first line, cut at a
 * word): OpenAI clients title their chats themselves, and an auto-title would cost each
 * single-turn request a second model call.
 */
export function titleOf(text: string): string | undefined {
  const line = text.trim().split('\n')[0].trim();
  if (line.length <= TITLE_CHARS) return line || undefined;
  const cut = line.slice(0, TITLE_CHARS - 1);
  return `${cut.slice(0, cut.lastIndexOf(' ') > TITLE_CHARS / 2 ? cut.lastIndexOf(' ') : cut.length).trimEnd()}…`;
}

/** Posts the message that starts a run of the OpenAI-compatible API, in a new conversation or a known one. */
@Injectable()
export class RunPoster {
  constructor(
    private readonly conversations: ConversationService,
    private readonly runs: RunService,
  ) {}

  /**
   * A new conversation of the agent holding `history` (checked: `param` names the request's list),
   * created in the same round trip as the run's first read, and the message's run in it.
   */
  async inNewConversation(auth: AuthContext, target: ModelTarget, history: readonly ChatTurn[], message: PostMessageDto, instructions: string | undefined, param: string): Promise<Posted> {
    const draft = this.conversations.draft(auth, {
      title: titleOf(history.find((turn) => turn.role === 'user')?.text ?? message.text),
      agentId: target.agentId === DEFAULT_AGENT ? null : target.agentId,
      history: importedMessages(history, param),
    });
    const posted = await this.runs.postMessage(auth, draft.id, message, [], { ...(instructions && { instructions }), prepare: (unit) => draft.addTo(unit) });
    draft.created();
    return { conversationId: draft.id, runId: posted.run.id, afterSeq: 0 };
  }

  /** The message's run in a conversation Helix holds (refused with ConversationMoved when it has gone on past `expectLastSeq`). */
  async inConversation(auth: AuthContext, conversationId: string, message: PostMessageDto, instructions: string | undefined, expectLastSeq?: number): Promise<Posted> {
    const posted = await this.runs.postMessage(auth, conversationId, message, [], { ...(instructions && { instructions }), ...(expectLastSeq !== undefined && { expectLastSeq }) });
    return { conversationId, runId: posted.run.id, afterSeq: 0 };
  }
}
