import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiController, ApiErrors } from '../common';
import { Auth, type AuthContext } from '../security';
import { CreateAgentDto, UpdateAgentDto } from './agent.fields';
import { AgentService } from './agent.service';
import { AgentListResponse, agentPatchOf, AgentView, toAgentView } from './agent.view';

/** Agent profiles on the chat API: members read them (to choose one), admins change them. */
@Controller('agents')
@ApiController('agents')
export class AgentController {
  constructor(private readonly agents: AgentService) {}

  @Get()
  @ApiOperation({ operationId: 'listAgents', summary: "The workspace's agents, `default` (its own settings) first" })
  @ApiOkResponse({ type: AgentListResponse })
  async list(@Auth() auth: AuthContext): Promise<AgentListResponse> {
    return { items: (await this.agents.list(auth)).map(toAgentView) };
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getAgent', summary: 'Read an agent' })
  @ApiOkResponse({ type: AgentView })
  @ApiErrors(404)
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<AgentView> {
    return toAgentView(await this.agents.get(auth, id));
  }

  @Post()
  @ApiOperation({ operationId: 'createAgent', summary: 'Create an agent (admin)', description: 'Unset fields come from the workspace settings, as for the default agent. Versioned as `agent:<id>`.' })
  @ApiCreatedResponse({ type: AgentView })
  @ApiErrors(400, 403, 409)
  async create(@Auth() auth: AuthContext, @Body() dto: CreateAgentDto): Promise<AgentView> {
    return toAgentView(await this.agents.create(auth, { ...agentPatchOf(dto), name: dto.name }));
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'updateAgent',
    summary: 'Change an agent (admin)',
    description: 'Omitted fields stay, null clears one. Changing `default` changes the workspace settings and its `system` prompt; it cannot be renamed.',
  })
  @ApiOkResponse({ type: AgentView })
  @ApiErrors(400, 403, 404, 409)
  async update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() dto: UpdateAgentDto): Promise<AgentView> {
    return toAgentView(await this.agents.update(auth, id, agentPatchOf(dto)));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteAgent', summary: 'Delete an agent (admin)', description: 'Its conversations go on with the default agent; its runs keep its id. `default` cannot be deleted (409).' })
  @ApiNoContentResponse({ description: 'deleted' })
  @ApiErrors(403, 404, 409)
  async remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<void> {
    await this.agents.remove(auth, id);
  }
}
