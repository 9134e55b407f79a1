import { REPLACEMENT, toStorableText } from '../common';
import type { ModelChunk, ToolCall } from './model.types';

type DeltaType = 'text' | 'reasoning';

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Makes the chunks of one model answer storable (common/storable-text.ts): a provider may send a
 * NUL or a lone surrogate, and the text ends up in `jsonb` event payloads and message rows.
 *
 * Deltas are checked one by one, so a pair split by the provider across two deltas would look
 * like two lone halves: a delta's trailing high surrogate is held back and put in front of the
 * next delta of the same kind. A held half that no low half follows (another kind of chunk
 * comes, or the answer ends) goes out as U+FFFD. One stream, one instance.
 */
export class StorableChunks {
  private held?: { type: DeltaType; surrogate: string };

  /**
   * The held half of a pair that `next` does not complete, as a chunk of its own (to yield
   * before `next`); undefined when nothing is held or `next` may complete it. At the end of the
   * answer call it without `next`.
   */
  orphanBefore(next?: ModelChunk): ModelChunk | undefined {
    const held = this.held;
    if (held === undefined || next?.type === held.type) return undefined;
    this.held = undefined;
    return { type: held.type, text: REPLACEMENT };
  }

  /** `chunk` made storable; undefined when nothing of it may go yet (a delta held back whole). */
  storable(chunk: ModelChunk): ModelChunk | undefined {
    switch (chunk.type) {
      case 'text':
      case 'reasoning': {
        const text = this.delta(chunk.type, chunk.text);
        if (text === chunk.text) return chunk;
        return text ? { type: chunk.type, text } : undefined;
      }
      case 'tool_call': {
        const call = storableCall(chunk.call);
        return call === chunk.call ? chunk : { ...chunk, call };
      }
      case 'tool_call_invalid': {
        const call = storableCall(chunk.call);
        const error = toStorableText(chunk.error);
        return call === chunk.call && error === chunk.error ? chunk : { ...chunk, call, error };
      }
      default:
        return chunk;
    }
  }

  private delta(type: DeltaType, input: string): string {
    let text = input;
    if (this.held !== undefined) {
      // orphanBefore() let only a delta of the held kind through
      text = this.held.surrogate + text;
      this.held = undefined;
    }
    if (text.length && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.held = { type, surrogate: text.slice(-1) };
      text = text.slice(0, -1);
    }
    return toStorableText(text);
  }
}

function storableCall(call: ToolCall): ToolCall {
  const id = toStorableText(call.id);
  const name = toStorableText(call.name);
  const args = toStorableText(call.arguments);
  return id === call.id && name === call.name && args === call.arguments ? call : { id, name, arguments: args };
}
