/**
 * A fork cut at a tool call whose id a later run reused, over HTTP with the mock provider (it
 * numbers the calls of every answer from 0, as some providers do): the fork takes that call's
 * own result and nothing of the later run.
 */
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'fork-reused-ids-token';
const calc = (expression: string) => `MOCK:${JSON.stringify({ toolCall: { name: 'calculator', arguments: JSON.stringify({ expression }) } })}`;

describe('forking at a tool call whose id a later run reused (mock provider)', () => {
  const app = useMockApp(TOKEN);

  it('copies the call and its own result, not the later run', async () => {
    const id = await app.api.createConversation({ title: 'Sums' });
    for (const text of [calc('1+1'), calc('2+2')]) {
      const { done } = await app.api.converse(id, { text });
      expect(done.data.state).toBe('SUCCEEDED');
    }
    const messages = await app.api.messages(id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(messages[6].toolCallId).toBe(messages[2].toolCallId); // the later run reused the id

    const fork = await app.api.post(`/conversations/${id}/fork`, { fromMessageId: messages[1].id }).expect(201);
    const copied = await app.api.messages(fork.body.id);
    expect(copied.map((m) => [m.role, m.content])).toEqual(messages.slice(0, 3).map((m) => [m.role, m.content]));
  });
});
