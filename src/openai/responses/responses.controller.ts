import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { map, type Observable } from 'rxjs';
import { requestLanguage } from '../../common';
import { SseWriter } from '../../runtime';
import { Auth, type AuthContext, StreamLimiter } from '../../security';
import { OPENAI_STREAM } from '../openai-sse';
import type { ResponseStreamEvent } from './response-events';
import type { ResponseRecord } from './response.repository';
import { CreateResponseDto, InputItemsQuery, RetrieveResponseQuery } from './responses.dto';
import { ResponseService } from './responses.service';

/** A Responses stream event as an SSE frame: its type as `event:`, its sequence number as `id:`. */
const frameOf = (event: ResponseStreamEvent) => `id: ${event.sequence_number}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
const helixHeaders = (record: Pick<ResponseRecord, 'conversationId' | 'runId'>) => ['x-helix-conversation-id', record.conversationId, 'x-helix-run-id', record.runId];

/** OpenAI's Responses API over Helix's runs (docs/OPENAI.md); documented there, not in Helix's own OpenAPI. */
@ApiExcludeController()
@Controller('v1/responses')
export class ResponsesController {
  constructor(
    private readonly responses: ResponseService,
    private readonly sse: SseWriter,
    private readonly streams: StreamLimiter,
  ) {}

  @Post()
  async create(@Auth() auth: AuthContext, @Body() dto: CreateResponseDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    const language = requestLanguage(request);
    // a stream beyond the caller's limit is refused before anything is stored
    if (dto.stream) this.streams.admit(request, response);
    const created = await this.responses.create(auth, dto, language);
    if (created.kind === 'stream') {
      this.stream(response, created.events, request, helixHeaders(created.record));
      return;
    }
    response.setHeader('x-helix-conversation-id', created.record.conversationId);
    response.setHeader('x-helix-run-id', created.record.runId);
    response.status(200).json(created.body);
  }

  /** The response; with `stream=true`, its events after `starting_after` (replayed, then live). */
  @Get(':id')
  async retrieve(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: RetrieveResponseQuery, @Req() request: Request, @Res() response: Response): Promise<void> {
    const language = requestLanguage(request);
    if (!query.stream) {
      response.status(200).json(await this.responses.retrieve(auth, id, language));
      return;
    }
    this.streams.admit(request, response);
    this.stream(response, await this.responses.stream(auth, id, query.starting_after ?? -1, language), request, []);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Auth() auth: AuthContext, @Param('id') id: string, @Req() request: Request): Promise<Record<string, unknown>> {
    return this.responses.cancel(auth, id, requestLanguage(request));
  }

  @Delete(':id')
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<{ id: string; object: 'response'; deleted: true }> {
    return this.responses.remove(auth, id);
  }

  @Get(':id/input_items')
  inputItems(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: InputItemsQuery): Promise<Record<string, unknown>> {
    return this.responses.inputItems(auth, id, query);
  }

  private stream(response: Response, events: Observable<ResponseStreamEvent>, request: Request, headers: string[]): void {
    this.sse.streamFrames(response, events.pipe(map(frameOf)), OPENAI_STREAM, { language: requestLanguage(request), headers });
  }
}
