import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import { OPENAI_DEFAULT_BASE_URL } from '../model-catalog';
import type { ModelTarget } from '../model-router';
import type { ModelRequest } from '../model.types';
import { toOpenAiMessages, toOpenAiResponseFormat, toOpenAiTools, withFormatInstructions } from './openai-format';
import type { ToolNames } from './tool-names';

/** What shapes a request's body: the target but for its key (an export builds bodies without reading any). */
export type BodyTarget = Pick<ModelTarget, 'ref' | 'baseURL' | 'temperature' | 'topP' | 'maxTokens' | 'toolsEnabled' | 'info'>;

/**
 * The `/chat/completions` body of `request` for `target` (without `stream`): the one function
 * both the provider and the cURL export (ProviderRequests) build it with, so an export shows
 * exactly what was sent.
 */
export function chatCompletionBody(request: ModelRequest, target: BodyTarget, names: ToolNames): ChatCompletionCreateParamsBase {
  // a model that does not take `response_format` is asked for the shape in its prompt
  const format = request.responseFormat;
  const messages = format && !target.info.structuredOutput ? withFormatInstructions(request.messages, format) : request.messages;
  const body: ChatCompletionCreateParamsBase = {
    model: target.ref.modelId,
    messages: toOpenAiMessages(messages, names),
  };
  if (format && target.info.structuredOutput) body.response_format = toOpenAiResponseFormat(format);
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.stop?.length) body.stop = request.stop;
  if (request.tools?.length && target.toolsEnabled) body.tools = toOpenAiTools(request.tools, names);
  // the caller's explicit value, else the ModelConfig row, else the provider's default
  const temperature = request.temperature ?? target.temperature;
  const topP = request.topP ?? target.topP;
  const maxTokens = request.maxTokens ?? target.maxTokens;
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (maxTokens !== undefined) {
    // OpenAI's reasoning models reject the legacy max_tokens; many compatible servers know only it
    if (target.baseURL.startsWith(OPENAI_DEFAULT_BASE_URL)) body.max_completion_tokens = maxTokens;
    else body.max_tokens = maxTokens;
  }
  return body;
}

/** What a streamed attempt adds to the body. */
export const STREAM_FIELDS = { stream: true, stream_options: { include_usage: true } } as const;
