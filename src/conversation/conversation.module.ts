import { Module, OnModuleInit } from '@nestjs/common';
import { AccessService } from '../security/access';
import { ConversationController } from './conversation.controller';
import { ConversationRepository } from './conversation.repository';
import { ConversationService } from './conversation.service';
import { MessageRepository } from './message.repository';
import { WorkspaceRepository } from './workspace.repository';
import { WorkspaceResolver } from './workspace.resolver';
import { WorkspaceService } from './workspace.service';

/** Workspaces, conversations and their messages (the persisted truth), with REST for them. */
@Module({
  controllers: [ConversationController],
  providers: [ConversationService, ConversationRepository, MessageRepository, WorkspaceService, WorkspaceRepository, WorkspaceResolver],
  exports: [ConversationService, WorkspaceService],
})
export class ConversationModule implements OnModuleInit {
  constructor(
    private readonly access: AccessService,
    private readonly conversations: ConversationRepository,
  ) {}

  /** Every route naming a conversation is checked against its workspace (security/access.ts). */
  onModuleInit(): void {
    this.access.register('conversation', (id) => this.conversations.workspaceOf(id));
  }
}
