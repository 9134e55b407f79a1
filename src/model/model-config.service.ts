import { Inject, Injectable, Optional } from '@nestjs/common';
import { type ModelConfigRecord, ModelConfigRepository } from './model-config.repository';
import type { ModelRef } from './model.types';

/** Matches every model of a provider: a row with this modelId carries provider-wide settings. */
export const ANY_MODEL = '*';

/** ModelConfig rows merged for one model; absent fields mean "provider/catalog default". */
export interface ModelSettings {
  /** at least one row matched (an unknown provider is usable only with one) */
  configured: boolean;
  baseUrl?: string;
  apiKeySecretId?: string;
  /** workspace of the row that supplied apiKeySecretId (secrets are scoped to it) */
  apiKeyWorkspaceId?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  contextWindow?: number;
  toolsEnabled: boolean;
  /** the most specific row's: false keeps new runs from choosing the model */
  enabled: boolean;
  /** from the model's own rows only: a `*` row's would name every model of the provider alike */
  label?: string;
  /** an admin's word on whether the model takes images (unset: the catalog decides) */
  vision?: boolean;
  /** an admin's word on whether the provider accepts `response_format` (unset: OpenAI's own API only) */
  structuredOutput?: boolean;
  inputPrice?: number;
  outputPrice?: number;
}

export const MODEL_CONFIG_CACHE_MS = Symbol('MODEL_CONFIG_CACHE_MS');

interface CacheEntry {
  until: number;
  rows: Promise<ModelConfigRecord[]>;
}

/**
 * ModelConfig rows merged into the settings of one model. Rows are looked up on every model
 * call, so they are cached per (workspace, provider) for a few seconds: a database round trip
 * would otherwise sit on every run step's time-to-first-token. Admin mutations call invalidate() for immediate effect.
 *
 * Precedence, field by field: workspace row for the model > workspace row for `*` > global row
 * for the model > global row for `*`.
 */
@Injectable()
export class ModelConfigService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly ttlMs: number;

  constructor(
    @Inject(ModelConfigRepository) private readonly repository: Pick<ModelConfigRepository, 'forProvider'>,
    @Optional() @Inject(MODEL_CONFIG_CACHE_MS) ttlMs?: number,
  ) {
    this.ttlMs = ttlMs ?? 5_000;
  }

  /** Does any row name exactly this modelId (before canonicalisation)? */
  async hasExactRow(ref: ModelRef, workspaceId?: string): Promise<boolean> {
    const rows = await this.rows(ref.provider, workspaceId);
    return rows.some((row) => row.modelId === ref.modelId);
  }

  async settingsFor(ref: ModelRef, workspaceId?: string): Promise<ModelSettings> {
    const rows = await this.rows(ref.provider, workspaceId);
    const rank = (row: ModelConfigRecord) =>
      (row.workspaceId === null ? 2 : 0) + (row.modelId === ANY_MODEL ? 1 : 0);
    const matching = rows
      .filter((row) => row.modelId === ref.modelId || row.modelId === ANY_MODEL)
      .sort((a, b) => rank(a) - rank(b));
    const settings: ModelSettings = { configured: matching.length > 0, toolsEnabled: true, enabled: true };
    if (matching.length) {
      settings.toolsEnabled = matching[0].toolsEnabled;
      settings.enabled = matching[0].enabled;
    }
    // iterate from least to most specific so the most specific non-null value wins
    for (let i = matching.length - 1; i >= 0; i--) {
      const row = matching[i];
      if (row.baseUrl) settings.baseUrl = row.baseUrl;
      if (row.apiKeySecretId) {
        settings.apiKeySecretId = row.apiKeySecretId;
        settings.apiKeyWorkspaceId = row.workspaceId ?? undefined;
      }
      if (row.temperature !== null) settings.temperature = row.temperature;
      if (row.topP !== null) settings.topP = row.topP;
      if (row.maxTokens !== null) settings.maxTokens = row.maxTokens;
      if (row.contextWindow !== null) settings.contextWindow = row.contextWindow;
      if (row.label !== null && row.modelId !== ANY_MODEL) settings.label = row.label;
      if (row.vision !== null) settings.vision = row.vision;
      if (row.structuredOutput !== null) settings.structuredOutput = row.structuredOutput;
      if (row.inputPrice !== null) settings.inputPrice = row.inputPrice;
      if (row.outputPrice !== null) settings.outputPrice = row.outputPrice;
    }
    return settings;
  }

  /** Drops cached rows (call after creating, updating or deleting a ModelConfig). */
  invalidate(): void {
    this.cache.clear();
  }

  private rows(provider: string, workspaceId?: string): Promise<ModelConfigRecord[]> {
    const key = `${workspaceId ?? ''}\u0000${provider}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.rows;
    // one promise, shared by every reader of the entry (settled once, however many await it)
    const rows = this.repository.forProvider(provider, workspaceId);
    // a failed read must not be cached, or one database hiccup would stick for the TTL
    rows.catch(() => this.cache.delete(key));
    this.cache.set(key, { until: now + this.ttlMs, rows });
    return rows;
  }
}
