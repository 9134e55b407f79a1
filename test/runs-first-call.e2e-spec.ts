/**
 * A run that can start at once sends its first model call while the POST writes the run
 * (RunStarter, ModelStep); it may only be used when the conversation is still as it was read.
 * (A refused or queued message sends no early call: runs-control.)
 */
import { ConversationService } from '../src/conversation/conversation.service';
import { SqlClient } from '../src/database/sql-client';
import { useMockApp } from './support/mock-app';

const TOKEN = 'runs-first-call-token';
jest.setTimeout(120_000);

describe('runs: the first model call, sent before the run is written (mock LLM)', () => {
  const app = useMockApp(TOKEN);
  const callsWith = (marker: string) => app.mock.requests.filter((r) => JSON.stringify(r.messages).includes(marker));

  it('a message written between the read and the run: the early call is dropped, the run asks again with it', async () => {
    // titled: an auto-title call would quote the messages the model calls are counted by
    const conversationId = await app.api.createConversation({ title: 'first call' });
    const sql = app.t.app.get(SqlClient);
    const conversations = app.t.app.get(ConversationService);
    const atomic = sql.$atomic.bind(sql);
    // another writer appends to the conversation right after the POST read it
    const spy = jest.spyOn(sql, '$atomic').mockImplementationOnce(async (statements) => {
      const read = await atomic(statements);
      await conversations.append({ conversationId, content: 'written meanwhile', parts: { kind: 'answer', step: 0 } });
      return read;
    });
    try {
      const { done, events } = await app.api.converse(conversationId, { text: 'first call MOCK:{"text":"an answer"}' });
      expect(done.data.state).toBe('SUCCEEDED');
      expect(events.filter((e) => e.type === 'token').map((e) => e.data.text).join('')).toBe('an answer');
    } finally {
      spy.mockRestore();
    }
    // the call that answered was made with the conversation as it now is
    const calls = callsWith('first call MOCK');
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(2); // the early call, if it reached the mock before it was aborted
    const answered = calls.at(-1)!.messages!.map((m) => m.content);
    expect(answered.slice(-2)).toEqual(['written meanwhile', 'first call MOCK:{"text":"an answer"}']);
    const messages = await app.api.messages(conversationId);
    expect(messages.map((m) => [m.seq, m.role, m.content])).toEqual([
      [1, 'assistant', 'written meanwhile'],
      [2, 'user', 'first call MOCK:{"text":"an answer"}'],
      [3, 'assistant', 'an answer'],
    ]);
  });
});
