import { Injectable } from '@nestjs/common';
import type { ModelInfo, ModelRef, Usage } from './model.types';

/** One known model. Prices are USD per million tokens (list prices; ModelConfig rows override). */
interface CatalogEntry {
  id: string;
  aliases?: string[];
  contextWindow: number;
  inputPrice: number;
  outputPrice: number;
  supportsTools?: boolean;
  /** takes images as input */
  vision?: boolean;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export const OFFLINE_MODEL: ModelRef = Object.freeze({ provider: 'offline', modelId: 'echo' });

/**
 * Models Helix knows by name. The ids are what the provider expects on the wire; aliases are the
 * short names people type (the seed maps `gpt-oss-120b` → `openai/gpt-oss-120b`, as NVIDIA and
 * other hosts name it). Unknown ids pass through unchanged with conservative defaults, so any
 * OpenAI-compatible model works without a catalog change.
 */
const ENTRIES: CatalogEntry[] = [
  { id: 'gpt-4o-mini', contextWindow: 128_000, inputPrice: 0.15, outputPrice: 0.6, vision: true },
  { id: 'gpt-4o', contextWindow: 128_000, inputPrice: 2.5, outputPrice: 10, vision: true },
  { id: 'gpt-4.1', contextWindow: 1_047_576, inputPrice: 2, outputPrice: 8, vision: true },
  { id: 'gpt-4.1-mini', contextWindow: 1_047_576, inputPrice: 0.4, outputPrice: 1.6, vision: true },
  { id: 'gpt-4.1-nano', contextWindow: 1_047_576, inputPrice: 0.1, outputPrice: 0.4, vision: true },
  { id: 'o4-mini', contextWindow: 200_000, inputPrice: 1.1, outputPrice: 4.4, vision: true },
  { id: 'openai/gpt-oss-120b', aliases: ['gpt-oss-120b', 'gpt-oss:120b'], contextWindow: 131_072, inputPrice: 0.15, outputPrice: 0.6 },
  { id: 'openai/gpt-oss-20b', aliases: ['gpt-oss-20b', 'gpt-oss:20b'], contextWindow: 131_072, inputPrice: 0.05, outputPrice: 0.2 },
  { id: 'deepseek-ai/deepseek-r1', aliases: ['deepseek-r1'], contextWindow: 128_000, inputPrice: 0.55, outputPrice: 2.19 },
  { id: 'deepseek-chat', aliases: ['deepseek-v3'], contextWindow: 64_000, inputPrice: 0.27, outputPrice: 1.1 },
  { id: 'deepseek-reasoner', contextWindow: 64_000, inputPrice: 0.55, outputPrice: 2.19 },
  { id: 'minimaxai/minimax-m3', aliases: ['minimax-m3'], contextWindow: 1_000_000, inputPrice: 0.3, outputPrice: 1.2 },
  { id: 'meta/llama-3.3-70b-instruct', aliases: ['llama-3.3-70b-instruct', 'llama-3.3-70b'], contextWindow: 128_000, inputPrice: 0.6, outputPrice: 0.6 },
  { id: 'qwen/qwen3-235b-a22b', aliases: ['qwen3-235b-a22b'], contextWindow: 131_072, inputPrice: 0.2, outputPrice: 0.6 },
  { id: 'text-embedding-3-small', contextWindow: 8_191, inputPrice: 0.02, outputPrice: 0, supportsTools: false },
  { id: 'text-embedding-3-large', contextWindow: 8_191, inputPrice: 0.13, outputPrice: 0, supportsTools: false },
  { id: 'echo', contextWindow: 32_768, inputPrice: 0, outputPrice: 0, vision: true },
];

/** Unknown models: small enough that the memory module never overfills a real model's window. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

@Injectable()
export class ModelCatalog {
  private readonly byId = new Map<string, CatalogEntry>();

  constructor() {
    for (const entry of ENTRIES) {
      this.byId.set(entry.id.toLowerCase(), entry);
      for (const alias of entry.aliases ?? []) this.byId.set(alias.toLowerCase(), entry);
    }
  }

  /** The wire id for `modelId` (alias → canonical); unknown ids are returned trimmed, unchanged. */
  canonicalId(modelId: string): string {
    const trimmed = modelId.trim();
    return this.byId.get(trimmed.toLowerCase())?.id ?? trimmed;
  }

  /** `ref` with its modelId canonicalised and its provider lower-cased. */
  canonical(ref: ModelRef): ModelRef {
    return { provider: ref.provider.trim().toLowerCase(), modelId: this.canonicalId(ref.modelId) };
  }

  /** Catalog facts for a model; unknown models get conservative defaults and price 0. */
  info(ref: ModelRef): ModelInfo {
    const canonical = this.canonical(ref);
    const entry = this.byId.get(canonical.modelId.toLowerCase());
    return {
      ref: canonical,
      contextWindow: entry?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      inputPrice: entry?.inputPrice ?? 0,
      outputPrice: entry?.outputPrice ?? 0,
      supportsTools: entry?.supportsTools ?? true,
      vision: entry?.vision ?? false,
      // the OpenAI API accepts response_format; other providers are asked for the format in the prompt
      structuredOutput: canonical.provider === 'openai' || canonical.provider === 'offline',
    };
  }

  isKnown(modelId: string): boolean {
    return this.byId.has(modelId.trim().toLowerCase());
  }

  /** Every canonical entry, for admin listings. */
  list(): ModelInfo[] {
    return ENTRIES.map((entry) =>
      this.info({ provider: entry.id === 'echo' ? 'offline' : 'openai', modelId: entry.id }),
    );
  }

  /** Cost in USD of `usage` at the given prices (per million tokens). */
  static cost(usage: Pick<Usage, 'promptTokens' | 'completionTokens'>, info: Pick<ModelInfo, 'inputPrice' | 'outputPrice'>): number {
    return (usage.promptTokens * info.inputPrice + usage.completionTokens * info.outputPrice) / 1_000_000;
  }
}
