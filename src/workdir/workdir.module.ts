import { Module } from '@nestjs/common';
import { WorkdirRepository } from './workdir.repository';
import { WorkdirService } from './workdir.service';

/**
 * Each conversation's working directory (files and the agent's to-do list, in the database).
 * Below conversation (which serves the files over REST and copies them into forks) and tool
 * (the file, shell and task_tracker tools): it imports neither.
 */
@Module({
  providers: [WorkdirRepository, WorkdirService],
  exports: [WorkdirService],
})
export class WorkdirModule {}
