import type { ClientRunEvent, PlanStep, RunEventPayloads } from '../api/events';

export type Citation = RunEventPayloads['sources']['items'][number];
/** The entities the question named and their neighbours (knowledge bases with `graph` on). */
export type KnowledgeGraph = NonNullable<RunEventPayloads['sources']['graph']>;
/** Opens the sources panel on an answer's passages (focused on `[focus]`) and graph. */
export type ShowSources = (items: Citation[], focus: number | null, graph?: KnowledgeGraph) => void;
export type AskOption = NonNullable<RunEventPayloads['status']['options']>[number];
export type TaskItem = RunEventPayloads['tasks']['tasks'][number];
/** The child run a `delegate` call started, as its `subrun` events last described it. */
export type Subrun = Pick<RunEventPayloads['subrun'], 'runId' | 'agent' | 'status' | 'state'>;

/** What a run has shown so far, in the order it happened. */
export type RunBlock =
  | { kind: 'text'; key: string; step: number; text: string; reasoning: string }
  | {
      kind: 'tool';
      key: string;
      callId: string;
      name: string;
      args: unknown;
      status: 'running' | 'ok' | 'failed' | 'client';
      output?: string;
      durationMs?: number;
      approval?: { approvalId: string; risk: string };
      subrun?: Subrun;
    }
  | { kind: 'plan'; key: string; steps: PlanStep[] }
  /** the agent's to-do list as task_tracker last set it in this run (one card, updated in place) */
  | { kind: 'tasks'; key: string; tasks: TaskItem[] }
  | { kind: 'ask'; key: string; callId: string; question: string; options?: AskOption[]; answered: boolean }
  | { kind: 'error'; key: string; code: string; message: string };

/** What the run waits for a person to do, if anything. */
export type Waiting =
  | { kind: 'plan'; steps: PlanStep[] }
  | { kind: 'approval'; approvalId: string; callId: string; name: string; args: unknown; risk: string; reason?: string }
  | { kind: 'ask'; callId: string; question: string; options?: AskOption[] }
  | { kind: 'client'; callIds: string[] }
  | null;

export interface RunState {
  runId: string;
  /** the last seq applied: events at or below it are repeats and are ignored */
  lastSeq: number;
  step: number;
  status: RunEventPayloads['status'] | null;
  blocks: RunBlock[];
  waiting: Waiting;
  sources: Citation[];
  graph: KnowledgeGraph | null;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number; cost: number };
  context: RunEventPayloads['context'] | null;
  tokenWarning: RunEventPayloads['token_warning'] | null;
  title: string | null;
  /** the final state once `done` arrived */
  finalState: string | null;
  /** every event applied, for the debug panel */
  events: ClientRunEvent[];
}

export function emptyRun(runId: string): RunState {
  return {
    runId,
    lastSeq: 0,
    step: 0,
    status: null,
    blocks: [],
    waiting: null,
    sources: [],
    graph: null,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0 },
    context: null,
    tokenWarning: null,
    title: null,
    finalState: null,
    events: [],
  };
}

const ASK_USER = 'ask_user';

function updateTool(blocks: RunBlock[], callId: string, change: (block: Extract<RunBlock, { kind: 'tool' }>) => RunBlock): RunBlock[] {
  return blocks.map((block) => (block.kind === 'tool' && block.callId === callId ? change(block) : block));
}

/** Appends model text to the step's last text block, or opens one after a tool card. */
function appendText(state: RunState, field: 'text' | 'reasoning', text: string, seq: number): RunBlock[] {
  const last = state.blocks.at(-1);
  if (last?.kind === 'text' && last.step === state.step) return [...state.blocks.slice(0, -1), { ...last, [field]: last[field] + text }];
  return [...state.blocks, { kind: 'text', key: `t${seq}`, step: state.step, text: field === 'text' ? text : '', reasoning: field === 'reasoning' ? text : '' }];
}

/**
 * Applies one event. Pure, and idempotent by seq: a replay after a reconnect or a reload that
 * repeats events changes nothing, so the page can always rebuild a run from its log.
 */
export function applyEvent(state: RunState, event: ClientRunEvent): RunState {
  if (event.seq <= state.lastSeq) return state;
  const next: RunState = { ...state, lastSeq: event.seq, events: [...state.events, event] };
  switch (event.type) {
    case 'status': {
      const { data } = event;
      next.status = data;
      if (state.waiting?.kind === 'plan' && data.phase !== 'waiting') next.waiting = null;
      if (data.phase === 'thinking' && data.step !== undefined) {
        // the same step again: resumed after a restart (keep its text) or restarted (its text is void)
        if (data.step === state.step && data.restart) next.blocks = state.blocks.filter((b) => !(b.kind === 'text' && b.step === data.step));
        next.step = data.step;
      }
      if (data.phase === 'waiting') {
        const ask = [...state.blocks].reverse().find((b) => b.kind === 'tool' && b.name === ASK_USER && b.status === 'running');
        if (ask?.kind === 'tool') {
          const options = data.options?.length ? { options: data.options } : {};
          next.blocks = [...state.blocks, { kind: 'ask', key: `a${event.seq}`, callId: ask.callId, question: data.text, ...options, answered: false }];
          next.waiting = { kind: 'ask', callId: ask.callId, question: data.text, ...options };
        }
      }
      return next;
    }
    case 'token':
      next.blocks = appendText(state, 'text', event.data.text, event.seq);
      return next;
    case 'reasoning':
      next.blocks = appendText(state, 'reasoning', event.data.text, event.seq);
      return next;
    case 'plan': {
      const { steps } = event.data;
      // a plan with progress is an edit of the one being carried out: nothing to approve
      const proposed = !steps.some((step) => step.status);
      const index = lastPlanBlock(state.blocks);
      next.blocks = index < 0 ? [...state.blocks, { kind: 'plan', key: `p${event.seq}`, steps }] : withPlanSteps(state.blocks, index, () => steps);
      if (proposed && (index < 0 || state.waiting?.kind === 'plan')) next.waiting = { kind: 'plan', steps };
      return next;
    }
    case 'plan.step': {
      const { index: at, title, status, summary, attempt } = event.data;
      const index = lastPlanBlock(state.blocks);
      if (index < 0) return next;
      // a step the card does not know yet (the plan was edited when it was approved) is added
      next.blocks = withPlanSteps(state.blocks, index, (steps) =>
        Array.from({ length: Math.max(steps.length, at + 1) }, (_, i): PlanStep => {
          const step = steps[i] ?? { title };
          return i === at ? { title, ...(step.detail && { detail: step.detail }), status, ...(summary && { summary }), ...(attempt && { attempts: attempt }) } : step;
        }),
      );
      return next;
    }
    case 'tool.start':
      next.blocks = [...state.blocks, { kind: 'tool', key: `c${event.seq}`, callId: event.data.callId, name: event.data.name, args: event.data.args, status: 'running' }];
      return next;
    case 'approval': {
      const { approvalId, callId, name, args, risk, reason } = event.data;
      next.blocks = updateTool(state.blocks, callId, (b) => ({ ...b, approval: { approvalId, risk } }));
      next.waiting = { kind: 'approval', approvalId, callId, name, args, risk, ...(reason && { reason }) };
      return next;
    }
    case 'tool.client': {
      next.blocks = updateTool(state.blocks, event.data.callId, (b) => ({ ...b, status: 'client' }));
      const pending = state.waiting?.kind === 'client' ? state.waiting.callIds : [];
      next.waiting = { kind: 'client', callIds: [...pending, event.data.callId] };
      return next;
    }
    case 'tool.end': {
      const { callId, ok, output, durationMs } = event.data;
      next.blocks = updateTool(state.blocks, callId, (b) => ({ ...b, status: ok ? 'ok' : 'failed', output, durationMs })).map((b) =>
        b.kind === 'ask' && b.callId === callId ? { ...b, answered: true } : b,
      );
      const waiting = state.waiting;
      if (waiting && 'callId' in waiting && waiting.callId === callId) next.waiting = null;
      if (waiting?.kind === 'client') {
        const rest = waiting.callIds.filter((id) => id !== callId);
        next.waiting = rest.length ? { kind: 'client', callIds: rest } : null;
      }
      return next;
    }
    case 'subrun': {
      const { callId, runId, agent, status, state: childState } = event.data;
      next.blocks = updateTool(state.blocks, callId, (b) => ({ ...b, subrun: { runId, agent, status, state: childState } }));
      return next;
    }
    case 'tasks': {
      const { tasks } = event.data;
      const at = state.blocks.findIndex((b) => b.kind === 'tasks');
      next.blocks = at < 0 ? [...state.blocks, { kind: 'tasks', key: `k${event.seq}`, tasks }] : state.blocks.map((b, i) => (i === at ? { ...b, tasks } : b));
      return next;
    }
    case 'sources':
      next.sources = event.data.items;
      next.graph = event.data.graph ?? null;
      return next;
    case 'context':
      next.context = event.data;
      return next;
    case 'token_warning':
      next.tokenWarning = event.data;
      return next;
    case 'usage': {
      const u = state.usage;
      next.usage = {
        promptTokens: u.promptTokens + event.data.promptTokens,
        completionTokens: u.completionTokens + event.data.completionTokens,
        totalTokens: u.totalTokens + event.data.totalTokens,
        cost: u.cost + event.data.cost,
      };
      return next;
    }
    case 'error':
      next.blocks = [...state.blocks, { kind: 'error', key: `e${event.seq}`, code: event.data.code, message: event.data.message }];
      return next;
    case 'title':
      next.title = event.data.title;
      return next;
    case 'done':
      next.finalState = event.data.state;
      next.waiting = null;
      return next;
    default:
      // `debug`, and names added to the catalogue later: kept for the debug panel only
      return next;
  }
}

function lastPlanBlock(blocks: RunBlock[]): number {
  for (let i = blocks.length - 1; i >= 0; i--) if (blocks[i].kind === 'plan') return i;
  return -1;
}

function withPlanSteps(blocks: RunBlock[], index: number, change: (steps: PlanStep[]) => PlanStep[]): RunBlock[] {
  return blocks.map((block, i) => (i === index && block.kind === 'plan' ? { ...block, steps: change(block.steps) } : block));
}

/** A plan approval or rejection leaves the waiting state at once (the stream confirms it). */
export function settled(state: RunState): RunState {
  return { ...state, waiting: null };
}
