import { Injectable } from '@nestjs/common';
import { OpenAiError } from '../common';
import { AppConfig } from '../config';
import { type ModelRef, ModelListService } from '../model';
import type { AuthContext } from '../security';
import { type AgentRecord, AgentService, DEFAULT_AGENT } from '../workspace';

/** A model as OpenAI's `GET /v1/models` lists it. */
export interface OpenAiModel {
  id: string;
  object: 'model';
  /** seconds since the epoch */
  created: number;
  owned_by: string;
}

/** What a request's `model` names: the agent that answers, and a model of its own for a raw model. */
export interface ModelTarget {
  /** as the client named it, echoed in every answer */
  name: string;
  agentId: string;
  modelOverride?: ModelRef;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * The workspace's agents as OpenAI models: `model` names an agent by name or id (`default`,
 * the workspace's own, always exists). With HELIX_OPENAI_LIST_MODELS the configured models
 * (`provider:modelId`) are models too, answered by the default agent with that model.
 */
@Injectable()
export class ModelDirectory {
  constructor(
    private readonly agents: AgentService,
    private readonly models: ModelListService,
    private readonly config: AppConfig,
  ) {}

  async list(auth: AuthContext): Promise<OpenAiModel[]> {
    const agents = (await this.agents.list(auth)).map(agentModel);
    if (!this.config.openAiListsModels) return agents;
    const created = seconds(new Date());
    const raw = (await this.models.list(auth.workspaceId)).map((item): OpenAiModel => ({
      id: `${item.provider}:${item.modelId}`,
      object: 'model',
      created,
      owned_by: item.provider,
    }));
    return [...agents, ...raw];
  }

  /** One model (404 `model_not_found` when the workspace has none by that name). */
  async get(auth: AuthContext, name: string): Promise<OpenAiModel> {
    const agent = await this.agents.findByKey(auth, name);
    if (agent) return { ...agentModel(agent), id: name };
    const raw = await this.rawModel(auth, name);
    if (raw) return { id: name, object: 'model', created: seconds(new Date()), owned_by: raw.provider };
    throw modelNotFound(name);
  }

  /** The agent (or raw model) a request's `model` names; 404 `model_not_found` otherwise. */
  async resolve(auth: AuthContext, name: string): Promise<ModelTarget> {
    // every workspace has it: no lookup on the way to the run's first token
    if (name === DEFAULT_AGENT) return { name, agentId: DEFAULT_AGENT };
    const agent = await this.agents.findByKey(auth, name);
    if (agent) return { name, agentId: agent.id };
    const raw = await this.rawModel(auth, name);
    if (raw) return { name, agentId: DEFAULT_AGENT, modelOverride: raw };
    throw modelNotFound(name);
  }

  /** A configured model named `provider:modelId`, where raw models are offered. */
  private async rawModel(auth: AuthContext, name: string): Promise<ModelRef | undefined> {
    if (!this.config.openAiListsModels || !name.includes(':')) return undefined;
    const item = (await this.models.list(auth.workspaceId)).find((m) => `${m.provider}:${m.modelId}` === name);
    return item && { provider: item.provider, modelId: item.modelId };
  }
}

const agentModel = (agent: AgentRecord): OpenAiModel => ({ id: agent.name, object: 'model', created: seconds(agent.createdAt), owned_by: 'helix' });

export const modelNotFound = (name: string) =>
  new OpenAiError(404, `The model \`${name}\` does not exist: name one of GET /v1/models (an agent's name or id).`, 'model', 'model_not_found');
