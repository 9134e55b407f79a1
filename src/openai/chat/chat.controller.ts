import { Body, Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { requestLanguage } from '../../common';
import { SseWriter } from '../../runtime';
import { Auth, type AuthContext, StreamLimiter } from '../../security';
import { OPENAI_STREAM } from '../openai-sse';
import { ChatCompletionRequestDto } from './chat.dto';
import { ChatCompletionService } from './chat.service';

/** OpenAI's chat completions over Helix's agents (docs/OPENAI.md); documented there, not in Helix's own OpenAPI. */
@ApiExcludeController()
@Controller('v1/chat')
export class ChatCompletionController {
  constructor(
    private readonly chat: ChatCompletionService,
    private readonly sse: SseWriter,
    private readonly streams: StreamLimiter,
  ) {}

  /**
   * A completion, or (`stream: true`) its chunks as OpenAI streams them; the conversation it is
   * in is named by the `x-helix-conversation-id` header either way.
   */
  @Post('completions')
  async create(@Auth() auth: AuthContext, @Body() dto: ChatCompletionRequestDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    const language = requestLanguage(request);
    if (!dto.stream) {
      const { completion, conversationId } = await this.chat.complete(auth, dto, language);
      response.setHeader('x-helix-conversation-id', conversationId);
      response.setHeader('x-helix-run-id', completion.helix.run_id);
      response.status(200).json(completion);
      return;
    }
    // a stream beyond the caller's limit is refused before anything is stored
    this.streams.admit(request, response);
    const { frames, conversationId, runId } = await this.chat.stream(auth, dto, language);
    this.sse.streamFrames(response, frames, OPENAI_STREAM, { language, headers: ['x-helix-conversation-id', conversationId, 'x-helix-run-id', runId] });
  }
}
