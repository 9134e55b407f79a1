import { Injectable } from '@nestjs/common';
import { newId } from '../common';
import type { Sql } from '../database';
import { Prisma, SqlClient, equalsOrNull } from '../database';

/** One ModelConfig: settings for a model (or every model of a provider) globally or in a workspace. */
export interface ModelConfigRecord {
  id: string;
  /** null: applies to every workspace */
  workspaceId: string | null;
  provider: string;
  /** a model id, or `*` for every model of the provider */
  modelId: string;
  baseUrl: string | null;
  /** the Secret holding the provider key (never the key itself) */
  apiKeySecretId: string | null;
  temperature: number | null;
  topP: number | null;
  maxTokens: number | null;
  contextWindow: number | null;
  toolsEnabled: boolean;
  /** false: new runs may not choose the model, and members' model list leaves it out */
  enabled: boolean;
  /** the name members' model list shows */
  label: string | null;
  /** takes images as input; null: as the model catalog says */
  vision: boolean | null;
  /** accepts `response_format`; null: only the OpenAI provider is assumed to */
  structuredOutput: boolean | null;
  /** USD per million tokens */
  inputPrice: number | null;
  outputPrice: number | null;
}

/** A row as the admin API shows it: with its timestamps. */
export interface ModelConfigRow extends ModelConfigRecord {
  createdAt: Date;
  updatedAt: Date;
}

/** The settings of a row, as written and as configuration history records them. */
export type ModelConfigFields = Omit<ModelConfigRecord, 'id' | 'workspaceId' | 'provider' | 'modelId'>;

/** The columns of a ModelConfigRow under its names. */
const COLUMNS = Prisma.sql`id, workspace_id AS "workspaceId", provider, model_id AS "modelId", base_url AS "baseUrl",
  api_key_secret_id AS "apiKeySecretId", temperature, top_p AS "topP", max_tokens AS "maxTokens",
  context_window AS "contextWindow", tools_enabled AS "toolsEnabled", enabled, label, vision, structured_output AS "structuredOutput", input_price AS "inputPrice",
  output_price AS "outputPrice", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** All SQL of the ModelConfig aggregate (`model_configs`). */
@Injectable()
export class ModelConfigRepository {
  constructor(private readonly sql: SqlClient) {}

  /**
   * The rows of `provider` that apply in a workspace: its own and the global ones (without a
   * workspace, the global ones only).
   */
  async forProvider(provider: string, workspaceId?: string): Promise<ModelConfigRecord[]> {
    const rows = await this.sql.$queryRaw<ModelConfigRow[]>`
      SELECT ${COLUMNS} FROM model_configs
      WHERE provider = ${provider} AND (workspace_id IS NULL ${workspaceId ? Prisma.sql`OR workspace_id = ${workspaceId}` : Prisma.empty})
      ORDER BY id`;
    return rows.map(toModelConfigRecord);
  }

  /** Every row that applies in a workspace (its own and the global ones), by provider and model. */
  async forWorkspace(workspaceId: string): Promise<ModelConfigRow[]> {
    return this.sql.$queryRaw<ModelConfigRow[]>`
      SELECT ${COLUMNS} FROM model_configs WHERE workspace_id = ${workspaceId} OR workspace_id IS NULL
      ORDER BY provider, model_id, id`;
  }

  /** The workspace's settings JSON (its default model leads members' model list), or undefined without the workspace. */
  async workspaceSettings(workspaceId: string): Promise<unknown> {
    const rows = await this.sql.$queryRaw<{ settings: unknown }[]>`SELECT settings FROM workspaces WHERE id = ${workspaceId}`;
    return rows[0]?.settings ?? undefined;
  }

  async findById(id: string): Promise<ModelConfigRow | undefined> {
    const rows = await this.sql.$queryRaw<ModelConfigRow[]>`SELECT ${COLUMNS} FROM model_configs WHERE id = ${id}`;
    return rows[0];
  }

  /**
   * The row of (workspace, provider, model), locked until `tx` ends. The unique index does not
   * hold for global rows (NULLs are distinct), so writers of one key first take a transaction
   * advisory lock on it: two admins saving the same key queue up instead of inserting twice.
   */
  async lockKey(tx: Sql, workspaceId: string | null, provider: string, modelId: string): Promise<ModelConfigRow | undefined> {
    const lockName = `model-config:${workspaceId ?? '*'}:${provider}/${modelId}`;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${lockName}))`;
    const rows = await tx.$queryRaw<ModelConfigRow[]>`
      SELECT ${COLUMNS} FROM model_configs
      WHERE ${equalsOrNull('workspace_id', workspaceId)} AND provider = ${provider} AND model_id = ${modelId} FOR UPDATE`;
    return rows[0];
  }

  /** Does the workspace exist (the bootstrap admin may name any id)? Locked against deletion until `tx` ends. */
  async workspaceExists(tx: Sql, workspaceId: string): Promise<boolean> {
    const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR SHARE`;
    return rows.length > 0;
  }

  /** Inserts the row of (workspace, provider, model), or replaces the settings of `existingId`. */
  async write(
    tx: Sql,
    key: { workspaceId: string | null; provider: string; modelId: string; existingId?: string },
    fields: ModelConfigFields,
  ): Promise<ModelConfigRow> {
    const f = fields;
    const rows = key.existingId
      ? await tx.$queryRaw<ModelConfigRow[]>`
          UPDATE model_configs SET base_url = ${f.baseUrl}, api_key_secret_id = ${f.apiKeySecretId},
            temperature = ${f.temperature}::float8, top_p = ${f.topP}::float8, max_tokens = ${f.maxTokens}::int,
            context_window = ${f.contextWindow}::int, tools_enabled = ${f.toolsEnabled}, enabled = ${f.enabled},
            label = ${f.label}, vision = ${f.vision}::boolean, structured_output = ${f.structuredOutput}::boolean, input_price = ${f.inputPrice}::float8, output_price = ${f.outputPrice}::float8, updated_at = now()
          WHERE id = ${key.existingId}
          RETURNING ${COLUMNS}`
      : await tx.$queryRaw<ModelConfigRow[]>`
          INSERT INTO model_configs (id, workspace_id, provider, model_id, base_url, api_key_secret_id, temperature, top_p,
            max_tokens, context_window, tools_enabled, enabled, label, vision, structured_output, input_price, output_price, updated_at)
          VALUES (${newId('mc')}, ${key.workspaceId}, ${key.provider}, ${key.modelId}, ${f.baseUrl}, ${f.apiKeySecretId},
            ${f.temperature}::float8, ${f.topP}::float8, ${f.maxTokens}::int, ${f.contextWindow}::int, ${f.toolsEnabled},
            ${f.enabled}, ${f.label}, ${f.vision}::boolean, ${f.structuredOutput}::boolean, ${f.inputPrice}::float8, ${f.outputPrice}::float8, now())
          RETURNING ${COLUMNS}`;
    return rows[0];
  }

  async delete(tx: Sql, id: string): Promise<void> {
    await tx.$executeRaw`DELETE FROM model_configs WHERE id = ${id}`;
  }
}

/** The settings of a row, without its identity or timestamps (what a version of it records). */
export function fieldsOf(row: ModelConfigRecord): ModelConfigFields {
  return {
    baseUrl: row.baseUrl,
    apiKeySecretId: row.apiKeySecretId,
    temperature: row.temperature,
    topP: row.topP,
    maxTokens: row.maxTokens,
    contextWindow: row.contextWindow,
    toolsEnabled: row.toolsEnabled,
    enabled: row.enabled,
    label: row.label,
    vision: row.vision,
    structuredOutput: row.structuredOutput,
    inputPrice: row.inputPrice,
    outputPrice: row.outputPrice,
  };
}

/** A row without its timestamps. */
function toModelConfigRecord(row: ModelConfigRow): ModelConfigRecord {
  return { id: row.id, workspaceId: row.workspaceId, provider: row.provider, modelId: row.modelId, ...fieldsOf(row) };
}
