/**
 * The core (runtime + conversation) against a real database, without HTTP: the Nest application
 * context of AppModule.forRoot, opened as src/app.factory.ts opens it but never listening, with
 * the model replaced by a script (ScriptedModel) and the budget and tracing hooks by recorders.
 * Tests call the services (RunService.postMessage(auth, …)) and read what the run left: its
 * row, its events (EventLog.page), its messages, and what the model was asked.
 *
 * PGlite in memory by default; with HELIX_TEST_DATABASE_URL a throwaway PostgreSQL database.
 */
import { Test, type TestingModule } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { newId } from '../../src/common/ids';
import { type AppConfig, loadConfig } from '../../src/config/app-config';
import type { MessageRecord } from '../../src/conversation/conversation.records';
import { ConversationService } from '../../src/conversation/conversation.service';
import { DatabaseHandle } from '../../src/database/database-handle';
import { openDatabase } from '../../src/database/database.module';
import type { PrismaService } from '../../src/database/prisma.service';
import { prismaOf } from './test-prisma';
import { SqlClient } from '../../src/database/sql-client';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { ModelGateway } from '../../src/model/model-gateway';
import { ModelRouter } from '../../src/model/model-router';
import type { ChatMessage, ModelChunk, ModelRequest, ModelResult, ToolCall, ToolSpec, Usage } from '../../src/model/model.types';
import { modelError } from '../../src/model/provider-errors';
import { bootstrapAuth, type AuthContext } from '../../src/security/auth-context';
import { EventLog } from '../../src/runtime/events/event-log';
import type { RunEvent } from '../../src/runtime/store/run-events';
import { RunExecutor } from '../../src/runtime/loop/run-executor';
import type { RunState } from '../../src/runtime/store/run-fsm';
import type { PostMessageDto } from '../../src/runtime/api/run.dto';
import type { RunChanges, RunRecord, RunUsage } from '../../src/runtime/store/run.records';
import { RunRepository } from '../../src/runtime/store/run.repository';
import { type PostedMessage, RunService } from '../../src/runtime/api/run.service';
import { AutoTitler } from '../../src/runtime/loop/auto-titler';
import { AutoTitleService } from '../../src/memory/auto-title/auto-title.service';
import {
  BudgetGate,
  type BudgetRequest,
  ConversationTitler,
  type BudgetReservation,
  type Retrieved,
  type SpanOutcome,
  type StepInput,
  StepRetriever,
  type Exchange,
  type StepSpan,
  StepTracer,
  type TitlePrompt,
} from '../../src/runtime/loop/step-hooks';
import { createTestDatabase, type TestDatabase } from './test-database';
import { GENEROUS_LIMITS, STARTUP_TIMEOUT_MS } from './limits';

// ---- the scripted model ----------------------------------------------------------------------

/** One answer of the scripted model, streamed in this order: reasoning, text, (hang), tool calls, error or usage. */
export interface ScriptedAnswer {
  reasoning?: string[];
  /** text deltas */
  text?: string[];
  /** after the deltas: wait until the call is aborted (`true`), or until the promise settles (or the abort) */
  hang?: true | Promise<void>;
  toolCalls?: ToolCall[];
  invalidToolCalls?: { call: ToolCall; error: string }[];
  /** thrown after the deltas (a provider failure mid-answer, or before anything if there are none) */
  error?: Error;
  /** default: 10 prompt tokens and one completion token per delta; `null`: the provider sent none */
  usage?: Omit<Usage, 'totalTokens'> | null;
}

/** A request the model received, and what became of it. */
export interface ModelCallRecord {
  request: ModelRequest;
  messages: ChatMessage[];
  tools: string[];
  signal?: AbortSignal;
  /** the call reached its `hang` (it is streaming and waits) */
  hanging: boolean;
  /**
   * how the stream ended: `answered` (all of the script), `aborted`, `failed` (the scripted
   * error); none for a call discarded before it was read to its end (see `aborted`)
   */
  outcome?: 'answered' | 'aborted' | 'failed';
  /** its request was aborted (the run's signal, or the call discarded) */
  readonly aborted: boolean;
}

/**
 * Stands in for ModelGateway: each call takes the next scripted answer and records what it was
 * asked. An abort ends a call with ModelError('aborted'), as the gateway does. A call with
 * nothing scripted fails with a message saying so (the run then fails `internal`).
 */
export class ScriptedModel {
  private readonly script: ScriptedAnswer[] = [];
  readonly calls: ModelCallRecord[] = [];
  /** shared with the hooks by the harness: the order in which calls, reservations and spans happened */
  order: string[] = [];

  /** Queues answers for the next calls, in order. */
  answer(...answers: ScriptedAnswer[]): this {
    this.script.push(...answers);
    return this;
  }

  get unused(): number {
    return this.script.length;
  }

  reset(): void {
    this.script.length = 0;
    this.calls.length = 0;
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
    const record: ModelCallRecord = {
      request,
      messages: request.messages,
      tools: (request.tools ?? []).map((tool: ToolSpec) => tool.name),
      signal,
      hanging: false,
      get aborted() {
        return signal?.aborted === true;
      },
    };
    this.calls.push(record);
    this.order.push('model.call');
    const answer = this.script.shift();
    try {
      if (signal?.aborted) throw modelError('aborted', { model: request.model });
      if (!answer) throw new Error(`The scripted model has no answer left for call ${this.calls.length}`);
      for (const text of answer.reasoning ?? []) yield { type: 'reasoning', text };
      for (const text of answer.text ?? []) yield { type: 'text', text };
      if (answer.hang) {
        record.hanging = true;
        await untilAborted(signal, answer.hang === true ? undefined : answer.hang);
        record.hanging = false;
        if (signal?.aborted) throw modelError('aborted', { model: request.model });
      }
      for (const call of answer.toolCalls ?? []) yield { type: 'tool_call', call, repaired: false };
      for (const invalid of answer.invalidToolCalls ?? []) yield { type: 'tool_call_invalid', ...invalid };
      if (answer.error) {
        record.outcome = 'failed';
        throw answer.error;
      }
      const deltas = (answer.text?.length ?? 0) + (answer.reasoning?.length ?? 0);
      const usage = answer.usage === undefined ? { promptTokens: 10, completionTokens: deltas } : answer.usage;
      if (usage) yield { type: 'usage', usage: { ...usage, totalTokens: usage.promptTokens + usage.completionTokens } };
      yield { type: 'finish', reason: answer.toolCalls?.length ? 'tool_calls' : 'stop', model: request.model };
      record.outcome = 'answered';
    } catch (error) {
      record.outcome ??= signal?.aborted ? 'aborted' : 'failed';
      throw error;
    }
  }

  /** The whole answer at once, collected from `stream` exactly as the gateway collects it. */
  complete(request: ModelRequest, signal?: AbortSignal): Promise<ModelResult> {
    return ModelGateway.prototype.complete.call(this as unknown as ModelGateway, request, signal);
  }
}

function untilAborted(signal: AbortSignal | undefined, release?: Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
    release?.then(resolve, resolve);
  });
}

// ---- recording hooks -------------------------------------------------------------------------

export interface Reservation {
  request: BudgetRequest;
  /** what the call was charged with, once settled */
  settled?: RunUsage;
}

/** A BudgetGate that records every reservation and its settlement; `refuse` makes it deny. */
export class RecordingBudget extends BudgetGate {
  readonly reservations: Reservation[] = [];
  readonly refused: BudgetRequest[] = [];
  refuse?: string;

  constructor(private readonly order: string[]) {
    super();
  }

  async reserve(request: BudgetRequest): Promise<BudgetReservation> {
    this.order.push('budget.reserve');
    if (this.refuse) {
      this.refused.push(request);
      return { allowed: false, reason: this.refuse };
    }
    const reservation: Reservation = { request };
    this.reservations.push(reservation);
    return { allowed: true, settle: async (usage) => void (reservation.settled = usage) };
  }

  reset(): void {
    this.reservations.length = 0;
    this.refused.length = 0;
    this.refuse = undefined;
  }
}

export interface RecordedSpan {
  input: StepInput;
  ended?: SpanOutcome;
}

/** A StepTracer that records every span and how it ended. */
export class RecordingTracer extends StepTracer {
  readonly spans: RecordedSpan[] = [];

  constructor(private readonly order: string[]) {
    super();
  }

  start(input: StepInput): StepSpan {
    this.order.push('span.start');
    const span: RecordedSpan = { input };
    this.spans.push(span);
    return { end: (outcome) => void (span.ended = outcome) };
  }

  reset(): void {
    this.spans.length = 0;
  }
}

/** A StepRetriever that records what it was asked and retrieves `next` (nothing by default). */
export class RecordingRetriever extends StepRetriever {
  readonly inputs: StepInput[] = [];
  next?: Retrieved;

  async retrieve(input: StepInput): Promise<Retrieved | undefined> {
    this.inputs.push(input);
    return this.next;
  }

  reset(): void {
    this.inputs.length = 0;
    this.next = undefined;
  }
}

/**
 * Memory's auto-titles, off unless a test turns them on (`enabled`): a title call would take an
 * answer scripted for a run.
 */
export class SwitchableTitler extends ConversationTitler {
  enabled = false;

  constructor(private readonly real: ConversationTitler) {
    super();
  }

  needsTitle(conversationId: string): Promise<boolean> {
    return this.enabled ? this.real.needsTitle(conversationId) : Promise.resolve(false);
  }

  prompt(exchange: Exchange): TitlePrompt {
    return this.real.prompt(exchange);
  }

  store(conversationId: string, answer: string): Promise<string | undefined> {
    return this.real.store(conversationId, answer);
  }
}

// ---- the harness -----------------------------------------------------------------------------

export const TERMINAL: RunState[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'BUDGET_EXCEEDED'];
/** where a run's driver stops: finished, or waiting for a person */
export const SETTLED: RunState[] = [...TERMINAL, 'AWAIT_APPROVAL', 'AWAIT_USER'];

export const AUTH: AuthContext = bootstrapAuth('token');

/** An event as tests compare it: type and payload. */
export type EventView = Pick<RunEvent, 'type' | 'data'> & { seq: number };

export interface CoreHarness {
  module: TestingModule;
  config: AppConfig;
  model: ScriptedModel;
  budget: RecordingBudget;
  tracer: RecordingTracer;
  retriever: RecordingRetriever;
  /** auto-titles (off by default) */
  titler: SwitchableTitler;
  /** model calls, budget reservations and spans, in the order they happened */
  order: string[];
  sql: SqlClient;
  prisma: PrismaService;
  runs: RunService;
  executor: RunExecutor;
  runRows: RunRepository;
  conversations: ConversationService;
  events: EventLog;
  /** any provider of the application, by its class */
  get<T>(token: { prototype: T }): T;
  /** a conversation of the default workspace; `settings` as a client would send them */
  conversation(settings?: Record<string, unknown>): Promise<string>;
  post(conversationId: string, text: string, dto?: Omit<PostMessageDto, 'text'>): Promise<PostedMessage>;
  /** polls the run until its state is one of `states`, then waits until no driver of it is running here */
  waitForRun(runId: string, states?: RunState[]): Promise<RunRecord>;
  /** resolves once every execution of the run started on this instance has returned */
  idle(runId: string): Promise<void>;
  waitUntil(what: string, predicate: () => boolean | Promise<boolean>): Promise<void>;
  eventsOf(runId: string): Promise<EventView[]>;
  messagesOf(conversationId: string): Promise<MessageRecord[]>;
  /**
   * Writes a run as a crash would leave it (no lease unless given), with the user message that
   * started it: state EXECUTING at step 1 unless `changes` and `state` say otherwise.
   */
  seedRun(conversationId: string, text: string, options?: SeedRun): Promise<RunRecord>;
  /** a tool_policies row: `tool` in this conversation is confirmed or forbidden */
  toolPolicy(conversationId: string, tool: string, mode: 'always' | 'confirm' | 'forbid'): Promise<void>;
  /**
   * Posts `text`; the model asks for `call`, whose tool this conversation must confirm: resolves
   * once the run waits for that approval.
   */
  awaitingApproval(conversationId: string, text: string, call: ToolCall): Promise<{ run: RunRecord; approvalId: string }>;
  /**
   * A second instance (its own executor, event log, model and hooks) on the same database,
   * closed with this one. Its bootstrap recovers orphaned runs; on the embedded database it
   * first releases every lease (the database belongs to one process), this instance's included.
   */
  another(options?: { model?: ScriptedModel; env?: Record<string, string> }): Promise<CoreHarness>;
  /** clears the script, the recorders and the order log */
  reset(): void;
  close(): Promise<void>;
}

export interface SeedRun {
  state?: RunState;
  step?: number;
  changes?: RunChanges;
  lease?: { owner: string; until: Date };
  maxSteps?: number;
}

export async function startCore(env: Record<string, string> = {}): Promise<CoreHarness> {
  const database = await createTestDatabase();
  const full = { LOG_LEVEL: 'silent', HELIX_FAKE_MODEL: '1', ...GENEROUS_LIMITS, ...database.env, ...env };
  const handle = await openDatabase(loadConfig(full), { log: () => undefined, warn: () => undefined });
  try {
    return await build(full, handle, database, new ScriptedModel());
  } catch (error) {
    await handle.close();
    await database.drop();
    throw error;
  }
}

/** `startCore` run by the calling `describe`'s beforeAll (closed after its tests); fields set once it ran. */
export function useCore(env: Record<string, string> = {}): CoreHarness {
  const ref = {} as { current?: CoreHarness };
  beforeAll(async () => {
    ref.current = await startCore(env);
  }, STARTUP_TIMEOUT_MS);
  beforeEach(() => ref.current?.reset());
  afterAll(async () => {
    await ref.current?.close();
  });
  return new Proxy({} as CoreHarness, {
    get: (_, key) => {
      if (!ref.current) throw new Error('useCore: the harness is used before beforeAll ran');
      return ref.current[key as keyof CoreHarness];
    },
  });
}

async function build(
  env: Record<string, string>,
  handle: DatabaseHandle,
  database: TestDatabase | undefined,
  model: ScriptedModel,
  order: string[] = [],
): Promise<CoreHarness> {
  const config = loadConfig(env);
  const budget = new RecordingBudget(order);
  const tracer = new RecordingTracer(order);
  const retriever = new RecordingRetriever();
  model.order = order;
  const module = await Test.createTestingModule({ imports: [AppModule.forRoot(config, handle)] })
    .overrideProvider(ModelGateway)
    .useValue(model)
    .overrideProvider(BudgetGate)
    .useValue(budget)
    .overrideProvider(StepTracer)
    .useValue(tracer)
    .overrideProvider(StepRetriever)
    .useValue(retriever)
    .overrideProvider(ConversationTitler)
    .useFactory({ factory: (titles: AutoTitleService) => new SwitchableTitler(new AutoTitler(titles)), inject: [AutoTitleService] })
    .compile();
  if (!process.env.HELIX_TEST_LOGS) module.useLogger(false);

  const executor = module.get(RunExecutor);
  // every execution of a run, so that tests can wait until its driver returned
  const executions = new Map<string, Promise<void>[]>();
  const execute = executor.execute.bind(executor);
  executor.execute = (runId: string) => {
    const running = execute(runId);
    executions.set(runId, [...(executions.get(runId) ?? []), running]);
    return running;
  };
  await module.init(); // bootstrap: the executor recovers orphaned runs here

  const sql = module.get(SqlClient);
  const runRows = module.get(RunRepository);
  const conversations = module.get(ConversationService);
  const events = module.get(EventLog);
  const runs = module.get(RunService);

  const waitUntil = async (what: string, predicate: () => boolean | Promise<boolean>) => {
    const deadline = Date.now() + 15_000;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const idle = async (runId: string) => {
    for (let seen = 0; seen < (executions.get(runId)?.length ?? 0); seen++) await executions.get(runId)![seen];
  };
  const eventsOf = async (runId: string) => (await events.page(runId, 0)).map(({ seq, type, data }) => ({ seq, type, data }) as EventView);

  const harness: CoreHarness = {
    module,
    config,
    model,
    budget,
    tracer,
    retriever,
    titler: module.get(ConversationTitler) as SwitchableTitler,
    order,
    sql,
    prisma: prismaOf(module),
    runs,
    executor,
    runRows,
    conversations,
    events,
    get: <T>(token: { prototype: T }) => module.get<T>(token as never),
    conversation: async (settings) => (await conversations.create(AUTH, { title: 'core test', ...(settings && { settings }) })).id,
    post: (conversationId, text, dto = {}) => runs.postMessage(AUTH, conversationId, { text, ...dto }),
    waitForRun: async (runId, states = SETTLED) => {
      let run: RunRecord | undefined;
      try {
        await waitUntil(`run ${runId} is ${states.join(' or ')}`, async () => {
          run = await runRows.find(runId);
          return !!run && states.includes(run.state);
        });
      } catch (error) {
        const seen = (await eventsOf(runId)).map((e) => `${e.seq} ${e.type} ${JSON.stringify(e.data)}`).join('\n');
        throw new Error(`${(error as Error).message} (it is ${run?.state}); its events:\n${seen}`);
      }
      await idle(runId);
      return (await runRows.find(runId))!;
    },
    idle,
    waitUntil,
    eventsOf,
    messagesOf: (conversationId) => conversations.history(conversationId),
    seedRun: async (conversationId, text, options = {}) => {
      const id = newId('run'); // ordered by time like every run id: the context window relies on it
      const unit = new UnitOfWork();
      const insert = runRows.insertIn(unit, {
        id,
        conversationId,
        mode: 'react',
        goal: text,
        model: module.get(ModelRouter).builtinDefault(),
        maxSteps: options.maxSteps ?? config.HELIX_MAX_STEPS,
        whenLive: 'skip',
        lease: options.lease ?? { owner: 'a-process-that-died', until: new Date(0) },
        startNow: (options.state ?? 'EXECUTING') === 'EXECUTING',
      });
      conversations.appendIn(unit, { conversationId, runId: id, content: text, parts: { kind: 'user' } }, insert.inserted);
      await unit.run(sql);
      if (!options.lease) await sql.$executeRaw`UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE id = ${id}`;
      if (options.state && options.state !== 'EXECUTING' && options.state !== 'CREATED') {
        await sql.$executeRaw`UPDATE runs SET state = ${options.state}::"RunState" WHERE id = ${id}`;
      }
      if (options.step !== undefined) await sql.$executeRaw`UPDATE runs SET step = ${options.step} WHERE id = ${id}`;
      if (options.changes) await runRows.update(id, options.changes);
      return (await runRows.find(id))!;
    },
    toolPolicy: async (conversationId, tool, mode) => {
      await prismaOf(module).toolPolicy.create({
        data: { id: newId('tp'), workspaceId: AUTH.workspaceId, conversationId, tool, mode },
      });
    },
    awaitingApproval: async (conversationId, text, call) => {
      await harness.toolPolicy(conversationId, call.name, 'confirm');
      model.answer({ toolCalls: [call] });
      const posted = await runs.postMessage(AUTH, conversationId, { text });
      const run = await harness.waitForRun(posted.run.id);
      if (run.pendingAction?.type !== 'approval') throw new Error(`Run ${run.id} is ${run.state}, not waiting for an approval`);
      return { run, approvalId: run.pendingAction.approvalId };
    },
    another: async (options = {}) => {
      const shared = Object.create(handle, { close: { value: async () => undefined } }) as DatabaseHandle;
      const other = await build({ ...env, ...options.env }, shared, undefined, options.model ?? new ScriptedModel());
      opened.push(other);
      return other;
    },
    reset: () => {
      model.reset();
      budget.reset();
      tracer.reset();
      retriever.reset();
      (module.get(ConversationTitler) as SwitchableTitler).enabled = false;
      order.length = 0;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const other of opened.splice(0)) await other.close();
      await module.close(); // shutdown hooks: the executor stops its runs, the database closes
      await database?.drop();
    },
  };
  const opened: CoreHarness[] = [];
  let closed = false;
  return harness;
}

// ---- reading what a run left -----------------------------------------------------------------

/** The text of the run's token events, in order. */
export const tokenText = (events: EventView[]) =>
  events
    .filter((e) => e.type === 'token')
    .map((e) => (e.data as { text: string }).text)
    .join('');

/** Messages in a form that prints well in a failed expectation. */
export const briefly = (messages: MessageRecord[]) =>
  messages.map(({ seq, role, content, parts, toolCallId, runId }) => ({ seq, role, content, parts, toolCallId, runId }));

export const toolCall = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

/** A promise and its resolver, to release a scripted answer that hangs. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
