import { Injectable } from '@nestjs/common';
import type { ChatMessage, ToolSpec } from '../model';
import { LruCache } from './lru-cache';

/** How a model's tokens are counted: exactly with an OpenAI encoding, or estimated. */
export type TokenFamily = 'o200k_base' | 'cl100k_base' | 'estimate';

/**
 * What a chat message costs beyond its text (OpenAI's chat format: role and separators), what
 * each tool call and tool definition adds, and the tokens that prime the reply. Other providers'
 * templates differ by a few tokens; the window's reserve absorbs that.
 */
export const MESSAGE_OVERHEAD = 3;
export const TOOL_CALL_OVERHEAD = 3;
export const TOOL_SPEC_OVERHEAD = 8;
export const REPLY_PRIMING = 3;
/**
 * What an attached image is counted as: about what OpenAI bills a 1024×1024 image at high detail
 * (765). Providers count images by their size; a fixed cost keeps the window honest without
 * decoding every image.
 */
export const IMAGE_TOKENS = 765;

/** Texts longer than this are counted every time rather than kept as cache keys. */
const MAX_CACHED_TEXT = 16_384;

interface Encoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/** User text may contain `<|endoftext|>` and the like: counted as plain text, never refused. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The encodings are loaded on first use: o200k_base alone takes over half a second to load and
 * tens of MB, which a deployment that only talks to other models should not pay.
 */
const encodings: Partial<Record<Exclude<TokenFamily, 'estimate'>, Encoding>> = {};
function encoding(family: Exclude<TokenFamily, 'estimate'>): Encoding {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
  const load = (): Encoding => (family === 'o200k_base' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base'));
  return (encodings[family] ??= load());
}

/** The family of a model id (`openai/gpt-oss-120b` is read as `gpt-oss-120b`). */
export function tokenFamily(modelId: string): TokenFamily {
  const id = modelId.trim().toLowerCase().split('/').pop() ?? '';
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o1|o3|o4|codex)/.test(id)) return 'o200k_base';
  if (/^(gpt-3\.5|gpt-4|text-embedding-3|text-embedding-ada)/.test(id)) return 'cl100k_base';
  return 'estimate';
}

/** Han, kana, Hangul, CJK punctuation and full-width forms: about one token each in most tokenizers. */
function isCjk(code: number): boolean {
  return (
    (code >= 0x3000 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xff00 && code <= 0xffef)
  );
}

/**
 * A calibrated estimate for models whose tokenizer Helix does not ship: about one token per CJK
 * character, four characters per token of ASCII (English and code), two for other scripts
 * (Cyrillic, Greek, accented Latin tokenise worse than English). Supplementary-plane characters
 * (rare Han, emoji) count one each.
 */
export function estimateTokens(text: string): number {
  let cjk = 0;
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    else if (isCjk(code)) cjk++;
    else if (code >= 0xd800 && code <= 0xdbff) {
      cjk++;
      i++; // its low surrogate
    } else other++;
  }
  return cjk + Math.ceil(ascii / 4) + Math.ceil(other / 2);
}

/**
 * Counts prompt tokens: exactly for OpenAI-family models (gpt-tokenizer), estimated otherwise.
 * Stored messages never change, so their counts are cached by id and family (bounded LRU): a
 * window of a long conversation is then rebuilt without tokenizing it again.
 */
@Injectable()
export class TokenCounter {
  private readonly byMessage = new LruCache<string, number>(50_000);
  private readonly byText = new LruCache<string, number>(1_000);

  family(modelId: string): TokenFamily {
    return tokenFamily(modelId);
  }

  text(text: string, family: TokenFamily): number {
    if (!text) return 0;
    if (text.length > MAX_CACHED_TEXT) return this.count(text, family);
    const key = `${family}\u0000${text}`;
    const cached = this.byText.get(key);
    if (cached !== undefined) return cached;
    const tokens = this.count(text, family);
    this.byText.set(key, tokens);
    return tokens;
  }

  /** One chat message with its overhead and tool calls; `id` (a stored message's) caches it. */
  message(message: ChatMessage, family: TokenFamily, id?: string): number {
    const key = id === undefined ? undefined : `${family}\u0000${id}`;
    const cached = key === undefined ? undefined : this.byMessage.get(key);
    if (cached !== undefined) return cached;
    let tokens = MESSAGE_OVERHEAD + this.count(message.content, family);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) tokens += TOOL_CALL_OVERHEAD + this.count(call.name, family) + this.count(call.arguments, family);
    } else if (message.role === 'tool') {
      tokens += this.count(message.toolCallId, family);
    } else if (message.role === 'user') {
      tokens += (message.images?.length ?? 0) * IMAGE_TOKENS;
    }
    if (key !== undefined) this.byMessage.set(key, tokens);
    return tokens;
  }

  /** The tool definitions offered with a call (their JSON, as providers serialise them). */
  tools(tools: ToolSpec[] | undefined, family: TokenFamily): number {
    let tokens = 0;
    for (const tool of tools ?? []) {
      tokens += TOOL_SPEC_OVERHEAD + this.text(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }), family);
    }
    return tokens;
  }

  private count(text: string, family: TokenFamily): number {
    if (!text) return 0;
    return family === 'estimate' ? estimateTokens(text) : encoding(family).countTokens(text, PLAIN_TEXT);
  }
}
