/**
 * `ask_user` with options, through HTTP and SSE against the mock provider: the waiting status
 * carries the choices, POST /runs/:id/reply `{optionId}` answers with the chosen label (what the
 * model is given), free text still answers, and malformed questions or replies are refused
 * with the field named.
 */
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'ask-options-e2e-token';
const CITIES = [
  { id: 'par', label: 'Paris' },
  { id: 'ber', label: 'Berlin' },
];
const ask = (args: object) => `MOCK:${JSON.stringify({ toolCall: { name: 'ask_user', arguments: JSON.stringify(args) } })}`;

describe('ask_user with options (mock provider)', () => {
  const app = useMockApp(TOKEN);

  async function asked(args: object) {
    const conversationId = await app.api.createConversation({ title: 'options' });
    const posted = await app.api.postMessage(conversationId, { text: `where? ${ask(args)}` });
    await app.api.waitForRun(posted.run.id, ['AWAIT_USER'], 30_000);
    return { conversationId, runId: posted.run.id };
  }

  it('offers the options in the waiting status; a chosen option answers with its label', async () => {
    const { conversationId, runId } = await asked({ question: 'Which city?', options: CITIES });
    const waiting = (await app.api.jsonEvents(runId)).filter((e) => e.type === 'status').at(-1);
    expect(waiting?.data).toEqual({ phase: 'waiting', text: 'Which city?', options: CITIES });

    const unknown = await app.api.post(`/runs/${runId}/reply`, { optionId: 'rom' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('optionId: rom is not one of the options offered (par, ber)');
    const both = await app.api.post(`/runs/${runId}/reply`, { optionId: 'par', text: 'Paris' });
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body.message)).toContain('optionId');
    const neither = await app.api.post(`/runs/${runId}/reply`, {});
    expect(neither.status).toBe(400);
    expect(JSON.stringify(neither.body.message)).toContain('text');
    expect((await app.api.run(runId)).state).toBe('AWAIT_USER'); // nothing was taken

    expect((await app.api.post(`/runs/${runId}/reply`, { optionId: 'ber' })).status).toBe(200);
    const run = await app.api.waitForRun(runId);
    expect(run.state).toBe('SUCCEEDED');
    const end = (await app.api.jsonEvents(runId)).find((e) => e.type === 'tool.end');
    expect(end?.data).toMatchObject({ name: 'ask_user', ok: true, output: 'Berlin' });
    expect((await app.api.finalAssistantMessage(conversationId, runId))?.content).toBe('Tool result: Berlin');
  });

  it('free text still answers a question with options; optionId on a question without options is refused', async () => {
    const withOptions = await asked({ question: 'Which city?', options: CITIES });
    expect((await app.api.post(`/runs/${withOptions.runId}/reply`, { text: 'Lisbon, actually' })).status).toBe(200);
    expect((await app.api.waitForRun(withOptions.runId)).state).toBe('SUCCEEDED');

    const plain = await asked({ question: 'Anything else?' });
    const refused = await app.api.post(`/runs/${plain.runId}/reply`, { optionId: 'par' });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('offered no options');
    await app.api.post(`/runs/${plain.runId}/cancel`);
  });

  it('a question with malformed options is answered with a tool error the model can act on', async () => {
    const conversationId = await app.api.createConversation({ title: 'bad options' });
    const { posted, done } = await app.api.converse(conversationId, { text: `where? ${ask({ question: 'Which?', options: [CITIES[0], { ...CITIES[1], id: 'par' }] })}` });
    expect(done.data.state).toBe('SUCCEEDED');
    const end = (await app.api.jsonEvents(posted.run.id)).find((e) => e.type === 'tool.end');
    expect(end?.data).toMatchObject({ name: 'ask_user', ok: false, output: expect.stringContaining('ids must be unique (par is repeated)') });
  });
});
