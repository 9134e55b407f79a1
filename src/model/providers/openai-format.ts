import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { repairToolArguments } from '../tool-args-repair';
import type { ChatMessage, FinishReason, ModelChunk, ResponseFormat, ToolSpec, Usage } from '../model.types';
import type { OpenAiUsage, ToolCallDelta } from './openai-wire';
import type { ToolNames } from './tool-names';

/**
 * The reasoning text of a delta or message: gpt-oss (vLLM, NVIDIA) and DeepSeek send it under
 * names the SDK's types do not know. Some servers send both names with the same text during
 * their rename, so one is taken, never both.
 */
export function reasoningOf(value: object): string | undefined {
  const content = 'reasoning_content' in value ? value.reasoning_content : undefined;
  if (typeof content === 'string' && content) return content;
  const reasoning = 'reasoning' in value ? value.reasoning : undefined;
  return typeof reasoning === 'string' && reasoning ? reasoning : undefined;
}

/** `names`: how tool names are sent (aliases of names the provider refuses); as they are without it. */
export function toOpenAiMessages(messages: ChatMessage[], names?: ToolNames): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    switch (m.role) {
      case 'assistant':
        out[i] = m.toolCalls?.length
          ? {
              role: 'assistant',
              // OpenAI accepts null content next to tool calls; some servers reject ""
              content: m.content || null,
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: names ? names.provider(c.name) : c.name, arguments: c.arguments },
              })),
            }
          : { role: 'assistant', content: m.content };
        break;
      case 'tool':
        out[i] = { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
        break;
      case 'user':
        out[i] = m.images?.length
          ? {
              role: 'user',
              content: [
                ...(m.content ? [{ type: 'text' as const, text: m.content }] : []),
                ...m.images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mediaType};base64,${image.data}` } })),
              ],
            }
          : { role: 'user', content: m.content };
        break;
      default:
        out[i] = { role: m.role, content: m.content };
    }
  }
  return out;
}

/** OpenAI's wire shape of a response format. */
export function toOpenAiResponseFormat(format: ResponseFormat): NonNullable<ChatCompletionCreateParamsBase['response_format']> {
  if (format.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, ...(format.strict !== undefined && { strict: format.strict }) } };
}

/** What a model that takes no `response_format` is told about the shape of its final answer. */
export function formatInstructions(format: ResponseFormat): string {
  const head = 'When you give your final answer (not a tool call), reply with one JSON value only: no prose and no code fence.';
  if (format.type === 'json_object') return `${head} It must be a JSON object.`;
  return `${head} It must be valid against this JSON Schema (named "${format.name}"):\n${JSON.stringify(format.schema)}`;
}

/** The messages with the format's instructions added to the system prompt (or as one, when there is none). */
export function withFormatInstructions(messages: ChatMessage[], format: ResponseFormat): ChatMessage[] {
  const instructions = formatInstructions(format);
  const at = messages.findIndex((m) => m.role === 'system');
  if (at < 0) return [{ role: 'system', content: instructions }, ...messages];
  const out = messages.slice();
  out[at] = { role: 'system', content: `${messages[at].content}\n\n${instructions}` };
  return out;
}

export function toOpenAiTools(tools: ToolSpec[], names?: ToolNames): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: names ? names.provider(t.name) : t.name, description: t.description, parameters: t.parameters },
  }));
}

export function mapFinishReason(reason: string | null | undefined, hadToolCalls: boolean): FinishReason {
  // Some servers finish a tool-calling turn with "stop"; what the caller must do is run the tools.
  if (hadToolCalls) return 'tool_calls';
  switch (reason) {
    case 'length':
    case 'content_filter':
    case 'tool_calls':
      return reason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'stop';
  }
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

let callCounter = 0;
/** For servers that send a tool call without an id (the id must pair the call with its result). */
export function generatedCallId(): string {
  callCounter = (callCounter + 1) % 1_000_000;
  return `call_h${Date.now().toString(36)}${callCounter.toString(36)}`;
}

/**
 * Assembles streamed tool-call deltas into complete calls by `index`. Tolerates servers that omit
 * the index (treated as 0) or reuse index 0 for parallel calls with distinct ids.
 */
export class ToolCallAssembler {
  private readonly calls: PendingCall[] = [];
  private readonly slotOfIndex = new Map<number, number>();
  /** characters of arguments received, for usage estimates */
  chars = 0;

  add(deltas: ToolCallDelta[]): void {
    for (const delta of deltas) {
      const index = typeof delta.index === 'number' ? delta.index : 0;
      let slot = this.slotOfIndex.get(index);
      let call = slot === undefined ? undefined : this.calls[slot];
      if (!call || (delta.id && call.id && delta.id !== call.id)) {
        call = { id: delta.id ?? '', name: '', args: '' };
        slot = this.calls.push(call) - 1;
        this.slotOfIndex.set(index, slot);
      }
      if (delta.id && !call.id) call.id = delta.id;
      const fn = delta.function;
      if (fn) {
        // the name comes whole in the first delta; servers that repeat it must not double it
        if (fn.name && !call.name) call.name = fn.name;
        if (fn.arguments) {
          call.args += fn.arguments;
          this.chars += fn.arguments.length;
        }
      }
    }
  }

  get size(): number {
    return this.calls.length;
  }

  /** The assembled calls as chunks, in arrival order, arguments repaired or rejected; aliases mapped back by `names`. */
  finish(names?: ToolNames): ModelChunk[] {
    return this.calls.map((c) => finishToolCall(c.id || generatedCallId(), names ? names.helix(c.name) : c.name, c.args));
  }
}

/** A complete call → `tool_call` (arguments valid or repaired) or `tool_call_invalid`. */
export function finishToolCall(id: string, name: string, rawArgs: string): ModelChunk {
  if (!name) {
    return {
      type: 'tool_call_invalid',
      call: { id, name: '', arguments: rawArgs },
      error: 'The tool call had no tool name; call the tool again with its name.',
    };
  }
  const result = repairToolArguments(rawArgs);
  if (result.ok) return { type: 'tool_call', call: { id, name, arguments: result.json }, repaired: result.repaired };
  return {
    type: 'tool_call_invalid',
    call: { id, name, arguments: rawArgs },
    error: `The arguments for ${name} were not valid JSON (${result.reason}); call the tool again with one complete JSON object.`,
  };
}

/** Characters of every message, for a chars/4 estimate when a provider reports no usage. */
export function promptChars(messages: ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += m.content.length;
    if (m.role === 'assistant' && m.toolCalls) for (const c of m.toolCalls) n += c.name.length + c.arguments.length;
  }
  return n;
}

export function estimateUsage(promptCharCount: number, completionCharCount: number): Usage {
  const promptTokens = Math.ceil(promptCharCount / 4);
  const completionTokens = Math.ceil(completionCharCount / 4);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}

export function fromOpenAiUsage(u: OpenAiUsage): Usage {
  const promptTokens = u.prompt_tokens ?? 0;
  const completionTokens = u.completion_tokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: u.total_tokens ?? promptTokens + completionTokens };
}
