import { BadRequestException, Body, Controller, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiExtraModels, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, getSchemaPath } from '@nestjs/swagger';
import { ApiController, ApiErrors, MAX_INT4, requestId, requestLanguage, say } from '../../common';
import { AllowStreamToken, Auth, type AuthContext, Access, StreamLimiter } from '../../security';
import { ToolResultsDto } from '../loop/client-tools.dto';
import { EventLog } from '../events/event-log';
import { ApprovalDecisionDto, EditPlanDto, EventsQuery, ReplyDto, ResumeRunDto, RunEventPageResponse, RunListResponse, RunResponse, ReadRunResponse } from './run.dto';
import { RunService } from './run.service';
import { acceptsEventStream, SseWriter } from '../events/sse-writer';
import { localizeEvent } from '../events/event-language';

function resumePoint(query: EventsQuery, request: Request): number {
  if (query.after !== undefined) return query.after;
  const header = request.headers['last-event-id'];
  if (header === undefined || header === '') return 0;
  const seq = typeof header === 'string' && /^\d{1,10}$/.test(header.trim()) ? Number(header) : NaN;
  if (!(seq <= MAX_INT4)) throw new BadRequestException(say('http.last_event_id', { max: MAX_INT4 }));
  return seq;
}

const wantsJson = (request: Request) => (request.headers.accept ?? '').includes('application/json') && !acceptsEventStream(request);

@Controller('runs')
@ApiController('runs')
@ApiExtraModels(RunEventPageResponse)
export class RunController {
  constructor(
    private readonly runs: RunService,
    private readonly events: EventLog,
    private readonly sse: SseWriter,
    private readonly streams: StreamLimiter,
  ) {}

  @Access('run')
  @Get(':id')
  @ApiOperation({ operationId: 'getRun', summary: 'Read a run' })
  @ApiOkResponse({ type: ReadRunResponse })
  @ApiErrors(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.get(auth, id);
  }

  @Access('run')
  @Get(':id/children')
  @ApiOperation({ operationId: 'listSubRuns', summary: "A run's sub-runs", description: 'The runs its `delegate` calls started, oldest first; each one\'s events are at /runs/{childId}/events.' })
  @ApiOkResponse({ type: RunListResponse })
  @ApiErrors(404)
  children(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.children(auth, id);
  }

  /** SSE from `?after=` or Last-Event-ID; `Accept: application/json` returns a page instead. */
  @Access('run')
  @Get(':id/events')
  @AllowStreamToken()
  @ApiOperation({
    operationId: 'getRunEvents',
    summary: "A run's events: Server-Sent Events, or a JSON page",
    description:
      'Streams the run\'s events from `?after=` or `Last-Event-ID` (every event exactly once, in seq order; the ' +
      'stream ends after `done`; a `heartbeat` event without an id keeps it open while nothing happens). With ' +
      '`Accept: application/json` it answers one page of the same events instead (the polling fallback). ' +
      'Browsers that cannot send the API token header pass `?token=<streamToken>`, and `?lang=zh|en` for the language ' +
      'of `status` and `error` texts (else Accept-Language). Names and payloads: docs/EVENTS.md.',
  })
  @ApiProduces('text/event-stream', 'application/json')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'resume after this seq (what EventSource sends on reconnect)' })
  @ApiOkResponse({
    description: 'the event stream, or with Accept: application/json a page of events',
    content: {
      'text/event-stream': {
        schema: { type: 'string', description: 'SSE frames: `id:` the seq, `event:` the RunEvent `type`, `data:` its `data` as JSON (schema RunEvent)' },
        example: 'id: 1\nevent: status\ndata: {"phase":"thinking","text":"Thinking","step":1}\n\n',
      },
      'application/json': { schema: { $ref: getSchemaPath(RunEventPageResponse) } },
    },
  })
  @ApiErrors(400, 404, 429)
  async events_(
    @Param('id') id: string,
    @Query() query: EventsQuery,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const after = resumePoint(query, request);
    const language = requestLanguage(request);
    if (wantsJson(request)) {
      const events = await this.events.page(id, after, query.limit);
      // pino-http skips this route (common/logging/http-logging.ts), so the id it would have sent is set here
      response.setHeader('X-Request-Id', requestId(request));
      const shown = events.map((event) => localizeEvent(event, language));
      response.json({ events: shown.map(({ seq, type, data, at }) => ({ seq, type, data, at })) });
      return;
    }
    this.streams.admit(request, response);
    this.sse.stream(response, this.events.subscribe(id, after), { language });
  }

  @Access('run')
  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ operationId: 'cancelRun', summary: 'Cancel a live run (its model stream is aborted at once)' })
  @ApiOkResponse({ type: RunResponse })
  @ApiErrors(404, 409, 503)
  cancel(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.runs.cancel(auth, id);
  }

  @Access('run')
  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({ operationId: 'resumeRun', summary: 'Approve (optionally edited) or reject the plan of a run in AWAIT_APPROVAL' })
  @ApiOkResponse({ type: RunResponse })
  @ApiErrors(400, 404, 409)
  resume(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: ResumeRunDto) {
    return this.runs.resume(auth, id, dto);
  }

  @Access('run')
  @Put(':id/plan')
  @ApiOperation({ operationId: 'editRunPlan', summary: 'Replace the steps of a plan not started yet, while the run carries it out (or waits to)' })
  @ApiOkResponse({ type: RunResponse })
  @ApiErrors(400, 404, 409)
  editPlan(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: EditPlanDto) {
    return this.runs.editPlan(auth, id, dto);
  }

  @Access('run')
  @Access('approval', 'approvalId')
  @Post(':id/approvals/:approvalId')
  @HttpCode(200)
  @ApiOperation({ operationId: 'decideApproval', summary: 'Approve or reject a tool call waiting for approval (the `approval` event)' })
  @ApiOkResponse({ type: RunResponse })
  @ApiErrors(400, 404, 409)
  decide(@Auth() auth: AuthContext, @Param('id') id: string, @Param('approvalId') approvalId: string, @Body() dto: ApprovalDecisionDto) {
    return this.runs.decide(auth, id, approvalId, dto);
  }

  @Access('run')
  @Post(':id/reply')
  @HttpCode(200)
  @ApiOperation({ operationId: 'replyToRun', summary: "Answer the model's ask_user question (a run in AWAIT_USER)" })
  @ApiOkResponse({ type: RunResponse })
  @ApiErrors(400, 404, 409)
  reply(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: ReplyDto) {
    return this.runs.reply(auth, id, dto);
  }

  @Access('run')
  @Post(':id/tool-results')
  @HttpCode(200)
  @ApiOperation({ operationId: 'submitToolResults', summary: 'Answer the client-side tool calls a run waits for (the `tool.client` events; a run in AWAIT_USER)' })
  @ApiOkResponse({ type: RunResponse })
  @ApiErrors(400, 404, 409)
  toolResults(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: ToolResultsDto) {
    return this.runs.toolResults(auth, id, dto);
  }
}
