import type { SchemaObject } from '@nestjs/swagger';
import { TASK_STATUSES } from '../../workdir';
import { PLAN_STEP_STATUSES, type RunEventType, type SubrunStatus } from './run-events';

/*
 * The JSON schema of each run event's payload, for the OpenAPI document (components `RunEvent`,
 * a oneOf discriminated on `type`). The mapped type below is keyed by RunEventPayloads' names, so
 * an event added to run-events.ts does not compile until its schema is written here: the document,
 * the emitters' types and docs/EVENTS.md cannot list different events. test/openapi-client.e2e-spec.ts
 * validates real events against these schemas.
 */

const str = (description?: string): SchemaObject => ({ type: 'string', ...(description && { description }) });
const int = (description?: string): SchemaObject => ({ type: 'integer', ...(description && { description }) });
const num = (description?: string): SchemaObject => ({ type: 'number', ...(description && { description }) });
const bool: SchemaObject = { type: 'boolean' };
/** any JSON value (a tool's arguments, a structured output) */
const anyJson = (description: string): SchemaObject => ({ description });

/** An object with `props`, every one required except those named in `optional`. */
function obj(props: Record<string, SchemaObject>, optional: string[] = [], description?: string): SchemaObject {
  const required = Object.keys(props).filter((name) => !optional.includes(name));
  return { type: 'object', properties: props, ...(required.length > 0 && { required }), ...(description && { description }) };
}

const PLAN_STEP = obj(
  {
    title: str(),
    detail: str(),
    status: { type: 'string', enum: [...PLAN_STEP_STATUSES], description: 'absent: pending' },
    summary: str("a done step's result, a failed step's error"),
    attempts: int('how many times the step was started'),
  },
  ['detail', 'status', 'summary', 'attempts'],
);

const DEBUG = {
  oneOf: [
    obj(
      {
        kind: { type: 'string', enum: ['request'] },
        step: int(),
        model: str('`provider:modelId` asked for'),
        messages: { type: 'array', items: { type: 'object', additionalProperties: true } },
        tools: { type: 'array', items: { type: 'object', additionalProperties: true } },
        parameters: { type: 'object', additionalProperties: true },
      },
      ['tools'],
      'what the model was sent (secrets redacted)',
    ),
    obj(
      {
        kind: { type: 'string', enum: ['response'] },
        step: int(),
        model: str(),
        text: str(),
        toolCalls: { type: 'array', items: obj({ id: str(), name: str(), arguments: str('the JSON text the model produced') }) },
        finishReason: { type: 'string', enum: ['stop', 'length', 'tool_calls', 'content_filter', 'error'] },
        usage: obj({ promptTokens: int(), completionTokens: int(), cost: num() }),
        error: str('why the call failed, when it did'),
      },
      ['finishReason', 'error'],
      'what the model answered',
    ),
    obj(
      { kind: { type: 'string', enum: ['tool_result'] }, step: int(), callId: str(), name: str(), ok: bool, output: str() },
      [],
      'what a tool returned',
    ),
  ],
} satisfies SchemaObject;

/** SubrunStatus's values (a type only, in run-events.ts): `satisfies` keeps the two the same. */
const SUBRUN_STATUSES = ['started', 'succeeded', 'failed', 'cancelled', 'budget_exceeded'] as const satisfies readonly SubrunStatus[];
// …and lists every one: a status added to the type alone makes this `false`, which does not compile
export const SUBRUN_STATUSES_LISTED: [SubrunStatus] extends [(typeof SUBRUN_STATUSES)[number]] ? true : false = true;

/** name → payload schema, one per event of RunEventPayloads (run-events.ts); descriptions say when it is sent. */
export const RUN_EVENT_PAYLOAD_SCHEMAS: { readonly [K in RunEventType]: SchemaObject } = {
  status: obj(
    {
      phase: { type: 'string', enum: ['thinking', 'planning', 'tool', 'waiting', 'summarizing'] },
      text: str('what the run does, in the reader’s language'),
      step: int('the step a `thinking` status starts, resumes or restarts'),
      restart: { type: 'boolean', enum: [true], description: 'the step starts over: the text shown of it is void' },
      options: { type: 'array', items: obj({ id: str(), label: str() }), description: "an `ask_user` question's choices" },
    },
    ['step', 'restart', 'options'],
    "the run's phase changed",
  ),
  token: obj({ text: str() }, [], 'text the model wrote (coalesced deltas)'),
  reasoning: obj({ text: str() }, [], 'reasoning the model wrote'),
  plan: obj({ steps: { type: 'array', items: PLAN_STEP } }, [], 'the plan proposed, or edited with each step’s progress'),
  'plan.step': obj(
    { index: int(), title: str(), status: { type: 'string', enum: [...PLAN_STEP_STATUSES] }, summary: str(), attempt: int('2 and up: retried') },
    ['summary', 'attempt'],
    'a step of an approved plan changed status',
  ),
  'tool.start': obj({ callId: str(), name: str(), args: anyJson("the call's arguments") }, [], 'a tool call starts'),
  'tool.end': obj({ callId: str(), name: str(), ok: bool, output: str(), durationMs: int() }, [], 'a tool call ended'),
  'tool.client': obj({ callId: str(), name: str(), args: anyJson("the call's arguments") }, [], 'a client-side tool the client is to run'),
  approval: obj(
    {
      approvalId: str(),
      callId: str(),
      name: str(),
      args: anyJson("the call's arguments"),
      risk: str(),
      assessedBy: { type: 'string', enum: ['analyzer'] },
      reason: str("the risk analyzer's one-line reason"),
    },
    ['assessedBy', 'reason'],
    'a tool call waits for a decision',
  ),
  tasks: obj(
    { tasks: { type: 'array', items: obj({ id: str(), title: str(), status: { type: 'string', enum: [...TASK_STATUSES] } }) } },
    [],
    "the agent's to-do list of the conversation, whole, after task_tracker changed it",
  ),
  sources: obj(
    {
      items: { type: 'array', items: obj({ id: str(), documentId: str(), title: str(), source: str(), snippet: str(), score: num() }) },
      graph: obj(
        {
          entities: { type: 'array', items: obj({ id: str(), knowledgeBaseId: str(), name: str(), type: str(), mentions: int('chunks mentioning it') }) },
          relations: {
            type: 'array',
            items: obj({
              source: str('entity id'),
              target: str('entity id'),
              label: str(),
              weight: int('chunks stating it'),
              chunkIds: { type: 'array', items: str() },
              documentIds: { type: 'array', items: str() },
            }),
          },
        },
        [],
        'the knowledge graph around the entities the question names (knowledge bases with `graph` on)',
      ),
    },
    ['graph'],
    'the knowledge-base passages the answer may cite',
  ),
  context: obj(
    {
      model: str(),
      contextWindow: int(),
      estimatedTokens: int(),
      historyMessages: int(),
      summarized: bool,
      retrieved: int(),
      query: str('what prefetch retrieval searched for (the rewritten question with `queryRewrite`); absent without prefetch'),
    },
    ['query'],
    'what the model is sent this step',
  ),
  token_warning: obj({ percentage: num(), estimatedTokens: int(), limit: int() }, [], 'the context nears its window'),
  usage: obj({ promptTokens: int(), completionTokens: int(), totalTokens: int(), cost: num() }, [], 'tokens and cost so far'),
  error: obj({ code: str('stable, for programs'), message: str('in the reader’s language') }, [], 'the run failed (`done` follows)'),
  debug: { ...DEBUG, description: 'only with the `debug` setting' },
  subrun: obj(
    {
      runId: str('the child run'),
      agentId: str(),
      agent: str(),
      callId: str('the `delegate` call'),
      task: str(),
      state: str("the child's run state"),
      status: { type: 'string', enum: [...SUBRUN_STATUSES] },
      answer: str("a succeeded child's final answer (bounded)"),
      error: obj({ code: str(), message: str() }),
    },
    ['answer', 'error'],
    'a `delegate` call’s child run started or ended',
  ),
  title: obj({ title: str() }, [], "the conversation's new auto-title"),
  done: obj(
    { runId: str(), state: str('the final state'), output: anyJson("a run with a response format: its answer, parsed") },
    ['output'],
    'the run ended; the stream closes',
  ),
};

/** `tool.start` → `ToolStartEvent`: a component name (letters only) for each event. */
export function runEventSchemaName(type: string): string {
  return `${type.split(/[._]/).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('')}Event`;
}

/**
 * The components the OpenAPI document adds for run events: one object per event
 * (`{seq, type, data, at}` with `type` fixed and `data` its payload) and `RunEvent`, their oneOf.
 */
export function runEventComponents(): Record<string, SchemaObject> {
  const components: Record<string, SchemaObject> = {};
  const mapping: Record<string, string> = {};
  for (const [type, payload] of Object.entries(RUN_EVENT_PAYLOAD_SCHEMAS)) {
    const name = runEventSchemaName(type);
    mapping[type] = `#/components/schemas/${name}`;
    components[name] = obj(
      {
        seq: int('the event’s position in the run, gap-free from 1 (the SSE `id:`)'),
        type: { type: 'string', enum: [type], description: 'the SSE `event:` name' },
        data: payload,
        at: { type: 'string', format: 'date-time' },
      },
      [],
      `\`${type}\`: ${payload.description ?? 'see docs/EVENTS.md'}`,
    );
  }
  components.RunEvent = {
    description: 'One event of a run (docs/EVENTS.md): its `type` names the event and fixes the shape of `data`.',
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: 'type', mapping },
  };
  return components;
}
