/**
 * Tool calls through HTTP and SSE against the mock LLM: a schema violation reaches the model as
 * a tool error, and a client-side tool round trip (declared with the message, `tool.client`,
 * AWAIT_USER, POST /runs/:id/tool-results) with every bad input answered clearly.
 */
import { useMockApp } from './support/mock-app';
import { NO_SEQ_PROBLEMS, seqProblems } from './support/sse-client';

jest.setTimeout(120_000);

const mockCall = (...calls: { name: string; args: object; id?: string }[]) =>
  `MOCK:${JSON.stringify({ toolCalls: calls.map(({ name, args, id }) => ({ name, arguments: JSON.stringify(args), ...(id && { id }) })) })}`;

const PICK_COLOR = {
  name: 'pick_color',
  description: 'Ask the user to pick a color in the app',
  parameters: { type: 'object', properties: { hint: { type: 'string' } }, required: ['hint'], additionalProperties: false },
};

describe('tool calls over HTTP (mock LLM)', () => {
  const ctx = useMockApp('tools-client-token');

  it('a schema violation reaches the model as a tool error naming the field; the run succeeds', async () => {
    // titled (here and below): no auto-title call comes after the run's, whose last request the tests read
    const conversationId = await ctx.api.createConversation({ title: 'tools' });
    const { events, done } = await ctx.api.converse(conversationId, { text: mockCall({ name: 'calculator', args: { expression: 5 } }) });
    expect(done.data.state).toBe('SUCCEEDED');
    const end = events.find((e) => e.type === 'tool.end');
    expect(end?.data).toMatchObject({ name: 'calculator', ok: false, output: 'Invalid arguments for calculator: "expression" must be string' });
    const toolMessage = ctx.mock.requests.at(-1)?.messages?.at(-1);
    expect(toolMessage).toMatchObject({ role: 'tool', content: 'Invalid arguments for calculator: "expression" must be string' });
  });

  it('a client-side tool pauses the run until the client posts its result', async () => {
    const conversationId = await ctx.api.createConversation({ title: 'tools' });
    const posted = await ctx.api.postMessage(conversationId, {
      text: mockCall({ name: 'pick_color', args: { hint: 'sky' }, id: 'call_pick' }),
      clientTools: [PICK_COLOR],
    });
    const runId = posted.run.id;
    expect((await ctx.api.waitForRun(runId, ['AWAIT_USER'])).state).toBe('AWAIT_USER');
    // the model was offered the client tool next to the server's
    const offered = (ctx.mock.requests.at(-1)?.tools ?? []) as Array<{ function: { name: string; parameters: unknown } }>;
    expect(offered.find((t) => t.function.name === 'pick_color')?.function.parameters).toEqual(PICK_COLOR.parameters);
    expect(offered.map((t) => t.function.name)).toContain('calculator');
    const before = await ctx.api.jsonEvents(runId);
    expect(before.find((e) => e.type === 'tool.client')?.data).toEqual({ callId: 'call_pick', name: 'pick_color', args: { hint: 'sky' } });
    expect(before.some((e) => e.type === 'tool.end')).toBe(false);

    const path = `/runs/${runId}/tool-results`;
    expect((await ctx.api.post(path, { results: [{ callId: 'call_other', output: 'x' }] }).expect(400)).body.message).toContain(
      'results.0.callId "call_other" is not a call this run waits for (call_pick)',
    );
    expect((await ctx.api.post(path, { results: [] }).expect(400)).body.message).toBe('results must contain at least 1 elements');
    expect((await ctx.api.post(path, { results: [{ callId: 'call_pick' }] }).expect(400)).body.message).toContain('results.0.output');
    await ctx.api.post(`/runs/run_nope/tool-results`, { results: [{ callId: 'call_pick', output: 'x' }] }).expect(404);
    await ctx.api.post(`/runs/${runId}/reply`, { text: 'not this way' }).expect(409);

    await ctx.api.post(path, { results: [{ callId: 'call_pick', output: 'blue' }] }).expect(200);
    const { events, done } = await ctx.api.collect(runId);
    expect(done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    expect(events.find((e) => e.type === 'tool.end')?.data).toMatchObject({ callId: 'call_pick', name: 'pick_color', ok: true, output: 'blue' });
    expect(ctx.mock.requests.at(-1)?.messages?.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_pick', content: 'blue' });
    const again = await ctx.api.post(path, { results: [{ callId: 'call_pick', output: 'red' }] }).expect(409);
    expect(again.body.message).toContain('SUCCEEDED');
    const tools = (await ctx.api.messages(conversationId)).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m.toolCallId, m.content])).toEqual([['call_pick', 'blue']]);
  });

  it('refuses client tools that clash with a server tool, repeat a name or carry a bad schema; stores nothing', async () => {
    const conversationId = await ctx.api.createConversation();
    const post = (clientTools: object[]) => ctx.api.post(`/conversations/${conversationId}/messages`, { text: 'hi', clientTools });
    expect((await post([{ ...PICK_COLOR, name: 'calculator' }]).expect(400)).body.message).toBe(
      'clientTools.0.name "calculator" is the name of a server tool; choose another',
    );
    expect((await post([PICK_COLOR, PICK_COLOR]).expect(400)).body.message).toBe('clientTools.1.name "pick_color" is declared twice');
    expect((await post([{ ...PICK_COLOR, parameters: { type: 'object', properties: { a: { type: 'nonsense' } } } }]).expect(400)).body.message).toContain(
      'clientTools.0.parameters is not a valid JSON Schema',
    );
    expect((await post([{ ...PICK_COLOR, parameters: { type: 'string' } }]).expect(400)).body.message).toBe(
      'clientTools.0.parameters must be a JSON Schema with "type": "object"',
    );
    await post([{ ...PICK_COLOR, name: 'has space' }]).expect(400);
    expect(await ctx.api.messages(conversationId)).toEqual([]);
  });

  it("a conversation's confirmationPolicy overrides the workspace's: `always` asks even for the calculator", async () => {
    const conversationId = await ctx.api.createConversation({ settings: { confirmationPolicy: 'always' } });
    const { run } = await ctx.api.postMessage(conversationId, { text: mockCall({ name: 'calculator', args: { expression: '6*7' } }) });
    expect((await ctx.api.waitForRun(run.id, ['AWAIT_APPROVAL'])).state).toBe('AWAIT_APPROVAL');
    const approval = (await ctx.api.jsonEvents(run.id)).find((e) => e.type === 'approval');
    expect(approval?.data).toMatchObject({ name: 'calculator', risk: 'low' });
    await ctx.api.post(`/runs/${run.id}/approvals/${approval!.data.approvalId}`, { decision: 'approve' }).expect(200);
    expect((await ctx.api.waitForRun(run.id)).state).toBe('SUCCEEDED');
    await ctx.api.patch(`/conversations/${conversationId}`, { settings: { confirmationPolicy: 'sometimes' } }).expect(400);
  });
});
