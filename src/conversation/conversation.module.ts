import { Module, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Subscription } from 'rxjs';
import { AccessService } from '../security';
import { WorkdirModule } from '../workdir';
import { WorkspaceModule } from '../workspace';
import { ConversationController } from './conversation.controller';
import { ConversationRepository } from './conversation.repository';
import { ConversationService } from './conversation.service';
import { FileContents, AttachmentContents } from './file-contents';
import { FileController } from './file-controller';
import { FileRepository } from './file-repository';
import { FileService } from './file-service';
import { MessageRepository } from './message.repository';
import { WorkdirController } from './workdir.controller';
import { WorkdirFiles } from './workdir-files';

/** Conversations and their messages (the persisted truth of a conversation), with REST for them. */
@Module({
  imports: [WorkspaceModule, WorkdirModule],
  controllers: [ConversationController, FileController, WorkdirController],
  providers: [
    ConversationService, ConversationRepository, MessageRepository,
    FileRepository, FileService, WorkdirFiles, { provide: AttachmentContents, useClass: FileContents },
  ],
  exports: [ConversationService, FileService, AttachmentContents],
})
export class ConversationModule implements OnModuleInit, OnModuleDestroy {
  private created?: Subscription;

  constructor(
    private readonly access: AccessService,
    private readonly conversations: ConversationRepository,
    private readonly service: ConversationService,
    private readonly files: FileRepository,
  ) {}

  /**
   * Every route naming a conversation is checked against its workspace (security/access.ts).
   * Every one of them reads the conversation scoped to the caller's workspace and not deleted
   * (ConversationService.find and findWithSettingsIn), so its owner may be remembered: a chat's
   * messages, its first one included, cost no lookup before that read.
   */
  onModuleInit(): void {
    this.access.register('conversation', (id) => this.conversations.workspaceOf(id), { rememberOwners: true });
    this.access.register('file', (id) => this.files.workspaceOf(id), { rememberOwners: true });
    this.created = this.service.created$.subscribe(({ id, workspaceId }) => this.access.remember('conversation', id, workspaceId));
  }

  onModuleDestroy(): void {
    this.created?.unsubscribe();
  }
}
