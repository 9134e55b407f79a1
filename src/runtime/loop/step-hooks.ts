import type { MessageRecord } from '../../conversation';
import type { LatestSummary } from '../../memory';
import type { EffectiveSettings } from '../../workspace';
import type { Citation, SubGraph } from '../../rag';
import type { CitationLedger } from '../../tool';
import { SourceLedger } from './source-ledger';
import type { CallObserver, ChatMessage, FinishReason, ModelRef, ModelRequest, ResponseFormat, SamplingParams, ToolCall, ToolSpec } from '../../model';
import type { EventDraft } from '../store/run-events';
import type { RunMode, RunPlan, RunUsage } from '../store/run.records';

/**
 * The seams other modules plug into a run's model calls. `ModelStep.prepare` runs them, in this
 * order, before every model call of every run (the first one of a new run, sent early,
 * included): retrieve (RAG, classic mode) → build the window (memory) → reserve budget
 * (observe) → open a span (observe). Each is an abstract class used as an injection token; the
 * runtime provides a default for each, replaced by the owning module when it lands.
 */

/**
 * What a model call is for: the answer steps of a run, the plan of a plan-mode run, a
 * conversation's title, the risk rating of a tool call (the optional analyzer), the rewrite of a
 * follow-up question into a standalone search query (the `queryRewrite` setting), the reordering
 * of retrieved passages (the `rerankModel` setting).
 */
export type CallPurpose = 'answer' | 'plan' | 'title' | 'risk' | 'rewrite' | 'rerank';

/** Everything a hook may look at; the run may not be stored yet (its first, early call). */
export interface StepInput {
  run: {
    id: string;
    conversationId: string;
    mode: RunMode;
    model: ModelRef;
    plan: RunPlan | null;
    step: number;
    /** what its answer steps sample with and the shape of its answer (the run row's) */
    sampling?: SamplingParams | null;
    responseFormat?: ResponseFormat | null;
    /** instructions for this run only, added to its system prompt (the run row's) */
    instructions?: string | null;
  };
  workspaceId: string;
  settings: EffectiveSettings;
  fallbacks: ModelRef[];
  /** the conversation's messages, the run's own included */
  history: MessageRecord[];
  purpose: CallPurpose;
  /** the tools the model may call (none in direct mode or for a plan) */
  tools?: ToolSpec[];
  /** the conversation's summary, read with `history` (a run's first call): memory does not read it again */
  summary?: LatestSummary;
}

/** An event a hook wants the run to emit; emitted when the run's loop takes the call over. */
export type { EventDraft };

export interface Retrieved {
  /** text for the system prompt (prefetched passages with their citation numbers), or '' */
  context: string;
  /** the run's sources so far, in citation order: the final answer stores them and its `sources` event lists them */
  sources: Citation[];
  /** what prefetch retrieval searched for (the rewritten question with `queryRewrite`) */
  query?: string;
  /** what rewriting the query and reranking cost (charged to the budget already; the run adds it to its usage) */
  charged?: RunUsage;
  /** the knowledge graph around the question's entities: the final answer's `sources` event carries it */
  graph?: SubGraph;
}

/**
 * The query rewrite of a run, as a model call the run makes (budget, span, `usage` event):
 * turns its question and recent history into a standalone search query.
 */
export type QueryRewriter = (question: string) => Promise<{ query: string; charged: RunUsage }>;

/**
 * The rerank of a run's retrieval (the `rerankModel` setting), as a model call the run makes
 * (budget, span, `usage` event): the rerank model's answer to the request, and what it cost.
 */
export type PassageReranker = (
  request: { messages: ChatMessage[]; maxTokens: number },
  signal: AbortSignal,
) => Promise<{ text: string; charged: RunUsage }>;

/** RAG: what the model should read before it answers (classic mode), and the sources the run has cited from. */
export abstract class StepRetriever {
  /**
   * @param rewrite makes the query rewrite call, for retrieval that wants one (the `queryRewrite` setting)
   * @param rerank makes the rerank call (with the `rerankModel` setting)
   */
  abstract retrieve(input: StepInput, rewrite?: QueryRewriter, rerank?: PassageReranker): Promise<Retrieved | undefined>;

  /** The numbering of the run's sources for the searches its tool calls make (what was prefetched comes first). */
  async citations(input: CitationInput): Promise<CitationLedger> {
    return new SourceLedger([], input.history, input.run.id);
  }
}

export type CitationInput = Pick<StepInput, 'workspaceId' | 'settings' | 'history'> & { run: Pick<StepInput['run'], 'id' | 'model' | 'step'> };

export interface ContextWindow {
  messages: ChatMessage[];
  /** the prompt's size in tokens, as well as it can be told before the call */
  estimatedTokens: number;
  events: EventDraft[];
  /** what a summary written for this window cost (charged to the daily budget already; the run adds it to its usage) */
  charged?: RunUsage;
}

/** Memory: the messages the model sees, within its context window. */
export abstract class ContextBuilder {
  abstract build(input: StepInput, retrieved: Retrieved | undefined): Promise<ContextWindow>;
}

export interface BudgetRequest {
  workspaceId: string;
  /** absent for a call outside runs (knowledge-graph extraction at ingestion) */
  runId?: string;
  model: ModelRef;
  estimatedPromptTokens: number;
  /** the call's output limit, when it has one */
  maxOutputTokens?: number;
  /** the workspace's daily budgets (unset: unlimited) */
  dailyTokenBudget?: number;
  dailyCostBudget?: number;
}

/**
 * Budget held for one model call: `settle` replaces it with what the call really used. Under a
 * budget, `maxOutputTokens` is the output limit that was reserved: the call is sent with it.
 */
export type BudgetReservation =
  | { allowed: true; maxOutputTokens?: number; settle(usage: RunUsage): Promise<void> }
  | { allowed: false; /** shown to the user when the run stops for budget */ reason: string };

/** Observe: daily budgets, enforced by reserving before each call. */
export abstract class BudgetGate {
  abstract reserve(request: BudgetRequest): Promise<BudgetReservation>;
}

/** A model call's answer as traces and `debug` events show it. */
export interface ModelAnswer {
  text: string;
  toolCalls: ToolCall[];
  finishReason?: FinishReason;
}

export interface SpanOutcome {
  usage?: RunUsage;
  /** why the call failed, was cancelled or discarded */
  error?: string;
  /** a ModelError's code, `aborted`, `not_taken` (a first call its run never took) or `internal` */
  errorCode?: string;
  /** the model's answer (as far as it came), for traces */
  response?: ModelAnswer;
}

export interface StepSpan {
  /** passed to the gateway: attempts, failures, first chunk, finish */
  observer?: CallObserver;
  end(outcome: SpanOutcome): void;
}

/** Observe: a span around each model call (the request it sends, as sent). */
export abstract class StepTracer {
  abstract start(input: StepInput, request: ModelRequest, estimatedTokens: number): StepSpan;
}

/** A conversation's first completed exchange: what its auto-title is made from. */
export interface Exchange {
  /** the conversation's first user message */
  question: string;
  /** the run's final answer */
  answer: string;
}

/** What a title call sends (to the run's model), and its size as well as it can be told. */
export interface TitlePrompt {
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  estimatedTokens: number;
}

/**
 * Memory: auto-titles. After the final answer of a run whose conversation still has its
 * default title (and before the run finishes, so that the `title` event precedes `done`), the
 * runtime asks the run's model for a title with memory's prompt, as a model call of the run
 * (budget, span, `usage` event: purpose `title`), and memory stores it unless the user set a
 * title meanwhile. Not one of the hooks before a step's model call.
 */
export abstract class ConversationTitler {
  /** the conversation still has its default title (checked again when a title is stored) */
  abstract needsTitle(conversationId: string): Promise<boolean>;
  abstract prompt(exchange: Exchange): TitlePrompt;
  /** stores the title in the model's answer, unless there is none or the user set one: the title stored */
  abstract store(conversationId: string, answer: string): Promise<string | undefined>;
}
