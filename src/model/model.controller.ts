import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiController } from '../common';
import { Auth, type AuthContext } from '../security';
import { ModelListResponse } from './model-list.dto';
import { ModelListService } from './model-list.service';

/** The chat API's view of models: which a member may choose. Configuring them is the admin GraphQL API's. */
@Controller('models')
@ApiController('models')
export class ModelController {
  constructor(private readonly models: ModelListService) {}

  @Get()
  @ApiOperation({ operationId: 'listModels', summary: "The models this workspace's members may choose, its default first" })
  @ApiOkResponse({ type: ModelListResponse })
  async list(@Auth() auth: AuthContext): Promise<ModelListResponse> {
    return { items: await this.models.list(auth.workspaceId) };
  }
}
