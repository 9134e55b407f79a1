import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty } from '@nestjs/swagger';
import { ApiController, ApiErrors } from '../common';
import { Auth, type AuthContext, Access } from '../security';
import { CompactionService } from './compaction.service';

export class SummaryResponse {
  @ApiProperty({ example: 'sum_01jc9x…' }) id!: string;
  @ApiProperty() conversationId!: string;
  @ApiProperty({ type: 'integer', description: 'the first message seq the summary covers' }) coversFromSeq!: number;
  @ApiProperty({ type: 'integer', description: 'the last message seq the summary covers' }) coversToSeq!: number;
  @ApiProperty() content!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

@Controller('conversations')
@ApiController('conversations')
export class MemoryController {
  constructor(private readonly compaction: CompactionService) {}

  @Access('conversation')
  @Post(':id/compact')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'compactConversation',
    summary: 'Summarise the older half of a conversation now',
    description:
      'Summarises the older half of the exchanges not yet summarised (extending the previous summary) with the ' +
      "conversation's model. Runs then see the summary instead of those messages; the messages themselves are kept. " +
      '409 when there are fewer than two exchanges since the last summary.',
  })
  @ApiOkResponse({ type: SummaryResponse })
  @ApiErrors(404, 409, 502)
  compact(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.compaction.compact(auth, id);
  }
}
