import { Injectable } from '@nestjs/common';
import { redactUrl } from '../common';
import { ModelRouter, parseModelString } from './model-router';
import type { ModelRequest } from './model.types';
import { chatCompletionBody, STREAM_FIELDS } from './providers/chat-body';
import { ToolNames } from './providers/tool-names';
import type { RequestView } from './request-view';

/** A model call as the HTTP request a provider was sent (no key: the caller names where it comes from). */
export type ProviderRequest =
  | { kind: 'http'; url: string; body: Record<string, unknown> }
  /** the offline model answers in process: there was no request */
  | { kind: 'offline' }
  /** the model is no longer configured (its provider removed): the body cannot be rebuilt */
  | { kind: 'unknown'; reason: string };

/**
 * Rebuilds the HTTP request of a model call from the view a trace kept of it (request-view.ts),
 * with the same body builder the provider uses and the model's current configuration (base URL,
 * defaults); the streamed attempt's fields included, as the first attempt sends them.
 */
@Injectable()
export class ProviderRequests {
  constructor(private readonly router: ModelRouter) {}

  /** `model`: `provider:modelId` that answered (a fallback may have); the view's own model otherwise. */
  async of(view: RequestView, workspaceId: string, model = view.model): Promise<ProviderRequest> {
    const ref = parseModelString(model);
    if (!ref) return { kind: 'unknown', reason: `not a model reference: ${model}` };
    let shape: Awaited<ReturnType<ModelRouter['callShape']>>;
    try {
      shape = await this.router.callShape(ref, workspaceId);
    } catch (error) {
      return { kind: 'unknown', reason: error instanceof Error ? error.message : String(error) };
    }
    if (shape.kind === 'offline') return { kind: 'offline' };
    const { fallbacks: _fallbacks, ...parameters } = view.parameters;
    const request: ModelRequest = { model: ref, workspaceId, messages: view.messages, ...(view.tools && { tools: view.tools }), ...parameters };
    const names = new ToolNames((view.tools ?? []).map((tool) => tool.name));
    const body = { ...chatCompletionBody(request, shape, names), ...STREAM_FIELDS };
    return { kind: 'http', url: `${redactUrl(shape.baseURL.replace(/\/+$/, ''))}/chat/completions`, body: body as unknown as Record<string, unknown> };
  }
}
