import { Module } from '@nestjs/common';
import { ConversationModule } from '../conversation/conversation.module';
import { AutoTitleService } from './auto-title/auto-title.service';

/**
 * Memory: what the model remembers of a conversation, and what it says about it (auto-titles).
 * Imported by the runtime, which adapts its services to its own hooks (runtime → memory → model).
 */
@Module({
  imports: [ConversationModule],
  providers: [AutoTitleService],
  exports: [AutoTitleService],
})
export class MemoryModule {}
