import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiController, ApiErrors } from '../common';
import { Auth, type AuthContext, Access } from '../security';
import {
  ConversationPageResponse,
  ConversationResponse,
  CreateConversationDto,
  ForkConversationDto,
  ListConversationsQuery,
  ListMessagesQuery,
  MessagePageResponse,
  UpdateConversationDto,
} from './conversation.dto';
import { ConversationService } from './conversation.service';

@Controller('conversations')
@ApiController('conversations')
export class ConversationController {
  constructor(private readonly conversations: ConversationService) {}

  @Post()
  @ApiOperation({ operationId: 'createConversation', summary: 'Create a conversation' })
  @ApiCreatedResponse({ type: ConversationResponse })
  @ApiErrors(400)
  create(@Auth() auth: AuthContext, @Body() dto: CreateConversationDto) {
    return this.conversations.create(auth, dto);
  }

  @Get()
  @ApiOperation({ operationId: 'listConversations', summary: 'List conversations, newest first' })
  @ApiOkResponse({ type: ConversationPageResponse })
  @ApiErrors(400)
  list(@Auth() auth: AuthContext, @Query() query: ListConversationsQuery) {
    return this.conversations.list(auth, query.limit, query.cursor);
  }

  @Access('conversation')
  @Get(':id')
  @ApiOperation({ operationId: 'getConversation', summary: 'Read a conversation' })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.conversations.get(auth, id);
  }

  @Access('conversation')
  @Patch(':id')
  @ApiOperation({ operationId: 'updateConversation', summary: "Change a conversation's title, model or settings" })
  @ApiOkResponse({ type: ConversationResponse })
  @ApiErrors(400, 404)
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateConversationDto) {
    return this.conversations.update(auth, id, dto);
  }

  @Access('conversation')
  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteConversation', summary: 'Delete a conversation (soft: its messages are kept)' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiErrors(404)
  async remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    await this.conversations.remove(auth, id);
  }

  @Access('conversation')
  @Post(':id/fork')
  @ApiOperation({ operationId: 'forkConversation', summary: "A new conversation with a copy of this one's messages (up to `fromMessageId`), model and settings; not its runs" })
  @ApiCreatedResponse({ type: ConversationResponse })
  @ApiErrors(400, 404)
  fork(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: ForkConversationDto) {
    return this.conversations.fork(auth, id, dto.fromMessageId);
  }

  @Access('conversation')
  @Get(':id/messages')
  @ApiOperation({ operationId: 'listMessages', summary: "A conversation's messages, in seq order" })
  @ApiOkResponse({ type: MessagePageResponse })
  @ApiErrors(400, 404)
  messages(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: ListMessagesQuery) {
    return this.conversations.listMessages(auth, id, query.after, query.limit);
  }
}
