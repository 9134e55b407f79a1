import { Body, Controller, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiController, ApiErrors } from '../common';
import { Access, Auth, type AuthContext } from '../security';
import { ExportConversationQuery, ExportRunQuery, ImportTrajectoryDto } from './trajectory.dto';
import { TrajectoryExport } from './trajectory-export.service';
import { TrajectoryImport } from './trajectory-import.service';
import { trajectoryMarkdown } from './trajectory-markdown';

/** A download: never cached by anyone but the member who asked for it. */
function download(response: Response, filename: string, type: string, body: string): void {
  response.setHeader('Content-Type', `${type}; charset=utf-8`);
  response.setHeader('Content-Disposition', `attachment; filename="${filename}"`);
  response.setHeader('Cache-Control', 'private, no-store');
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.status(200).end(body);
}

/** Exports of conversations (trajectories) and runs (their model requests as cURL), and the import of a trajectory. */
@Controller()
@ApiController('conversations')
export class TrajectoryController {
  constructor(
    private readonly exporter: TrajectoryExport,
    private readonly importer: TrajectoryImport,
  ) {}

  @Access('conversation')
  @Get('conversations/:id/export')
  @ApiOperation({
    operationId: 'exportConversation',
    summary: "A conversation's trajectory as a download: JSON (helix.trajectory v1) or a Markdown transcript",
    description: 'Messages, runs with their tool calls, events, spans and sub-runs, and usage; secrets redacted. The JSON schema: docs/EXPORT.md.',
  })
  @ApiProduces('application/json', 'text/markdown')
  @ApiOkResponse({ description: 'the trajectory (`Content-Disposition: attachment`)' })
  @ApiErrors(400, 404)
  async export(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: ExportConversationQuery, @Res() response: Response): Promise<void> {
    const trajectory = await this.exporter.trajectory(auth, id);
    if (query.format === 'markdown') download(response, `${trajectory.conversation.id}.md`, 'text/markdown', trajectoryMarkdown(trajectory));
    else download(response, `${trajectory.conversation.id}.trajectory.json`, 'application/json', JSON.stringify(trajectory, null, 2));
  }

  @Access('run')
  @Get('runs/:id/export')
  @ApiOperation({
    operationId: 'exportRunTrajectory',
    summary: "A run's model requests as a shell script of cURL commands (`format=curl`)",
    description: 'One command per model call, against the provider\'s base URL, the key read from `$OPENAI_API_KEY`: docs/EXPORT.md.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'the script (`Content-Disposition: attachment`)', schema: { type: 'string' } })
  @ApiErrors(400, 404)
  async exportRun(@Auth() auth: AuthContext, @Param('id') id: string, @Query() _query: ExportRunQuery, @Res() response: Response): Promise<void> {
    const { runId, script } = await this.exporter.curl(auth, id);
    download(response, `${runId}.curl.sh`, 'text/plain', script);
  }

  @Post('conversations/import')
  @ApiOperation({ operationId: 'importConversation', summary: 'A new conversation holding the messages of a JSON trajectory (runs, events and spans are not imported)' })
  @ApiCreatedResponse({ description: 'the new conversation' })
  @ApiErrors(400)
  import(@Auth() auth: AuthContext, @Body() dto: ImportTrajectoryDto) {
    return this.importer.import(auth, dto);
  }
}
