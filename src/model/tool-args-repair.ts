import { isRecord } from '../common';

/**
 * Tool-call argument repair (after Gaia's tryFixAndParse). Small models often stop a deeply nested
 * argument object early (`{"steps":[{"a":1},{"b":2}`) or add a stray brace. We repair only damage
 * whose fix is unambiguous; anything else is reported so the run answers the call with a tool
 * error and the model can retry — a guessed argument is worse than a clear error.
 *
 * Repaired: missing closing `}`/`]` outside strings (appended in the right order), a trailing comma
 * before a closer or at the cut, trailing text after one complete object, a ```json fence, empty
 * arguments (→ `{}`, not counted as a repair: providers send "" for tools without parameters).
 * Not repaired: an unterminated string (where did it end?), a key without a value, mismatched
 * brackets, several concatenated values, a top level that is not an object.
 */

export type ArgsRepairResult =
  | { ok: true; json: string; repaired: boolean }
  | { ok: false; reason: string };

const FENCE = /^```[a-zA-Z]*\s*([\s\S]*?)\s*```$/;

export function repairToolArguments(raw: string): ArgsRepairResult {
  // Fast path: nearly every call is already valid, so the common case costs one JSON.parse.
  const direct = parseObject(raw);
  if (direct === true) return { ok: true, json: raw, repaired: false };

  let text = raw.trim();
  if (text === '') return { ok: true, json: '{}', repaired: false };
  if (direct === 'not-object') return { ok: false, reason: 'the arguments must be a JSON object' };

  const fenced = FENCE.exec(text);
  if (fenced) text = fenced[1].trim();
  if (text[0] !== '{') return { ok: false, reason: 'the arguments must be a JSON object' };

  const rebuilt = rebuild(text);
  if (typeof rebuilt !== 'string') return rebuilt;
  const check = parseObject(rebuilt);
  if (check === true) return { ok: true, json: rebuilt, repaired: true };
  return { ok: false, reason: check === 'not-object' ? 'the arguments must be a JSON object' : check };
}

/** true when `text` is a JSON object; otherwise why not. */
function parseObject(text: string): true | 'not-object' | string {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? true : 'not-object';
  } catch (error) {
    return `invalid JSON (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * Walks the text once, outside strings tracking the open brackets, and returns the repaired text
 * or a failure. Stops at the end of the first complete top-level object.
 */
function rebuild(text: string): string | { ok: false; reason: string } {
  const closers: string[] = [];
  let out = '';
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '{' || ch === '[') {
      closers.push(ch === '{' ? '}' : ']');
      out += ch;
    } else if (ch === '}' || ch === ']') {
      if (closers.pop() !== ch) return { ok: false, reason: 'mismatched brackets' };
      out = dropTrailingComma(out) + ch;
      if (closers.length === 0) {
        const rest = text.slice(i + 1).trim();
        // trailing text (a stray brace, a sentence) is dropped; a second value is ambiguous
        if (!/^[[{]/.test(rest)) return out;
        return { ok: false, reason: 'several JSON values where one object was expected' };
      }
    } else {
      out += ch;
    }
  }
  if (inString) return { ok: false, reason: 'unterminated string' };
  out = dropTrailingComma(out);
  if (/:\s*$/.test(out)) return { ok: false, reason: 'a key without a value' };
  for (let i = closers.length - 1; i >= 0; i--) out += closers[i];
  return out;
}

function dropTrailingComma(text: string): string {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1])) end--;
  return end > 0 && text[end - 1] === ',' ? text.slice(0, end - 1) : text;
}
