import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiController, ApiErrors } from '../common';
import { Access, Auth, type AuthContext } from '../security';
import { JobRunner } from './job-runner';
import { JobResponse } from './rag.dto';
import { toJobView } from './rag.view';

@Controller('jobs')
@ApiController('jobs')
export class JobController {
  constructor(private readonly jobs: JobRunner) {}

  @Get(':id')
  @Access('job')
  @ApiOperation({ operationId: 'getJob', summary: 'A background job (document ingestion): state, progress, result or error' })
  @ApiOkResponse({ type: JobResponse })
  @ApiErrors(404)
  async get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return toJobView(await this.jobs.get(auth, id));
  }
}
