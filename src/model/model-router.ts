import { Inject, Injectable, Optional } from '@nestjs/common';
import { AppConfig } from '../config';
import { SecretService } from '../security';
import { ModelCatalog, OFFLINE_MODEL, OPENAI_DEFAULT_BASE_URL } from './model-catalog';
import { ModelConfigService } from './model-config.service';
import { isRecord, say } from '../common';
import { ModelError, type ModelInfo, type ModelLimits, type ModelRef, type WorkspaceModelSettings } from './model.types';

/** The built-in default when an OpenAI key is configured (seed: the env provider's small model). */
export const BUILTIN_OPENAI_MODEL: ModelRef = Object.freeze({ provider: 'openai', modelId: 'gpt-4o-mini' });

/** Everything needed to call one model, after config rows, secrets and env are applied. */
export interface ModelTarget {
  ref: ModelRef;
  kind: 'offline' | 'openai-compatible';
  baseURL: string;
  apiKey: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  toolsEnabled: boolean;
  info: ModelInfo;
}

/**
 * How to call one model but for its key: all that choosing, describing and sizing a model need,
 * so none of them reads a secret. `key` says where the call's key comes from.
 */
export interface ModelRoute extends Omit<ModelTarget, 'apiKey'> {
  key: { secretId: string } | { value: string };
  /** false: switched off by its configuration, so a new run may not choose it */
  enabled: boolean;
  /** its configuration's name for people */
  label?: string;
}

/** A model as members' model list shows it (ModelListService). */
export interface ModelOffer {
  /** canonical; the offline model when that is what would run */
  ref: ModelRef;
  contextWindow: number;
  vision: boolean;
  label?: string;
}

export const MODEL_TARGET_CACHE_MS = 5_000;
const PROVIDER = /^[a-z0-9_-]{1,64}$/i;

/**
 * Chooses the model of a run (seed precedence: request override > conversation's model >
 * workspace `defaultModel` > HELIX_DEFAULT_MODEL > built-in) and turns a ModelRef into a callable
 * target. HELIX_FAKE_MODEL=1, or the `openai` provider without any key, means the offline model,
 * so a fresh install works end to end without credentials.
 */
@Injectable()
export class ModelRouter {
  private readonly routes = new Map<string, { until: number; value: Promise<ModelRoute> }>();
  private readonly targets = new Map<string, { until: number; value: Promise<ModelTarget> }>();
  /** provider keys revealed from secrets so far: debug output and traces must never show them */
  private readonly revealed = new Set<string>();

  constructor(
    @Inject(ModelCatalog) private readonly catalog: ModelCatalog,
    @Inject(ModelConfigService) private readonly configs: ModelConfigService,
    @Inject(AppConfig) private readonly config: AppConfig,
    @Optional() @Inject(SecretService) private readonly secrets?: Pick<SecretService, 'reveal'>,
  ) {}

  /**
   * The model for a run. `override` must be a ModelRef when given (its shape is the caller's
   * 400); stored values that are malformed are skipped. Throws ModelError('model_not_found') for
   * a provider nobody configured, or a model switched off (`enabled: false`). The result is
   * canonical and already offline-substituted.
   */
  async resolve(override?: unknown, conversationModel?: unknown, workspaceSettings?: unknown, workspaceId?: string): Promise<ModelRef> {
    if (override !== undefined && override !== null && !asModelRef(override)) {
      throw new ModelError('bad_request', say('model.bad_ref'), 400);
    }
    const chosen = asModelRef(override) ?? asModelRef(conversationModel) ?? this.defaultModel(workspaceSettings);
    const route = await this.routeOf(chosen, workspaceId);
    // a run under way keeps its model; a new one may not choose a model switched off
    if (!route.enabled) throw switchedOff(route.ref);
    return route.ref;
  }

  /** The model of a run that names none: the workspace's `defaultModel` > HELIX_DEFAULT_MODEL > built-in. */
  defaultModel(workspaceSettings?: unknown): ModelRef {
    return workspaceModelSettings(workspaceSettings).defaultModel ?? parseModelString(this.config.HELIX_DEFAULT_MODEL) ?? this.builtinDefault();
  }

  /** How `ref` would run in the workspace, as members' model list shows it; undefined when a new run may not choose it. */
  async offer(ref: ModelRef, workspaceId?: string): Promise<ModelOffer | undefined> {
    let route: ModelRoute;
    try {
      route = await this.routeOf(ref, workspaceId);
    } catch (error) {
      if (error instanceof ModelError) return undefined;
      throw error;
    }
    if (!route.enabled) return undefined;
    return { ref: route.ref, contextWindow: route.info.contextWindow, vision: route.info.vision, ...(route.label !== undefined && { label: route.label }) };
  }

  /** The workspace's fallback chain (`settings.fallbackModels`), malformed entries dropped. */
  fallbacks(workspaceSettings?: unknown): ModelRef[] {
    return workspaceModelSettings(workspaceSettings).fallbackModels ?? [];
  }

  /** resolve() and fallbacks() together, as a run needs them. */
  async route(override?: unknown, conversationModel?: unknown, workspaceSettings?: unknown, workspaceId?: string): Promise<{ model: ModelRef; fallbacks: ModelRef[] }> {
    const model = await this.resolve(override, conversationModel, workspaceSettings, workspaceId);
    return { model, fallbacks: this.fallbacks(workspaceSettings) };
  }

  /** Context window, prices and tool support of a model, with ModelConfig overrides applied. */
  async describe(ref: ModelRef, workspaceId?: string): Promise<ModelInfo> {
    return (await this.routeOf(ref, workspaceId)).info;
  }

  /** The size a prompt for `ref` must fit in (the memory module's window), config rows applied. */
  async limits(ref: ModelRef, workspaceId?: string): Promise<ModelLimits> {
    const route = await this.routeOf(ref, workspaceId);
    return { ref: route.ref, contextWindow: route.info.contextWindow, ...(route.maxTokens !== undefined && { maxOutputTokens: route.maxTokens }) };
  }

  /** How `ref` is called in the workspace, without its key (nothing secret is read): what shapes a request's body. */
  async callShape(ref: ModelRef, workspaceId?: string): Promise<Omit<ModelRoute, 'key'>> {
    const { key: _key, ...route } = await this.routeOf(ref, workspaceId);
    return route;
  }

  builtinDefault(): ModelRef {
    return this.config.OPENAI_API_KEY && !this.config.fakeModel ? BUILTIN_OPENAI_MODEL : OFFLINE_MODEL;
  }

  /** Every secret value a model request could carry or a debug view must hide (see SecretRedactor). */
  knownKeys(): string[] {
    const own = [this.config.OPENAI_API_KEY, this.config.HELIX_API_TOKEN, this.config.HELIX_MASTER_KEY, this.config.HELIX_METRICS_TOKEN];
    return [...own.filter((key): key is string => Boolean(key)), ...this.revealed];
  }

  /** Drops cached targets and config rows (call after a ModelConfig or Secret changes). */
  invalidate(): void {
    this.routes.clear();
    this.targets.clear();
    this.configs.invalidate();
  }

  /** How to call `ref`, its key included: cached for a few seconds because it sits on every call's first token. */
  target(ref: ModelRef, workspaceId?: string): Promise<ModelTarget> {
    return cached(this.targets, ref, workspaceId, async () => {
      // what chooses a model (enabled, label) is no part of calling it
      const { key, enabled: _enabled, label: _label, ...route } = await this.routeOf(ref, workspaceId);
      const apiKey = 'secretId' in key ? await this.revealKey(route.ref, key.secretId, workspaceId) : key.value;
      return { ...route, apiKey };
    });
  }

  /**
   * Whether calling `ref` now would read a stored key (its target is not cached and its
   * configuration names a secret): work a run that may still be refused should not cause.
   */
  async readsSecret(ref: ModelRef, workspaceId?: string): Promise<boolean> {
    const hit = this.targets.get(cacheKey(ref, workspaceId));
    if (hit && hit.until > Date.now()) return false;
    return 'secretId' in (await this.routeOf(ref, workspaceId)).key;
  }

  private routeOf(ref: ModelRef, workspaceId?: string): Promise<ModelRoute> {
    return cached(this.routes, ref, workspaceId, () => this.buildRoute(ref, workspaceId));
  }

  private async buildRoute(input: ModelRef, workspaceId?: string): Promise<ModelRoute> {
    const provider = input.provider.trim().toLowerCase();
    const raw = { provider, modelId: input.modelId.trim() };
    if (this.config.fakeModel || provider === 'offline') {
      if (provider === 'offline' && raw.modelId !== OFFLINE_MODEL.modelId) throw unknownModel(raw);
      return this.offlineRoute();
    }
    // A row naming the id exactly as typed wins over the catalog's alias (a local server may
    // really call its model `gpt-oss-120b`).
    const ref = (await this.configs.hasExactRow(raw, workspaceId)) ? raw : this.catalog.canonical(raw);
    const settings = await this.configs.settingsFor(ref, workspaceId);

    let baseURL: string;
    let key: ModelRoute['key'];
    if (provider === 'openai') {
      const usable = this.config.OPENAI_API_KEY || settings.apiKeySecretId || settings.baseUrl;
      if (!usable) return this.offlineRoute();
      baseURL = settings.baseUrl ?? this.config.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE_URL;
      key = settings.apiKeySecretId ? { secretId: settings.apiKeySecretId } : { value: this.config.OPENAI_API_KEY || KEYLESS };
    } else {
      if (!settings.configured || !settings.baseUrl) {
        throw new ModelError(
          'model_not_found',
          say('model.provider_not_configured', { provider }),
          undefined,
          { model: ref },
        );
      }
      baseURL = settings.baseUrl;
      key = settings.apiKeySecretId ? { secretId: settings.apiKeySecretId } : { value: KEYLESS };
    }

    const catalogInfo = this.catalog.info(ref);
    return {
      ref,
      kind: 'openai-compatible',
      baseURL,
      key,
      enabled: settings.enabled,
      ...(settings.label !== undefined && { label: settings.label }),
      temperature: settings.temperature,
      topP: settings.topP,
      maxTokens: settings.maxTokens,
      toolsEnabled: settings.toolsEnabled,
      info: {
        ref,
        contextWindow: settings.contextWindow ?? catalogInfo.contextWindow,
        inputPrice: settings.inputPrice ?? catalogInfo.inputPrice,
        outputPrice: settings.outputPrice ?? catalogInfo.outputPrice,
        supportsTools: settings.toolsEnabled && catalogInfo.supportsTools,
        vision: settings.vision ?? catalogInfo.vision,
        structuredOutput: settings.structuredOutput ?? catalogInfo.structuredOutput,
      },
    };
  }

  private offlineRoute(): ModelRoute {
    return {
      ref: OFFLINE_MODEL,
      kind: 'offline',
      baseURL: '',
      key: { value: '' },
      enabled: true,
      toolsEnabled: true,
      info: this.catalog.info(OFFLINE_MODEL),
    };
  }

  private async revealKey(ref: ModelRef, secretId: string, workspaceId?: string): Promise<string> {
    const key = this.secrets ? await this.secrets.reveal(secretId, workspaceId) : undefined;
    if (key === undefined) {
      throw new ModelError(
        'auth_failed',
        say('model.key_missing', { model: `${ref.provider}:${ref.modelId}` }),
        undefined,
        { model: ref },
      );
    }
    if (this.revealed.size > 1000) this.revealed.clear(); // rotated keys: keep the set bounded
    this.revealed.add(key);
    return key;
  }
}

/** keyless local servers (vLLM, Ollama) accept any bearer token; the SDK insists on one */
const KEYLESS = 'not-needed';

const cacheKey = (ref: ModelRef, workspaceId?: string) => `${workspaceId ?? ''}\u0000${ref.provider}\u0000${ref.modelId}`;

/** `build`'s promise, kept for MODEL_TARGET_CACHE_MS; a failure is forgotten, to be tried again on the next call. */
function cached<T>(cache: Map<string, { until: number; value: Promise<T> }>, ref: ModelRef, workspaceId: string | undefined, build: () => Promise<T>): Promise<T> {
  const key = cacheKey(ref, workspaceId);
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.until > now) return hit.value;
  const value = build();
  value.catch(() => cache.delete(key));
  cache.set(key, { until: now + MODEL_TARGET_CACHE_MS, value });
  return value;
}

function switchedOff(ref: ModelRef): ModelError {
  return new ModelError('model_not_found', say('model.switched_off', { model: `${ref.provider}:${ref.modelId}` }), undefined, { model: ref });
}

function unknownModel(ref: ModelRef): ModelError {
  return new ModelError('model_not_found', say('model.unknown', { model: `${ref.provider}:${ref.modelId}` }), undefined, { model: ref });
}

/** A well-formed ModelRef (trimmed), or undefined. Stored JSON is never trusted blindly. */
export function asModelRef(value: unknown): ModelRef | undefined {
  if (!isRecord(value)) return undefined;
  const { provider, modelId } = value;
  if (typeof provider !== 'string' || typeof modelId !== 'string') return undefined;
  const p = provider.trim();
  const m = modelId.trim();
  if (!PROVIDER.test(p) || m === '' || m.length > 256) return undefined;
  return { provider: p.toLowerCase(), modelId: m };
}

/** `provider:modelId` (the modelId may itself contain colons, as Ollama tags do). */
export function parseModelString(value: string | undefined): ModelRef | undefined {
  if (!value) return undefined;
  const colon = value.indexOf(':');
  if (colon <= 0) return undefined;
  return asModelRef({ provider: value.slice(0, colon), modelId: value.slice(colon + 1) });
}

/**
 * The model fields of a workspace's `settings` JSON; a malformed default is left out, as are
 * malformed entries of the fallback list.
 */
export function workspaceModelSettings(settings: unknown): WorkspaceModelSettings {
  if (!isRecord(settings)) return {};
  const out: WorkspaceModelSettings = {};
  const defaultModel = asModelRef(settings.defaultModel);
  if (defaultModel) out.defaultModel = defaultModel;
  if (Array.isArray(settings.fallbackModels)) {
    out.fallbackModels = [];
    for (const item of settings.fallbackModels) {
      const ref = asModelRef(item);
      if (ref) out.fallbackModels.push(ref);
    }
  }
  return out;
}
