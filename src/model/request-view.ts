import type { ChatMessage, ModelRequest, ToolSpec } from './model.types';
import { formatModelRef } from './provider-errors';

/** A model request as debug events and traces show it: messages, tool schemas and parameters as sent. */
export interface RequestView {
  /** `provider:modelId` asked for (a fallback may answer) */
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** sampling, output limit, the answer's shape (sent as `response_format`, or asked for in the prompt) and the fallbacks */
  parameters: Pick<ModelRequest, 'temperature' | 'topP' | 'maxTokens' | 'seed' | 'stop' | 'responseFormat'> & { fallbacks: string[] };
}

/** The view of `request` (not redacted: the caller redacts what it shows or keeps). */
export function requestView(request: ModelRequest): RequestView {
  return {
    model: formatModelRef(request.model),
    messages: request.messages.map(withoutImageBytes),
    ...(request.tools && { tools: request.tools }),
    parameters: {
      ...(request.temperature !== undefined && { temperature: request.temperature }),
      ...(request.topP !== undefined && { topP: request.topP }),
      ...(request.maxTokens !== undefined && { maxTokens: request.maxTokens }),
      ...(request.seed !== undefined && { seed: request.seed }),
      ...(request.stop?.length && { stop: request.stop }),
      ...(request.responseFormat && { responseFormat: request.responseFormat }),
      fallbacks: (request.fallbacks ?? []).map(formatModelRef),
    },
  };
}

/** An image's bytes would flood debug events and traces: they show its type and size instead. */
function withoutImageBytes(message: ChatMessage): ChatMessage {
  if (message.role !== 'user' || !message.images?.length) return message;
  return { ...message, images: message.images.map((image) => ({ mediaType: image.mediaType, data: `[${base64Bytes(image.data)} bytes]` })) };
}

/** The bytes a base64 text decodes to. */
export function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}
