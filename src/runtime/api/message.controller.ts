import { Body, Controller, Get, Param, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { API_PREFIX, ApiController, ApiErrors, requestLanguage } from '../../common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiExtension,
  ApiOkResponse,
  ApiOperation,
  getSchemaPath,
} from '@nestjs/swagger';
import { Auth, type AuthContext, Access, StreamLimiter } from '../../security';
import { EventLog } from '../events/event-log';
import { EVENT_STREAM_ON_ACCEPT, PostedMessageResponse, PostMessageDto, ReadRunResponse } from './run.dto';
import { RunService } from './run.service';
import { acceptsEventStream, SseWriter } from '../events/sse-writer';
import { MESSAGE_BODY, MessageUploads, uploadsOf } from './message-uploads.interceptor';

/** Posting a message starts a run, so it lives in runtime (conversation never imports runtime). */
@Controller('conversations')
@ApiController('runs')
@ApiExtraModels(PostedMessageResponse, PostMessageDto)
export class MessageController {
  constructor(
    private readonly runs: RunService,
    private readonly events: EventLog,
    private readonly sse: SseWriter,
    private readonly streams: StreamLimiter,
  ) {}

  /**
   * 201 with `{message, run}`; with `Accept: text/event-stream`, 201 with the run's event stream
   * instead (one request instead of POST then GET …/events, as streaming APIs of the kind offer),
   * its ids in `Location`, `X-Run-Id`, `X-Message-Id` and `X-Stream-Token`. Errors are JSON
   * either way, answered before anything is streamed.
   */
  @Access('conversation')
  @Post(':id/messages')
  @ApiOperation({
    operationId: 'postMessage',
    summary: 'Post a message: store it and start a run',
    description:
      'Answers `{message, run}` at once; the run goes on in the background. With `Accept: text/event-stream` the ' +
      "answer is the run's event stream instead (docs/EVENTS.md), its ids in the `Location`, `X-Run-Id`, " +
      '`X-Message-Id` and `X-Stream-Token` headers. Errors are JSON either way, answered before anything is streamed.',
  })
  @UseInterceptors(MessageUploads)
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody(MESSAGE_BODY)
  // Only the JSON answer is the response's content: a second media type here makes every generated
  // client (openapi-typescript + openapi-fetch) type `data` as `PostedMessageResponse | string`, to be
  // narrowed before `run` can be read, for a stream a client only gets by asking for it. The opt-in
  // stream is described beside it (x-event-stream), its frames typed by the RunEvent schema.
  @ApiCreatedResponse({
    description: "the stored message and the started run (with Accept: text/event-stream: the run's events, see x-event-stream)",
    content: { 'application/json': { schema: { $ref: getSchemaPath(PostedMessageResponse) } } },
  })
  @ApiExtension('x-event-stream', EVENT_STREAM_ON_ACCEPT)
  @ApiErrors(400, 404, 409, 413, 415, 429)
  async post(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: PostMessageDto,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const streaming = acceptsEventStream(request);
    // a stream beyond the caller's limit is refused before the message is stored
    if (streaming) this.streams.admit(request, response);
    const posted = await this.runs.postMessage(auth, id, dto, uploadsOf(request));
    if (!streaming) {
      response.status(201).json(posted);
      return;
    }
    const { run, message } = posted;
    this.sse.stream(response, this.events.subscribe(run.id, 0), {
      status: 201,
      language: requestLanguage(request),
      headers: [
        'Location', `/${API_PREFIX}/runs/${run.id}`,
        'X-Run-Id', run.id,
        'X-Message-Id', message.id,
        'X-Stream-Token', run.streamToken,
      ],
    });
  }

  @Access('conversation')
  @Get(':id/runs/latest')
  @ApiOperation({ operationId: 'getLatestRun', summary: "The conversation's newest run" })
  @ApiOkResponse({ type: ReadRunResponse })
  @ApiErrors(404)
  latest(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.latest(auth, id);
  }
}
