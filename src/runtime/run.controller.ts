import { BadRequestException, Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { requestId } from '../common/request-id';
import { AllowStreamToken, Auth, type AuthContext } from '../security/auth-context';
import { EventLog } from './event-log';
import { ApprovalDecisionDto, EventsQuery, ReplyDto, ResumeRunDto } from './run.dto';
import { RunService } from './run.service';
import { acceptsEventStream, SseWriter } from './sse-writer';

function resumePoint(query: EventsQuery, request: Request): number {
  if (query.after !== undefined) return query.after;
  const header = request.headers['last-event-id'];
  if (header === undefined || header === '') return 0;
  if (typeof header !== 'string' || !/^\d+$/.test(header.trim())) {
    throw new BadRequestException('Last-Event-ID must be a non-negative integer (an event seq)');
  }
  return Number(header);
}

const wantsJson = (request: Request) => (request.headers.accept ?? '').includes('application/json') && !acceptsEventStream(request);

@Controller('runs')
export class RunController {
  constructor(
    private readonly runs: RunService,
    private readonly events: EventLog,
    private readonly sse: SseWriter,
  ) {}

  @Get(':id')
  get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.get(auth, id);
  }

  /** SSE from `?after=` or Last-Event-ID; `Accept: application/json` returns a page instead. */
  @Get(':id/events')
  @AllowStreamToken()
  async events_(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: EventsQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    await this.runs.assertVisible(auth, id);
    const after = resumePoint(query, request);
    if (wantsJson(request)) {
      const events = await this.events.page(id, after, query.limit);
      // pino-http skips this route (app.module.ts), so the id it would have sent is set here
      response.setHeader('X-Request-Id', requestId(request));
      response.json({ events: events.map(({ seq, type, data, at }) => ({ seq, type, data, at })) });
      return;
    }
    this.sse.stream(response, this.events.subscribe(id, after));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.cancel(auth, id);
  }

  @Post(':id/resume')
  @HttpCode(200)
  resume(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: ResumeRunDto) {
    return this.runs.resume(auth, id, dto);
  }

  @Post(':id/approvals/:approvalId')
  @HttpCode(200)
  decide(@Auth() auth: AuthContext, @Param('id') id: string, @Param('approvalId') approvalId: string, @Body() dto: ApprovalDecisionDto) {
    return this.runs.decide(auth, id, approvalId, dto);
  }

  @Post(':id/reply')
  @HttpCode(200)
  reply(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: ReplyDto) {
    return this.runs.reply(auth, id, dto);
  }
}
