import { Injectable } from '@nestjs/common';
import { AutoTitleService } from '../../memory';
import { ConversationTitler, type Exchange, type TitlePrompt } from './step-hooks';

/** The runtime's title hook, filled by memory's auto-titles (memory knows nothing of runs). */
@Injectable()
export class AutoTitler extends ConversationTitler {
  constructor(private readonly titles: AutoTitleService) {
    super();
  }

  needsTitle(conversationId: string): Promise<boolean> {
    return this.titles.needsTitle(conversationId);
  }

  prompt(exchange: Exchange): TitlePrompt {
    return this.titles.prompt(exchange);
  }

  store(conversationId: string, answer: string): Promise<string | undefined> {
    return this.titles.store(conversationId, answer);
  }
}
