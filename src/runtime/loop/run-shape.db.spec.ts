/**
 * What a run samples with and the shape of its answer (RunStarter): the agent's defaults (today
 * the workspace's settings), the message's fields over them, clamped to the model config, stored
 * on the run and sent with its answer steps.
 */
import { AUTH, useCore } from '../../../test/support/core-harness';

describe('a run\'s sampling and response format (database, scripted model)', () => {
  const h = useCore();

  async function workspaceDefaults(settings: Record<string, unknown>): Promise<void> {
    await h.sql.$executeRaw`UPDATE workspaces SET settings = settings || ${JSON.stringify(settings)}::jsonb WHERE id = ${AUTH.workspaceId}`;
  }
  afterEach(() => workspaceDefaults({ sampling: null, responseFormat: null }));

  it("lays the message's fields over the defaults, stores them and sends them", async () => {
    await workspaceDefaults({ sampling: { temperature: 0.9, seed: 11, stop: ['END'] }, responseFormat: { type: 'json_object' } });
    const conversationId = await h.conversation();
    h.model.answer({ text: ['{"ok": true}'] });
    const posted = await h.post(conversationId, 'hi', { temperature: 0.2, topP: 0.5 });
    const run = await h.waitForRun(posted.run.id);
    expect(run).toMatchObject({
      state: 'SUCCEEDED',
      sampling: { temperature: 0.2, topP: 0.5, seed: 11, stop: ['END'] },
      responseFormat: { type: 'json_object' },
    });
    expect(h.model.calls[0].request).toMatchObject({ temperature: 0.2, topP: 0.5, seed: 11, stop: ['END'], responseFormat: { type: 'json_object' } });
    const answer = (await h.messagesOf(conversationId)).at(-1);
    expect(answer?.parts).toEqual({ kind: 'answer', step: 1, output: { ok: true } });
  });

  it("the message's response format wins over the default one; no defaults, nothing sent", async () => {
    await workspaceDefaults({ responseFormat: { type: 'json_object' } });
    const conversationId = await h.conversation();
    h.model.answer({ text: ['["a"]'] });
    const schema = { type: 'array', items: { type: 'string' } };
    const run = await h.waitForRun((await h.post(conversationId, 'hi', { responseFormat: { type: 'json_schema', name: 'list', schema } })).run.id);
    expect(run).toMatchObject({ state: 'SUCCEEDED', sampling: null, responseFormat: { type: 'json_schema', name: 'list', schema } });
    const request = h.model.calls[0].request;
    for (const field of ['temperature', 'topP', 'seed', 'stop', 'maxTokens'] as const) expect(request[field]).toBeUndefined();
  });
});
