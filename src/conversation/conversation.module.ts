import { Module } from '@nestjs/common';
import { ConversationController } from './conversation.controller';
import { ConversationService } from './conversation.service';
import { WorkspaceService } from './workspace.service';

/** Workspaces, conversations and their messages (the persisted truth), with REST for them. */
@Module({
  controllers: [ConversationController],
  providers: [ConversationService, WorkspaceService],
  exports: [ConversationService],
})
export class ConversationModule {}
