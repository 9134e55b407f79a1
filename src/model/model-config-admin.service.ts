import { BadRequestException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { isRecord, textArg } from '../common';
import { adminWorkspace, type AuthContext, isBootstrap, ConfigHistory, SecretRepository } from '../security';
import { ModelCatalog } from './model-catalog';
import { type ModelConfigInput, type ModelConfigType, type ModelInfoType, MAX_MODEL_ID, PROVIDER_PATTERN } from './model-config.graphql';
import { fieldsOf, type ModelConfigFields, type ModelConfigRow, ModelConfigRepository } from './model-config.repository';
import { ANY_MODEL, ModelConfigService } from './model-config.service';
import { ModelRouter } from './model-router';

const KIND = 'model-config';

/** A row's settings before any are given: what a new row starts from. */
const DEFAULTS: ModelConfigFields = {
  baseUrl: null,
  apiKeySecretId: null,
  temperature: null,
  topP: null,
  maxTokens: null,
  contextWindow: null,
  toolsEnabled: true,
  enabled: true,
  label: null,
  vision: null,
  structuredOutput: null,
  inputPrice: null,
  outputPrice: null,
};

/** The history key of a row: `model-config:<provider>/<modelId>` (a provider has no `/`). */
export const modelConfigKey = (provider: string, modelId: string) => `${KIND}:${provider}/${modelId}`;

/**
 * The admin side of model configs: listing, upserts and deletes as versioned configuration.
 * Every change takes effect for the next model call: ModelRouter's targets and
 * ModelConfigService's rows are dropped once the change has committed.
 */
@Injectable()
export class ModelConfigAdmin {
  constructor(
    @Inject(ModelConfigRepository) private readonly repository: ModelConfigRepository,
    @Inject(ModelConfigService) private readonly configs: ModelConfigService,
    @Inject(ModelCatalog) private readonly catalog: ModelCatalog,
    @Inject(ModelRouter) private readonly router: ModelRouter,
    @Inject(SecretRepository) private readonly secrets: Pick<SecretRepository, 'isVisible'>,
    @Inject(ConfigHistory) private readonly history: ConfigHistory,
  ) {
    history.onRollback(KIND, async (auth, workspaceId, key, content) => {
      const { provider, modelId } = parseKey(key);
      const fields = content === null ? null : readFields(content);
      await this.apply(auth, workspaceId, provider, modelId, () => fields, 'rollbackConfig');
    });
    // a provider key replaced through setSecret must not be served from the router's cache
    history.afterCommit((target) => {
      if (target.startsWith('secret:')) this.router.invalidate();
    });
  }

  /** The rows that apply in the workspace: its own and the global ones. */
  async list(auth: AuthContext, workspaceId?: string | null): Promise<ModelConfigType[]> {
    const rows = await this.repository.forWorkspace(adminWorkspace(auth, workspaceId));
    return rows.map(toView);
  }

  /**
   * The catalog, and the models configured by name (rows whose modelId is not `*`), with the
   * workspace's overrides of context window, prices and tool support applied.
   */
  async models(auth: AuthContext, workspaceId?: string | null): Promise<ModelInfoType[]> {
    const workspace = adminWorkspace(auth, workspaceId);
    const named = (await this.repository.forWorkspace(workspace)).filter((row) => row.modelId !== ANY_MODEL);
    const configured = new Set(named.map((row) => `${row.provider}/${row.modelId}`));
    const models = new Map<string, { provider: string; modelId: string; inCatalog: boolean }>();
    for (const { ref } of this.catalog.list()) models.set(`${ref.provider}/${ref.modelId}`, { ...ref, inCatalog: true });
    for (const row of named) {
      const key = `${row.provider}/${row.modelId}`;
      if (!models.has(key)) models.set(key, { provider: row.provider, modelId: row.modelId, inCatalog: false });
    }
    const out: ModelInfoType[] = [];
    for (const [key, model] of models) {
      const info = this.catalog.info(model);
      const settings = await this.configs.settingsFor(model, workspace);
      out.push({
        ...model,
        contextWindow: settings.contextWindow ?? info.contextWindow,
        inputPrice: settings.inputPrice ?? info.inputPrice,
        outputPrice: settings.outputPrice ?? info.outputPrice,
        supportsTools: settings.toolsEnabled && info.supportsTools,
        configured: configured.has(key),
      });
    }
    return out;
  }

  /** Creates or changes the row of (workspace, provider, modelId): a new version of its key. */
  async upsert(auth: AuthContext, input: ModelConfigInput): Promise<ModelConfigType> {
    const workspaceId = this.scope(auth, input);
    const provider = input.provider.trim().toLowerCase();
    if (!PROVIDER_PATTERN.test(provider)) throw new BadRequestException('provider must be 1 to 64 letters, digits, `_` or `-`');
    const modelId = textArg('modelId', input.modelId, MAX_MODEL_ID);
    const patch = patchOf(input);
    if (patch.label && modelId === ANY_MODEL) throw new BadRequestException('label: a `*` config covers many models; label each model on its own config');
    const row = await this.apply(auth, workspaceId, provider, modelId, (current) => ({ ...(current ?? DEFAULTS), ...patch }), 'upsertModelConfig');
    return toView(row!);
  }

  /** Deletes a row (a version with no content); returns it as it was. */
  async delete(auth: AuthContext, id: string): Promise<ModelConfigType> {
    const row = await this.repository.findById(textArg('id', id, 100));
    const visible = row && (row.workspaceId === null || row.workspaceId === auth.workspaceId || isBootstrap(auth));
    if (!row || !visible) throw new NotFoundException(`Model config ${id} not found`);
    if (row.workspaceId === null && !isBootstrap(auth)) {
      throw new ForbiddenException('Global model configs are changed by the bootstrap admin (HELIX_API_TOKEN) only');
    }
    const deleted = await this.apply(auth, row.workspaceId, row.provider, row.modelId, (current) => {
      // deleted meanwhile: nothing to record
      if (!current) throw new NotFoundException(`Model config ${id} not found`);
      return null;
    }, 'deleteModelConfig');
    return toView(deleted!);
  }

  /** null: global, for the bootstrap admin only; otherwise the workspace the admin may act in. */
  private scope(auth: AuthContext, input: ModelConfigInput): string | null {
    if (!input.global) return adminWorkspace(auth, input.workspaceId);
    if (input.workspaceId) throw new BadRequestException('global: a global config belongs to no workspace; omit workspaceId');
    if (!isBootstrap(auth)) throw new ForbiddenException('global: global model configs are changed by the bootstrap admin (HELIX_API_TOKEN) only');
    return null;
  }

  /**
   * Writes `next(current)` (null: deletes the row) with its version, then drops the routing
   * caches so the next model call sees it. Returns the row written, or the one deleted.
   */
  private async apply(
    auth: AuthContext,
    workspaceId: string | null,
    provider: string,
    modelId: string,
    next: (current: ModelConfigFields | undefined) => ModelConfigFields | null,
    action: string,
  ): Promise<ModelConfigRow | undefined> {
    const key = modelConfigKey(provider, modelId);
    const result = await this.history.change(auth, async (tx) => {
      if (workspaceId !== null && !(await this.repository.workspaceExists(tx, workspaceId))) {
        throw new NotFoundException(`Workspace ${workspaceId} not found`);
      }
      const current = await this.repository.lockKey(tx, workspaceId, provider, modelId);
      const before = current ? fieldsOf(current) : null;
      const after = next(before ?? undefined);
      if (after?.apiKeySecretId && !(await this.secrets.isVisible(tx, after.apiKeySecretId, workspaceId))) {
        throw new BadRequestException(
          `apiKeySecretId ${after.apiKeySecretId} names no secret of this workspace${workspaceId === null ? ' (global configs need a global secret)' : ' nor a global one'}`,
        );
      }
      let row: ModelConfigRow | undefined = current;
      if (after === null) {
        if (current) await this.repository.delete(tx, current.id);
      } else {
        row = await this.repository.write(tx, { workspaceId, provider, modelId, existingId: current?.id }, after);
      }
      return { result: row, change: { workspaceId, key, action, before, after } };
    });
    this.router.invalidate();
    return result;
  }
}

/** The fields the input gives: undefined keeps the current value, null clears it. */
function patchOf(input: ModelConfigInput): Partial<ModelConfigFields> {
  const patch: Partial<ModelConfigFields> = {};
  const set = <K extends keyof ModelConfigFields>(field: K, value: ModelConfigFields[K] | null | undefined, cleared: ModelConfigFields[K]) => {
    if (value !== undefined) patch[field] = value === null ? cleared : value;
  };
  set('baseUrl', input.baseUrl, null);
  set('apiKeySecretId', input.apiKeySecretId, null);
  set('temperature', input.temperature, null);
  set('topP', input.topP, null);
  set('maxTokens', input.maxTokens, null);
  set('contextWindow', input.contextWindow, null);
  set('toolsEnabled', input.toolsEnabled, true);
  set('enabled', input.enabled, true);
  // a blank label clears it (the list then shows provider:modelId)
  set('label', typeof input.label === 'string' ? input.label.trim() || null : input.label, null);
  set('vision', input.vision, null);
  set('structuredOutput', input.structuredOutput, null);
  set('inputPrice', input.inputPrice, null);
  set('outputPrice', input.outputPrice, null);
  return patch;
}

function toView(row: ModelConfigRow): ModelConfigType {
  return { ...row, global: row.workspaceId === null, hasApiKey: row.apiKeySecretId !== null };
}

function parseKey(key: string): { provider: string; modelId: string } {
  const rest = key.slice(KIND.length + 1);
  const slash = rest.indexOf('/');
  const provider = rest.slice(0, slash);
  const modelId = rest.slice(slash + 1);
  if (slash <= 0 || !PROVIDER_PATTERN.test(provider) || !modelId) {
    throw new BadRequestException(`key must be model-config:<provider>/<modelId> (got ${key})`);
  }
  return { provider: provider.toLowerCase(), modelId };
}

/** A stored version's content as settings; history is stored JSON, so each field is checked. */
function readFields(content: unknown): ModelConfigFields {
  if (!isRecord(content)) throw new BadRequestException('The version holds no model config');
  const text = (name: keyof ModelConfigFields) => (typeof content[name] === 'string' ? (content[name] as string) : null);
  const number = (name: keyof ModelConfigFields) => (typeof content[name] === 'number' && Number.isFinite(content[name]) ? (content[name] as number) : null);
  const flag = (name: keyof ModelConfigFields) => (typeof content[name] === 'boolean' ? (content[name] as boolean) : null);
  return {
    baseUrl: text('baseUrl'),
    apiKeySecretId: text('apiKeySecretId'),
    temperature: number('temperature'),
    topP: number('topP'),
    maxTokens: number('maxTokens'),
    contextWindow: number('contextWindow'),
    toolsEnabled: content.toolsEnabled !== false,
    // versions written before these fields existed: switched on, unlabelled
    enabled: content.enabled !== false,
    label: text('label'),
    vision: flag('vision'),
    structuredOutput: flag('structuredOutput'),
    inputPrice: number('inputPrice'),
    outputPrice: number('outputPrice'),
  };
}
