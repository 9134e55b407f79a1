import { Injectable, Logger } from '@nestjs/common';
import { ConversationService } from '../../conversation';
import type { ChatMessage } from '../../model';
import { cleanTitle, clipForTitle, TITLE_REQUEST, TITLE_SYSTEM_PROMPT } from './title-text';

/** A conversation's first completed exchange, to be titled. */
export interface ExchangeToTitle {
  /** the conversation's first user message */
  question: string;
  /** the answer that completed the exchange */
  answer: string;
}

/** A title request, for the model of the run that completed the exchange. */
export interface TitlePromptParts {
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  /** the prompt's size in tokens, roughly (a few hundred at most) */
  estimatedTokens: number;
}

/** A title is a few words: a short answer, and little room for creativity. */
const TITLE_PARAMETERS = { temperature: 0.2, maxTokens: 40 } as const;

/**
 * Auto-titles: a conversation created without a title is named by the model after its first
 * completed exchange. This service writes the request and stores the answer; the runtime makes
 * the call, as one of the run's model calls (budget, trace, usage). A title the user sets (at
 * creation, or by PATCH, even while the title is being made) always wins: the new title is stored
 * only while the conversation still has its default one, checked in the same UPDATE.
 */
@Injectable()
export class AutoTitleService {
  private readonly logger = new Logger('AutoTitle');

  constructor(private readonly conversations: ConversationService) {}

  /** Whether the conversation still has its default title. */
  needsTitle(conversationId: string): Promise<boolean> {
    return this.conversations.needsTitle(conversationId);
  }

  /** The exchange as a short conversation, between the instruction and the request for the title. */
  prompt(exchange: ExchangeToTitle): TitlePromptParts {
    const messages: ChatMessage[] = [
      { role: 'system', content: TITLE_SYSTEM_PROMPT },
      { role: 'user', content: clipForTitle(exchange.question) },
      { role: 'assistant', content: clipForTitle(exchange.answer) },
      { role: 'user', content: TITLE_REQUEST },
    ];
    // about four characters a token: the reservation needs an order of magnitude, not a count
    const estimatedTokens = Math.ceil(messages.reduce((chars, message) => chars + message.content.length, 0) / 4);
    return { messages, estimatedTokens, ...TITLE_PARAMETERS };
  }

  /**
   * Stores the title in the model's answer, cleaned, unless the answer holds none or the user
   * set a title meanwhile: the title stored, or undefined.
   */
  async store(conversationId: string, answer: string): Promise<string | undefined> {
    const title = cleanTitle(answer);
    if (!title) {
      this.logger.warn(`No auto-title for conversation ${conversationId}: the model answered no usable title`);
      return undefined;
    }
    return (await this.conversations.setAutoTitle(conversationId, title)) ? title : undefined;
  }
}
