import { Controller, Get, Param } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../security';
import { ModelDirectory, type OpenAiModel } from './model-directory';

/** OpenAI's model list: the workspace's agents (docs/OPENAI.md). */
@ApiExcludeController()
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly directory: ModelDirectory) {}

  @Get()
  async list(@Auth() auth: AuthContext): Promise<{ object: 'list'; data: OpenAiModel[] }> {
    return { object: 'list', data: await this.directory.list(auth) };
  }

  @Get(':id')
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<OpenAiModel> {
    return this.directory.get(auth, id);
  }
}
