import { Body, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { API_PREFIX } from '../common/api-prefix';
import { Auth, type AuthContext } from '../security/auth-context';
import { EventLog } from './event-log';
import { PostMessageDto } from './run.dto';
import { RunService } from './run.service';
import { acceptsEventStream, SseWriter } from './sse-writer';

/** Posting a message starts a run, so it lives in runtime (conversation never imports runtime). */
@Controller('conversations')
export class MessageController {
  constructor(
    private readonly runs: RunService,
    private readonly events: EventLog,
    private readonly sse: SseWriter,
  ) {}

  /**
   * 201 with `{message, run}`; with `Accept: text/event-stream`, 201 with the run's event stream
   * instead (one request instead of POST then GET …/events, as streaming APIs of the kind offer),
   * its ids in `Location`, `X-Run-Id`, `X-Message-Id` and `X-Stream-Token`. Errors are JSON
   * either way, answered before anything is streamed.
   */
  @Post(':id/messages')
  async post(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: PostMessageDto,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const posted = await this.runs.postMessage(auth, id, dto);
    if (!acceptsEventStream(request)) {
      response.status(201).json(posted);
      return;
    }
    const { run, message } = posted;
    this.sse.stream(response, this.events.subscribe(run.id, 0), {
      status: 201,
      headers: [
        'Location', `/${API_PREFIX}/runs/${run.id}`,
        'X-Run-Id', run.id,
        'X-Message-Id', message.id,
        'X-Stream-Token', run.streamToken,
      ],
    });
  }

  @Get(':id/runs/latest')
  latest(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.latest(auth, id);
  }
}
