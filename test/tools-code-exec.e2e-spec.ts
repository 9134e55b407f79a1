/**
 * code_exec through HTTP+SSE against the mock LLM: high risk, so it waits for approval under the
 * default confirmation policy; with `never` it runs at once; an endless loop and an unbounded
 * allocation end as failed tool calls naming the limit, and the run still succeeds. The time
 * limit is short here (HELIX_CODE_EXEC_TIMEOUT_MS).
 */
import { GraphQLClient, gql } from 'graphql-request';
import { useMockApp } from './support/mock-app';
import { NO_SEQ_PROBLEMS, seqProblems } from './support/sse-client';

const TOKEN = 'tools-code-exec-token';
jest.setTimeout(120_000);

const exec = (code: string) => `MOCK:${JSON.stringify({ toolCall: { name: 'code_exec', arguments: JSON.stringify({ code }) } })}`;

describe('code_exec (HTTP+SSE, mock LLM)', () => {
  const ctx = useMockApp(TOKEN, { HELIX_CODE_EXEC_TIMEOUT_MS: '500' });
  const admin = () => new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });

  it('asks for approval by default (high risk); approved, it runs and the model sees the output', async () => {
    const conversationId = await ctx.api.createConversation({ title: 'tools' });
    const posted = await ctx.api.postMessage(conversationId, { text: exec('console.log("hello from the sandbox"); 6 * 7') });
    expect((await ctx.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'])).state).toBe('AWAIT_APPROVAL');
    const approval = (await ctx.api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval');
    expect(approval?.data).toMatchObject({ name: 'code_exec', risk: 'high', args: { code: expect.stringContaining('6 * 7') } });

    await ctx.api.post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'approve' }).expect(200);
    const { events, done } = await ctx.api.collect(posted.run.id);
    expect(done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    const output = 'Output:\nhello from the sandbox\nResult: 42';
    expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ name: 'code_exec', ok: true, output });
    const toolMessage = ctx.mock.requests.at(-1)?.messages?.find((m) => m.role === 'tool');
    expect(toolMessage?.content).toContain('hello from the sandbox');
  });

  describe('with the workspace confirmation policy `never`', () => {
    beforeAll(async () => {
      await admin().request(gql`mutation { updateWorkspaceSettings(input: { confirmationPolicy: never }) { id } }`);
    });
    afterAll(async () => {
      await admin().request(gql`mutation { updateWorkspaceSettings(input: { confirmationPolicy: null }) { id } }`);
    });

    const call = async (code: string) => {
      const conversationId = await ctx.api.createConversation({ title: 'tools' });
      const { events, done } = await ctx.api.converse(conversationId, { text: exec(code) });
      expect(events.some((e) => e.type === 'approval')).toBe(false);
      expect(done.data.state).toBe('SUCCEEDED');
      return events.find((e) => e.type === 'tool.end')?.data;
    };

    it('runs at once, without host access', async () => {
      expect(await call('[typeof require, typeof process].join() + " " + (1 + 1)')).toMatchObject({ ok: true, output: 'undefined,undefined 2' });
    });

    it('an endless loop stops at the time limit: a failed tool call, the run succeeds', async () => {
      const end = await call('for (;;) {}');
      expect(end).toMatchObject({ name: 'code_exec', ok: false, output: expect.stringContaining('time limit of 500 ms exceeded') });
    });

    it('unbounded allocation stops at the memory limit: a failed tool call, the run succeeds', async () => {
      const end = await call('const a = []; for (;;) a.push(new Array(1e6).fill(1))');
      expect(end).toMatchObject({ name: 'code_exec', ok: false, output: expect.stringContaining('memory limit of 32 MB exceeded') });
    });

    it('a JavaScript error is a failed tool call with its message', async () => {
      const end = await call('null.x');
      expect(end).toMatchObject({ ok: false, output: expect.stringMatching(/^JavaScript error: TypeError: /) });
    });
  });
});
