interface Encoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

let encoding: Encoding | undefined;
/** Text that contains `<|endoftext|>` and the like is counted as plain text, never refused. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Tokens of `text` in cl100k_base, the encoding of OpenAI's embedding models: chunk sizes are
 * what the embedding model sees. Loaded on first use (it takes a moment and tens of MB).
 */
export function countTokens(text: string): number {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
  encoding ??= require('gpt-tokenizer/encoding/cl100k_base') as Encoding;
  return encoding.countTokens(text, PLAIN_TEXT);
}

/** A prompt's size in tokens, as well as it can be told before a model call of any family (the budget holds a margin). */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);
