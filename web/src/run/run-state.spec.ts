import type { ClientRunEvent } from '../api/events';
import { applyEvent, emptyRun, type RunState } from './run-state';

let seq = 0;
const ev = <E extends ClientRunEvent>(type: E['type'], data: E['data'], at = ++seq) => ({ seq: at, type, data }) as ClientRunEvent;
const play = (events: ClientRunEvent[], state: RunState = emptyRun('run_1')) => events.reduce(applyEvent, state);

beforeEach(() => {
  seq = 0;
});

describe('run state from the event log', () => {
  it('joins token events into one text block per step, and tool cards between them', () => {
    const state = play([
      ev('status', { phase: 'thinking', text: 'Thinking', step: 1 }),
      ev('tool.start', { callId: 'c1', name: 'calculator', args: { expression: '1+1' } }),
      ev('tool.end', { callId: 'c1', name: 'calculator', ok: true, output: '2', durationMs: 3 }),
      ev('status', { phase: 'thinking', text: 'Thinking', step: 2 }),
      ev('token', { text: 'The ' }),
      ev('token', { text: 'answer is 2.' }),
      ev('done', { runId: 'run_1', state: 'SUCCEEDED' }),
    ]);
    expect(state.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind === 'tool' ? `${b.name}:${b.status}:${b.output}` : b.kind))).toEqual(['calculator:ok:2', 'The answer is 2.']);
    expect(state.finalState).toBe('SUCCEEDED');
  });

  it('shows on a delegate call the sub-run it started, then how the sub-run ended', () => {
    const started = play([
      ev('tool.start', { callId: 'c1', name: 'delegate', args: { agent: 'researcher', task: 'look' } }),
      ev('subrun', { runId: 'run_child', agentId: 'agt_1', agent: 'researcher', callId: 'c1', task: 'look', state: 'CREATED', status: 'started' }),
    ]);
    expect(started.blocks[0]).toMatchObject({ kind: 'tool', status: 'running', subrun: { runId: 'run_child', agent: 'researcher', status: 'started', state: 'CREATED' } });
    const ended = play([
      ev('subrun', { runId: 'run_child', agentId: 'agt_1', agent: 'researcher', callId: 'c1', task: 'look', state: 'SUCCEEDED', status: 'succeeded', answer: 'found' }),
      ev('tool.end', { callId: 'c1', name: 'delegate', ok: true, output: 'found', durationMs: 9 }),
    ], started);
    expect(ended.blocks[0]).toMatchObject({ kind: 'tool', status: 'ok', output: 'found', subrun: { runId: 'run_child', status: 'succeeded', state: 'SUCCEEDED' } });
  });

  it("keeps one card of the agent's to-do list, updated by each `tasks` event", () => {
    const state = play([
      ev('tool.start', { callId: 'c1', name: 'task_tracker', args: {} }),
      ev('tasks', { tasks: [{ id: '1', title: 'Draft', status: 'in_progress' }] }),
      ev('tool.end', { callId: 'c1', name: 'task_tracker', ok: true, output: 'ok', durationMs: 1 }),
      ev('tasks', { tasks: [{ id: '1', title: 'Draft', status: 'done' }, { id: '2', title: 'Review', status: 'todo' }] }),
    ]);
    const cards = state.blocks.filter((b) => b.kind === 'tasks');
    expect(cards).toEqual([{ kind: 'tasks', key: 'k2', tasks: [{ id: '1', title: 'Draft', status: 'done' }, { id: '2', title: 'Review', status: 'todo' }] }]);
  });

  it('ignores repeated events, so a replay after a reconnect shows no text twice', () => {
    const first = [ev('status', { phase: 'thinking', text: 'Thinking', step: 1 }), ev('token', { text: 'Hello' }), ev('token', { text: ' world' })];
    const once = play(first);
    const again = play([...first, ...first, ev('token', { text: '!' })]);
    expect(once.blocks).toHaveLength(1);
    expect(again.blocks[0]).toMatchObject({ kind: 'text', text: 'Hello world!' });
    expect(again.lastSeq).toBe(4);
  });

  it("drops a step's text when it restarts after a crash, and keeps it when it resumes", () => {
    const resumed = play([
      ev('status', { phase: 'thinking', text: 'Thinking', step: 1 }),
      ev('token', { text: 'Part one, ' }),
      ev('status', { phase: 'thinking', text: 'Resuming after a restart', step: 1 }),
      ev('token', { text: 'part two.' }),
    ]);
    expect(resumed.blocks.map((b) => b.kind === 'text' && b.text)).toEqual(['Part one, part two.']);
    seq = 0;
    const restarted = play([
      ev('status', { phase: 'thinking', text: 'Thinking', step: 1 }),
      ev('token', { text: 'An answer that changed' }),
      ev('status', { phase: 'thinking', text: '答案已变化', step: 1, restart: true }),
      ev('token', { text: 'A new answer.' }),
    ]);
    expect(restarted.blocks.map((b) => b.kind === 'text' && b.text)).toEqual(['A new answer.']);
  });

  it('waits for an approval until the call ends, and for a plan until the run goes on', () => {
    const waiting = play([
      ev('tool.start', { callId: 'c1', name: 'code_exec', args: { code: '1' } }),
      ev('approval', { approvalId: 'ap_1', callId: 'c1', name: 'code_exec', args: { code: '1' }, risk: 'high' }),
    ]);
    expect(waiting.waiting).toMatchObject({ kind: 'approval', approvalId: 'ap_1' });
    expect(applyEvent(waiting, ev('tool.end', { callId: 'c1', name: 'code_exec', ok: true, output: '1', durationMs: 5 })).waiting).toBeNull();

    const plan = play([ev('plan', { steps: [{ title: 'Look' }] }), ev('status', { phase: 'waiting', text: 'Waiting for plan approval' })]);
    expect(plan.waiting).toEqual({ kind: 'plan', steps: [{ title: 'Look' }] });
    expect(applyEvent(plan, ev('status', { phase: 'thinking', text: 'Thinking', step: 1 })).waiting).toBeNull();
  });

  it("shows the plan's progress in its card: step statuses, and an edit of the steps not started without asking again", () => {
    const approved = play([
      ev('plan', { steps: [{ title: 'Look' }, { title: 'Answer' }] }),
      ev('status', { phase: 'waiting', text: 'Waiting for plan approval' }),
      ev('status', { phase: 'thinking', text: 'Thinking', step: 1 }),
      ev('plan.step', { index: 0, title: 'Look', status: 'running', attempt: 1 }),
    ]);
    const edited = applyEvent(approved, ev('plan', { steps: [{ title: 'Look', status: 'running', attempts: 1 }, { title: 'Write' }] }));
    expect(edited.waiting).toBeNull();
    const done = play([ev('plan.step', { index: 0, title: 'Look', status: 'done', summary: 'found', attempt: 1 })], edited);
    const cards = done.blocks.filter((b) => b.kind === 'plan');
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ steps: [{ title: 'Look', status: 'done', summary: 'found', attempts: 1 }, { title: 'Write' }] });
  });

  it("turns ask_user's waiting status into a question, answered by the call's end", () => {
    const asked = play([ev('tool.start', { callId: 'c9', name: 'ask_user', args: { question: 'Which city?' } }), ev('status', { phase: 'waiting', text: 'Which city?' })]);
    expect(asked.waiting).toEqual({ kind: 'ask', callId: 'c9', question: 'Which city?' });
    const answered = applyEvent(asked, ev('tool.end', { callId: 'c9', name: 'ask_user', ok: true, output: 'Paris', durationMs: 1 }));
    expect(answered.waiting).toBeNull();
    expect(answered.blocks.find((b) => b.kind === 'ask')).toMatchObject({ answered: true });
  });

  it('adds up usage over model calls and keeps the sources, context and warning', () => {
    const state = play([
      ev('usage', { promptTokens: 10, completionTokens: 2, totalTokens: 12, cost: 0.5 }),
      ev('usage', { promptTokens: 20, completionTokens: 3, totalTokens: 23, cost: 0.25 }),
      ev('sources', { items: [{ id: 'ch1', documentId: 'd1', title: 'Doc', source: 'doc.md', snippet: '…', score: 1 }] }),
      ev('token_warning', { percentage: 85, estimatedTokens: 850, limit: 1000 }),
    ]);
    expect(state.usage).toEqual({ promptTokens: 30, completionTokens: 5, totalTokens: 35, cost: 0.75 });
    expect(state.sources).toHaveLength(1);
    expect(state.tokenWarning?.percentage).toBe(85);
    expect(state.graph).toBeNull();
  });

  it("keeps the sources' knowledge graph, and drops it when a later retrieval has none", () => {
    const graph = {
      entities: [{ id: 'e1', knowledgeBaseId: 'kb1', name: 'Ada', type: 'person', mentions: 1 }, { id: 'e2', knowledgeBaseId: 'kb1', name: 'Engine', type: 'thing', mentions: 1 }],
      relations: [{ source: 'e1', target: 'e2', label: 'programmed', weight: 1, chunkIds: ['ch1'], documentIds: ['d1'] }],
    };
    const item = { id: 'ch1', documentId: 'd1', title: 'Doc', source: 'doc.md', snippet: '…', score: 1 };
    const withGraph = play([ev('sources', { items: [item], graph })]);
    expect(withGraph.graph).toEqual(graph);
    expect(play([ev('sources', { items: [item] })], withGraph).graph).toBeNull();
  });
});
