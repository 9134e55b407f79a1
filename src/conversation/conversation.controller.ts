import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Auth, type AuthContext } from '../security/auth-context';
import {
  CreateConversationDto,
  ListConversationsQuery,
  ListMessagesQuery,
  UpdateConversationDto,
} from './conversation.dto';
import { ConversationService } from './conversation.service';

@Controller('conversations')
export class ConversationController {
  constructor(private readonly conversations: ConversationService) {}

  @Post()
  create(@Auth() auth: AuthContext, @Body() dto: CreateConversationDto) {
    return this.conversations.create(auth, dto);
  }

  @Get()
  list(@Auth() auth: AuthContext, @Query() query: ListConversationsQuery) {
    return this.conversations.list(auth, query.limit, query.cursor);
  }

  @Get(':id')
  get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.conversations.get(auth, id);
  }

  @Patch(':id')
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateConversationDto) {
    return this.conversations.update(auth, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    await this.conversations.remove(auth, id);
  }

  @Get(':id/messages')
  messages(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: ListMessagesQuery) {
    return this.conversations.listMessages(auth, id, query.after, query.limit);
  }
}
