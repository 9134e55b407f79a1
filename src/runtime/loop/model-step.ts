import { Injectable } from '@nestjs/common';
import type { MessageRecord } from '../../conversation';
import type { Citation, SubGraph } from '../../rag';
import { DEFAULT_EMBEDDING_MODEL, ModelCatalog, ModelGateway, ModelRouter, ModelError, type ModelRequest, type ModelResult, type Usage } from '../../model';
import { ToolHub } from '../../tool';
import { TokenCounter } from '../../memory';
import { knowledgeBasesIn } from '../../workspace';
import { rewritePrompt, rewrittenQuery } from './query-rewrite';
import { chargedReranker } from './rerank-call';
import { clientToolsOf } from './client-tools';
import { EventLog } from '../events/event-log';
import { ModelCall } from './model-call';
import type { RunContext } from './run-context';
import { addUsage, NO_USAGE, type RunUsage } from '../store/run.records';
import { StepDebug } from './step-debug';
import { outputLimit } from './run-sampling';
import { definedOnly } from '../../common';
import {
  BudgetGate, ContextBuilder, type EventDraft, type ModelAnswer, type PassageReranker, type QueryRewriter, StepRetriever, type StepInput, type StepSpan, StepTracer,
} from './step-hooks';

/** The longest a query rewrite may take before retrieval searches the question as written. */
export const REWRITE_TIMEOUT_MS = 15_000;

/** Why a first step its run never took was ended. */
class NotTaken extends Error {
  constructor() {
    super('not taken');
  }
}
const NOT_TAKEN = new NotTaken();

/** The code a failed call's span records: the provider's, or `not_taken`, or `internal`. */
function errorCode(error: unknown): string {
  if (error instanceof ModelError) return error.code;
  return error instanceof NotTaken ? 'not_taken' : 'internal';
}

/** The request fields of a run's sampling and response format (unset ones left out). */
function answerShape(run: StepInput['run']): Partial<ModelRequest> {
  const { temperature, topP, maxTokens, seed, stop } = run.sampling ?? {};
  return definedOnly({ temperature, topP, maxTokens, seed, stop, responseFormat: run.responseFormat ?? undefined });
}

/** A model call with every hook run: ready to send, or refused by the budget. */
export type PreparedStep =
  | {
      kind: 'ready';
      input: StepInput;
      request: ModelRequest;
      /** the prompt's estimated tokens (what the budget held for it) */
      estimatedTokens: number;
      /** what preparing it cost (a summary for its window, a query rewrite), already charged to the budget: the run adds it to its usage */
      windowCharge?: RunUsage;
      /** events the hooks asked for, emitted by the loop when it takes the call */
      events: EventDraft[];
      /** the run's retrieved sources so far: a final answer stores them */
      sources: Citation[];
      /** the knowledge graph around the question's entities: a final answer's `sources` event carries it */
      graph?: SubGraph;
      settleBudget(usage: RunUsage): Promise<void>;
      span: StepSpan;
    }
  | { kind: 'denied'; reason: string };

export type ReadyStep = Extract<PreparedStep, { kind: 'ready' }>;

/**
 * A new run's first step, prepared (and, when it could be, sent) by its creator before the run
 * was written. The loop takes it over when the run's messages are still `history`.
 */
export interface FirstStep {
  history: MessageRecord[];
  prepared: PreparedStep;
  call?: ModelCall;
  /** the step's start and its prepared events were written with the run (the loop emits neither again) */
  logged?: true;
}

/**
 * Every model call of every run goes through here: `prepare` runs the hooks (step-hooks.ts) in
 * their order, `send` makes the call, `settle` charges what it used. A new run's early first
 * call takes the same path, only sooner.
 */
@Injectable()
export class ModelStep {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly router: ModelRouter,
    private readonly retriever: StepRetriever,
    private readonly window: ContextBuilder,
    private readonly budget: BudgetGate,
    private readonly tracer: StepTracer,
    private readonly tools: ToolHub,
    private readonly events: EventLog,
    private readonly debug: StepDebug,
    private readonly tokens: TokenCounter,
  ) {}

  /** The input of the hooks for a call of `run` (the tools offered follow from its mode and the call's purpose). */
  async inputFor(run: StepInput['run'], context: RunContext, history: MessageRecord[], purpose: StepInput['purpose']): Promise<StepInput> {
    const offered = purpose === 'answer' && run.mode !== 'direct';
    const scope = { workspaceId: context.workspaceId, conversationId: run.conversationId, settings: context.settings };
    const tools = offered ? [...(await this.tools.specsFor(scope)), ...clientToolsOf(run.id, history)] : undefined;
    return { run, workspaceId: context.workspaceId, settings: context.settings, fallbacks: context.fallbacks, history, purpose, tools };
  }

  /**
   * Whether the first call of `run` may be prepared and sent before the run is admitted (its
   * row written): only when that causes nothing a refused run must not — no MCP server to
   * connect to or start, no stored key (of its models or the embedding model of classic
   * retrieval) to decrypt. Otherwise the run's loop makes the call once the run is written.
   */
  async sendsBeforeAdmission(run: StepInput['run'], context: RunContext): Promise<boolean> {
    const { settings, workspaceId } = context;
    if (run.mode !== 'direct' && !this.tools.listsAtOnce({ workspaceId, conversationId: run.conversationId, settings })) return false;
    // a prefetch embeds the question
    const embeds = knowledgeBasesIn(settings, 'prefetch').length > 0;
    // a query rewrite and a rerank are model calls of their own, made once the run is written
    if (embeds && (settings.queryRewrite || settings.rerankModel)) return false;
    const models = [run.model, ...context.fallbacks, ...(embeds ? [settings.embeddingModel ?? DEFAULT_EMBEDDING_MODEL] : [])];
    const reads = await Promise.all(models.map((model) => this.router.readsSecret(model, workspaceId)));
    return !reads.includes(true);
  }

  async prepare(input: StepInput): Promise<PreparedStep> {
    const retrieved = input.purpose === 'answer' ? await this.retriever.retrieve(input, this.rewriterFor(input), this.rerankerFor(input)) : undefined;
    const window = await this.window.build(input, retrieved);
    const request: ModelRequest = {
      model: input.run.model,
      fallbacks: input.fallbacks,
      workspaceId: input.workspaceId,
      messages: window.messages,
      ...(input.tools && { tools: input.tools }),
      // a plan or a title is no answer: the run's sampling and shape are its answer steps'
      ...(input.purpose === 'answer' && answerShape(input.run)),
    };
    const limits = await this.router.limits(input.run.model, input.workspaceId);
    const maxTokens = outputLimit(request.maxTokens, limits, window.estimatedTokens);
    if (maxTokens !== undefined) request.maxTokens = maxTokens;
    const prepared = await this.prepareCall(input, request, window.estimatedTokens, window.events, retrieved?.sources, retrieved?.graph);
    const charged = [window.charged, retrieved?.charged].filter((usage): usage is RunUsage => usage !== undefined);
    if (prepared.kind !== 'ready' || !charged.length) return prepared;
    // a summary written for the window and a query rewrite: both charged already, both the run's
    return { ...prepared, windowCharge: charged.reduce(addUsage) };
  }

  /**
   * The query rewrite of a run's retrieval: a call of purpose `rewrite` through the same hooks as
   * a title (budget held, span, `usage` event), its cost returned for the run's usage. Throws when
   * the budget refuses it or the call fails (retrieval then searches the question as written).
   */
  private rewriterFor(input: StepInput): QueryRewriter {
    return async (question) => {
      const { messages } = rewritePrompt(question, input.history, input.run.id);
      const rewriteInput: StepInput = { ...input, purpose: 'rewrite', tools: undefined };
      const estimatedTokens = this.tokens.text(messages.map((m) => m.content).join('\n'), this.tokens.family(input.run.model.modelId)) + 8;
      const request: ModelRequest = { model: input.run.model, fallbacks: input.fallbacks, workspaceId: input.workspaceId, messages, maxTokens: 200 };
      const prepared = await this.prepareCall(rewriteInput, request, estimatedTokens);
      if (prepared.kind === 'denied') throw new Error(prepared.reason);
      for (const event of prepared.events) this.events.emit(input.run.id, event.type, event.data);
      const { result, charged } = await this.complete(prepared, AbortSignal.timeout(REWRITE_TIMEOUT_MS));
      return { query: rewrittenQuery(result.text), charged };
    };
  }

  /** The rerank calls of a run's `kb_search` calls (with `rerankModel`), and what they cost. */
  async toolReranker(run: StepInput['run'], context: RunContext): Promise<ReturnType<typeof chargedReranker> | undefined> {
    const reranker = this.rerankerFor(await this.inputFor(run, context, [], 'rerank'));
    return reranker && chargedReranker(reranker);
  }

  /**
   * The rerank of a run's retrieval with the workspace's `rerankModel`: a call of purpose
   * `rerank` through the same hooks as a query rewrite (budget held at the rerank model's prices,
   * span, `usage` event), with no fallbacks (a failure keeps the fused order). Throws when the
   * budget refuses it or the call fails.
   */
  private rerankerFor(input: StepInput): PassageReranker | undefined {
    const model = input.settings.rerankModel;
    if (!model) return undefined;
    return async ({ messages, maxTokens }, signal) => {
      const rerankInput: StepInput = { ...input, run: { ...input.run, model }, purpose: 'rerank', tools: undefined };
      const estimatedTokens = this.tokens.text(messages.map((m) => m.content).join('\n'), this.tokens.family(model.modelId)) + 8;
      const request: ModelRequest = { model, workspaceId: input.workspaceId, messages, maxTokens, temperature: 0 };
      const prepared = await this.prepareCall(rerankInput, request, estimatedTokens);
      if (prepared.kind === 'denied') throw new Error(prepared.reason);
      for (const event of prepared.events) this.events.emit(input.run.id, event.type, event.data);
      const { result, charged } = await this.complete(prepared, signal);
      return { text: result.text, charged };
    };
  }

  /**
   * The hooks after the window (reserve budget, open a span) for a request already built: the
   * tail of `prepare`, and the whole of a call outside the answer steps (a conversation's title).
   * @param events what the earlier hooks asked to emit
   * @param sources what retrieval found for the run so far
   * @param graph the knowledge graph retrieval found for it
   */
  async prepareCall(
    input: StepInput, request: ModelRequest, estimatedTokens: number, events: EventDraft[] = [], sources: Citation[] = [], graph?: SubGraph,
  ): Promise<PreparedStep> {
    const reservation = await this.budget.reserve({
      workspaceId: input.workspaceId,
      runId: input.run.id,
      model: input.run.model,
      estimatedPromptTokens: estimatedTokens,
      maxOutputTokens: request.maxTokens,
      dailyTokenBudget: input.settings.dailyTokenBudget,
      dailyCostBudget: input.settings.dailyCostBudget,
    });
    if (!reservation.allowed) return { kind: 'denied', reason: reservation.reason };
    const granted = reservation.maxOutputTokens;
    if (granted !== undefined) request.maxTokens = Math.min(request.maxTokens ?? granted, granted);
    const span = this.tracer.start(input, request, estimatedTokens);
    return {
      kind: 'ready',
      input,
      request,
      estimatedTokens,
      events: [...events, ...this.debug.request(input, request)],
      sources,
      ...(graph && { graph }),
      settleBudget: (usage) => reservation.settle(usage),
      span,
    };
  }

  send(step: ReadyStep): ModelCall {
    return new ModelCall(this.gateway, step.request, step.span.observer);
  }

  /** The whole answer at once (a plan, a title), settled whether it succeeds or not. */
  async complete(step: ReadyStep, signal: AbortSignal): Promise<{ result: ModelResult; charged: RunUsage }> {
    let result: ModelResult | undefined;
    try {
      result = await this.gateway.complete(step.request, signal, step.span.observer);
    } catch (error) {
      await this.settle(step, undefined, { error });
      throw error;
    }
    const response = { text: result.text, toolCalls: result.toolCalls, finishReason: result.finishReason };
    return { result, charged: await this.settle(step, result.usage, { response }) };
  }

  /**
   * Ends the call: its usage priced, charged to the budget (the reservation released when it
   * used nothing) and announced in a `usage` event, its span closed. Returns the usage with its cost.
   * @param end why the call failed (when it did) and what it answered (as far as it came)
   */
  async settle(step: ReadyStep, usage: Usage | undefined, end: { error?: unknown; response?: ModelAnswer } = {}): Promise<RunUsage> {
    const error = end.error === undefined ? undefined : end.error instanceof Error ? end.error.message : String(end.error);
    let charged = NO_USAGE;
    if (usage) {
      const info = await this.router.describe(step.request.model, step.input.workspaceId);
      charged = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, cost: ModelCatalog.cost(usage, info) };
      this.events.emit(step.input.run.id, 'usage', { ...charged, totalTokens: charged.promptTokens + charged.completionTokens });
    }
    // a call its run never took showed no request either
    if (!(end.error instanceof NotTaken)) this.debug.response(step.input, step.request, end.response, charged, error);
    step.span.end({ usage: charged, ...(error && { error, errorCode: errorCode(end.error) }), ...(end.response && { response: end.response }) });
    await step.settleBudget(charged);
    return charged;
  }

  /** A first step its run will never take: the call aborted, its reservation and span released. */
  abandon(first: FirstStep): void {
    first.call?.discard();
    if (first.prepared.kind === 'ready') void this.settle(first.prepared, undefined, { error: NOT_TAKEN }).catch(() => undefined);
  }
}
