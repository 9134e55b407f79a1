import { Module } from '@nestjs/common';
import { ConversationModule } from '../conversation';
import { ModelModule } from '../model';
import { AutoTitleService } from './auto-title/auto-title.service';
import { CompactionService } from './compaction.service';
import { Compactor } from './compactor';
import { MemoryController } from './memory.controller';
import { MemoryWindow } from './memory-window';
import { Summarizer } from './summarizer';
import { SummaryRepository } from './summary.repository';
import { TokenCounter } from './token-counter';

/**
 * Memory: token counting, the token-budgeted window of every model call (the runtime adapts
 * MemoryWindow to its ContextBuilder hook), conversation summaries and compaction, and the
 * auto-titles of conversations (adapted to its ConversationTitler hook).
 * Imports flow runtime → memory → conversation, model: memory knows nothing of runs.
 */
@Module({
  imports: [ConversationModule, ModelModule],
  controllers: [MemoryController],
  providers: [TokenCounter, SummaryRepository, Summarizer, Compactor, MemoryWindow, CompactionService, AutoTitleService],
  exports: [MemoryWindow, TokenCounter, AutoTitleService],
})
export class MemoryModule {}
