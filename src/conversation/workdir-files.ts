import { Injectable, NotFoundException } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { say } from '../common';
import type { AuthContext } from '../security';
import { type WorkdirFile, type WorkdirFileInfo, WorkdirService } from '../workdir';
import { ConversationService } from './conversation.service';

export class WorkdirFileResponse {
  @ApiProperty({ description: 'relative to the working directory, `/`-separated', example: 'notes/todo.md' }) path!: string;
  @ApiProperty({ type: 'integer', description: 'bytes' }) size!: number;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class WorkdirFileListResponse {
  @ApiProperty({ type: () => [WorkdirFileResponse], description: 'sorted by path' }) items!: WorkdirFileResponse[];
}

const toView = (file: WorkdirFileInfo): WorkdirFileResponse => ({ path: file.path, size: file.size, updatedAt: file.updatedAt.toISOString() });

/**
 * The working directory's files as the REST API serves them: the conversation is the caller's
 * and not deleted (ConversationService.find, 404 otherwise) before any file is read.
 */
@Injectable()
export class WorkdirFiles {
  constructor(
    private readonly conversations: ConversationService,
    private readonly workdir: WorkdirService,
  ) {}

  async list(auth: AuthContext, conversationId: string): Promise<WorkdirFileListResponse> {
    const conversation = await this.conversations.find(auth, conversationId);
    return { items: (await this.workdir.list(conversation.id)).map(toView) };
  }

  async get(auth: AuthContext, conversationId: string, path: string): Promise<WorkdirFile> {
    const conversation = await this.conversations.find(auth, conversationId);
    const file = await this.workdir.find(conversation.id, path);
    if (!file) throw new NotFoundException(say('workdir.file_not_found', { id: conversationId, path: path.slice(0, 200) }));
    return file;
  }
}
