/**
 * Human-in-the-loop as real state: tool approvals (policy `confirm`), ask_user → AWAIT_USER →
 * reply, and the ways a run ends badly: a tool forbidden by policy, the step limit, a provider
 * error. Against the mock provider, whose tool calls are requested with MOCK:{"toolCall":…}.
 */
import { firstValueFrom, filter, map } from 'rxjs';
import type { PrismaService } from '../src/database/prisma.service';
import { prismaOf } from './support/test-prisma';
import { EventBus } from '../src/runtime/events/event-bus';
import { RunRepository } from '../src/runtime/store/run.repository';
import type { RunEvent } from '../src/runtime/store/run-events';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { startMockLlm, type MockLlm } from './support/mock-llm/mock-llm';
import { HelixApi, mockModelEnv, NO_SEQ_PROBLEMS, seqProblems, tokenText } from './support/sse-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'runs-approvals-token';
jest.setTimeout(120_000);

const calc = (expression: string) =>
  `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression }) } })}`;

describe('runs: approvals, user replies and failures (mock LLM)', () => {
  let mock: MockLlm;
  let t: TestApp;
  let api: HelixApi;
  let prisma: PrismaService;

  beforeAll(async () => {
    mock = await startMockLlm();
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN, HELIX_MAX_STEPS: '3', ...mockModelEnv(mock.url) });
    api = new HelixApi(t.baseUrl, TOKEN);
    prisma = prismaOf(t.app);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  async function policy(conversationId: string, mode: 'confirm' | 'forbid') {
    await prisma.toolPolicy.create({
      data: { id: `pol_${conversationId}`, workspaceId: DEFAULT_WORKSPACE_ID, conversationId, tool: 'calculator', mode },
    });
  }

  it('a confirm policy parks the run in AWAIT_APPROVAL; approving runs the tool and finishes', async () => {
    const conversationId = await api.createConversation();
    await policy(conversationId, 'confirm');
    const posted = await api.postMessage(conversationId, { text: calc('6*7') });
    const waiting = await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
    expect(waiting.state).toBe('AWAIT_APPROVAL');
    const before = await api.jsonEvents(posted.run.id);
    const approval = before.find((e) => e.type === 'approval');
    expect(approval?.data).toMatchObject({ approvalId: expect.any(String), name: 'calculator', args: { expression: '6*7' } });
    expect(before.some((e) => e.type === 'tool.end')).toBe(false);

    // plan resume is not how a tool approval is answered
    const wrong = await api.post(`/runs/${posted.run.id}/resume`, { approve: true });
    expect(wrong.status).toBe(409);
    expect(wrong.body.message).toContain('AWAIT_APPROVAL');
    await api.post(`/runs/${posted.run.id}/approvals/appr_nope`, { decision: 'approve' }).expect(404);
    await api.post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'maybe' }).expect(400);

    await api.post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'approve' }).expect(200);
    const { events, done } = await api.collect(posted.run.id);
    expect(done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    const end = events.find((e) => e.type === 'tool.end');
    expect(end?.data).toMatchObject({ name: 'calculator', ok: true, output: '42' });
    expect(events.filter((e) => e.type === 'tool.start')).toHaveLength(1);
    expect(tokenText(events)).toBe('Tool result: 42');
    // deciding twice is a conflict
    const again = await api.post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'approve' });
    expect(again.status).toBe(409);
  });

  /** The run's state read the moment an event is published, as a client answering it at once would. */
  function stateWhen(runId: string, published: (e: RunEvent) => boolean) {
    return firstValueFrom(t.app.get(EventBus).events(runId).pipe(filter(published), map(() => t.app.get(RunRepository).find(runId))))
      .then(async (run) => (await run)?.state);
  }

  it('the run is already waiting when its approval or plan goes out (a client may answer at once)', async () => {
    const conversationId = await api.createConversation();
    await policy(conversationId, 'confirm');
    const posted = await api.postMessage(conversationId, { text: `${calc('1+1').slice(0, -1)},"delayMs":50}` });
    expect(await stateWhen(posted.run.id, (e) => e.type === 'approval')).toBe('AWAIT_APPROVAL');

    const planned = await api.postMessage(await api.createConversation(), { text: 'MOCK:{"plan":true,"delayMs":50}', mode: 'plan' });
    expect(await stateWhen(planned.run.id, (e) => e.type === 'status' && e.data.phase === 'waiting')).toBe('AWAIT_APPROVAL');
  });

  it('approve and remember: the next calls of the tool run without asking, in the conversation or the workspace', async () => {
    const approveFirst = async (conversationId: string, remember?: string) => {
      const posted = await api.postMessage(conversationId, { text: calc('6*7') });
      await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
      const approval = (await api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval');
      const path = `/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`;
      // remember only goes with an approval; a bad scope is named
      expect((await api.post(path, { decision: 'reject', remember: 'workspace' }).expect(400)).body.message).toBe('remember goes with decision "approve" only');
      await api.post(path, { decision: 'approve', remember: 'forever' }).expect(400);
      await api.post(path, { decision: 'approve', ...(remember && { remember }) }).expect(200);
      const { events, done } = await api.collect(posted.run.id);
      expect(done.data.state).toBe('SUCCEEDED');
      // the call was announced once, when it waited; the rule that now allows it does not announce it again
      expect(events.filter((e) => e.type === 'tool.start')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'tool.end')).toHaveLength(1);
    };
    const runsWithoutAsking = async (conversationId: string) => {
      const posted = await api.postMessage(conversationId, { text: calc('1+1') });
      const { events, done } = await api.collect(posted.run.id);
      expect(done.data.state).toBe('SUCCEEDED');
      return !events.some((e) => e.type === 'approval');
    };

    const conversationId = await api.createConversation();
    await policy(conversationId, 'confirm');
    await approveFirst(conversationId, 'conversation');
    expect(await runsWithoutAsking(conversationId)).toBe(true);
    expect(await prisma.toolPolicy.findMany({ where: { conversationId }, select: { tool: true, mode: true } })).toEqual([{ tool: 'calculator', mode: 'always' }]);

    // workspace-wide: a rule asking in every conversation, remembered as allowed for all of them
    await prisma.toolPolicy.create({ data: { id: 'pol_ws_confirm', workspaceId: DEFAULT_WORKSPACE_ID, tool: 'calculator', mode: 'confirm' } });
    try {
      await approveFirst(await api.createConversation(), 'workspace');
      expect(await runsWithoutAsking(await api.createConversation())).toBe(true);
      const rule = await prisma.toolPolicy.findFirstOrThrow({ where: { workspaceId: DEFAULT_WORKSPACE_ID, conversationId: null, tool: 'calculator' } });
      expect(rule.mode).toBe('always');
      // versioned and audited like any change of configuration
      expect(await prisma.auditEntry.count({ where: { action: 'setToolPolicy', target: 'tool-policy:calculator' } })).toBe(1);
    } finally {
      await prisma.toolPolicy.deleteMany({ where: { workspaceId: DEFAULT_WORKSPACE_ID, conversationId: null } });
    }
  });

  it('rejecting an approval answers the model with the rejection instead of running the tool', async () => {
    const conversationId = await api.createConversation();
    await policy(conversationId, 'confirm');
    const posted = await api.postMessage(conversationId, { text: calc('1+1') });
    await api.waitForRun(posted.run.id, ['AWAIT_APPROVAL']);
    const approval = (await api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval');
    await api
      .post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'reject', reason: 'not now' })
      .expect(200);
    const { done, events } = await api.collect(posted.run.id);
    expect(done.data.state).toBe('SUCCEEDED');
    expect(tokenText(events)).toBe('Tool result: The user rejected this call: not now');
    const tool = (await api.messages(conversationId)).find((m) => m.role === 'tool');
    expect(tool).toMatchObject({ content: 'The user rejected this call: not now', parts: { ok: false } });
  });

  it('a forbid policy answers the call with an error and never runs it', async () => {
    const conversationId = await api.createConversation();
    await policy(conversationId, 'forbid');
    const { done, events } = await api.converse(conversationId, { text: calc('2+2') });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ ok: false, output: 'The tool calculator is forbidden by policy.' });
  });

  it('ask_user moves the run to AWAIT_USER; the reply becomes the tool result', async () => {
    const conversationId = await api.createConversation();
    const text = `MOCK:${JSON.stringify({ toolCall: { name: 'ask_user', arguments: '{"question":"Which city?"}' } })}`;
    const posted = await api.postMessage(conversationId, { text });
    const waiting = await api.waitForRun(posted.run.id, ['AWAIT_USER']);
    expect(waiting.state).toBe('AWAIT_USER');
    const status = (await api.jsonEvents(posted.run.id)).filter((e) => e.type === 'status').at(-1);
    expect(status?.data).toEqual({ phase: 'waiting', text: 'Which city?' });
    await api.post(`/runs/${posted.run.id}/reply`, { text: '  ' }).expect(400);
    await api.post(`/runs/${posted.run.id}/reply`, { text: 'Kyoto' }).expect(200);
    const { done, events } = await api.collect(posted.run.id);
    expect(done.data.state).toBe('SUCCEEDED');
    expect(tokenText(events)).toBe('Tool result: Kyoto');
    const again = await api.post(`/runs/${posted.run.id}/reply`, { text: 'Osaka' });
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('SUCCEEDED');
  });

  it('stops at the step limit with FAILED and a clear message', async () => {
    const conversationId = await api.createConversation({ settings: { maxSteps: 1 } });
    const { done, events, posted } = await api.converse(conversationId, { text: calc('3+3') });
    expect(done.data.state).toBe('FAILED');
    const error = events.find((e) => e.type === 'error');
    expect(error?.data).toEqual({ code: 'max_steps', message: 'The run stopped after reaching its limit of 1 steps.' });
    const run = await api.run(posted.run.id);
    expect(run).toMatchObject({ state: 'FAILED', step: 1, maxSteps: 1, error: error?.data });
    expect(run.finishedAt).toEqual(expect.any(String));
    const last = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(last?.content).toBe('The run stopped after reaching its limit of 1 steps.');
  });

  it('a provider error ends the run FAILED with the mapped code, as message, error event and run.error', async () => {
    const conversationId = await api.createConversation();
    const { done, events, posted } = await api.converse(conversationId, { text: 'MOCK:{"status":401}' });
    expect(done.data.state).toBe('FAILED');
    const error = events.find((e) => e.type === 'error');
    expect(error?.data).toMatchObject({ code: 'auth_failed', message: expect.any(String) });
    const run = await api.run(posted.run.id);
    expect(run.error).toEqual(error?.data);
    const last = await api.finalAssistantMessage(conversationId, posted.run.id);
    expect(last?.content).toBe(error?.data.message);
    expect(events.at(-1)?.type).toBe('done');
  });

  it('direct mode offers no tools to the model', async () => {
    const conversationId = await api.createConversation();
    const before = mock.requests.length;
    const { done } = await api.converse(conversationId, { text: 'hello there', mode: 'direct' });
    expect(done.data.state).toBe('SUCCEEDED');
    const request = mock.requests[before] as { tools?: unknown[] };
    expect(request.tools ?? []).toHaveLength(0);
    const react = await api.converse(conversationId, { text: 'hello again' });
    expect(react.done.data.state).toBe('SUCCEEDED');
    const names = ((mock.requests.at(-1) as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);
    expect(names).toEqual(expect.arrayContaining(['calculator', 'current_time', 'ask_user']));
  });
});
