import { BadRequestException } from '@nestjs/common';
import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AuthContext } from '../security';
import { Auth } from '../security';
import { AgentInput } from './agent.fields';
import { AgentService } from './agent.service';
import { agentPatchOf, AgentView, toAgentView } from './agent.view';

/** Admin GraphQL: agent profiles (history: `configVersions(key: "agent:<id>")`). */
@Resolver(() => AgentView)
export class AgentResolver {
  constructor(private readonly service: AgentService) {}

  @Query(() => [AgentView], { description: 'The workspace’s agents, `default` (its own settings) first.' })
  async agents(@Auth() auth: AuthContext, @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string): Promise<AgentView[]> {
    return (await this.service.list(auth, workspaceId)).map(toAgentView);
  }

  @Query(() => AgentView, { description: 'An agent by id (`default`: the workspace’s own).' })
  async agent(
    @Auth() auth: AuthContext,
    @Args('id', { type: () => ID }) id: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<AgentView> {
    return toAgentView(await this.service.get(auth, id, workspaceId));
  }

  @Mutation(() => AgentView, {
    description: 'Creates an agent, or changes the one named by `id` (or by `name`): omitted fields stay, null clears one. Versioned as `agent:<id>`.',
  })
  async upsertAgent(
    @Auth() auth: AuthContext,
    @Args('input') input: AgentInput,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<AgentView> {
    const { id, ...fields } = input;
    const patch = agentPatchOf(fields);
    const existing = id ?? (fields.name !== undefined ? await this.idByName(auth, fields.name, workspaceId) : undefined);
    if (existing) return toAgentView(await this.service.update(auth, existing, patch, workspaceId));
    if (fields.name === undefined) throw new BadRequestException('name: a new agent needs a name (or give the id of the agent to change)');
    return toAgentView(await this.service.create(auth, { ...patch, name: fields.name }, workspaceId));
  }

  @Mutation(() => AgentView, { description: 'Deletes an agent; its conversations go on with the default agent. Returns it as it was.' })
  async deleteAgent(
    @Auth() auth: AuthContext,
    @Args('id', { type: () => ID }) id: string,
    @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string,
  ): Promise<AgentView> {
    return toAgentView(await this.service.remove(auth, id, workspaceId));
  }

  private async idByName(auth: AuthContext, name: string, workspaceId?: string): Promise<string | undefined> {
    const agent = await this.service.findByKey(auth, name, workspaceId);
    // a name only: an id given as `name` would rename that agent, not create one
    return agent?.name === name ? agent.id : undefined;
  }
}
