import { Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiController, ApiErrors } from '../common/openapi';
import { Auth, type AuthContext } from '../security/auth-context';
import { JobRepository } from './job.repository';
import { JobResponse } from './rag.dto';
import { toJobView } from './rag.view';

@Controller('jobs')
@ApiController('jobs')
export class JobController {
  constructor(private readonly jobs: JobRepository) {}

  @Get(':id')
  @ApiOperation({ summary: 'A background job (document ingestion): state, progress, result or error' })
  @ApiOkResponse({ type: JobResponse })
  @ApiErrors(404)
  async get(@Auth() auth: AuthContext, @Param('id') id: string) {
    const job = await this.jobs.find(auth.workspaceId, id);
    if (!job) throw new NotFoundException(`Job ${id} not found`);
    return toJobView(job);
  }
}
