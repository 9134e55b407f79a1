import type { MessageRecord } from '../../conversation';
import { stuckIn } from './stuck-check';

let seq = 0;
const message = (parts: MessageRecord['parts'], content = '', runId = 'run_1'): MessageRecord =>
  ({ id: `m${++seq}`, conversationId: 'c', seq, role: 'assistant', content, parts, toolCallId: null, runId, createdAt: new Date() }) as MessageRecord;
const call = (id: string, args: string, name = 'calculator') => message({ kind: 'answer', step: seq, toolCalls: [{ id, name, arguments: args }] });
const result = (ok: boolean, output: string, name = 'calculator') => message({ kind: 'tool_result', name, ok }, output);
const answer = (text: string) => message({ kind: 'answer', step: seq, toolCalls: [{ id: `c${seq}`, name: 'calculator', arguments: `{"n":${seq}}` }] }, text);

describe('stuck detection', () => {
  it('the same calls in three answers in a row, whatever the order of their keys', () => {
    const history = [call('a', '{"x":1,"y":2}'), result(true, '3'), call('b', '{"y":2,"x":1}'), result(true, '3')];
    expect(stuckIn(history, 'run_1')).toBeUndefined();
    history.push(call('c', '{ "x": 1, "y": 2 }'), result(true, '3'));
    expect(stuckIn(history, 'run_1')).toEqual({ rule: 'repeatedCalls', times: 3, calls: 'calculator({"x":1,"y":2})' });
    // another run's messages and a rule set to 0 do not count
    expect(stuckIn(history, 'run_2')).toBeUndefined();
    expect(stuckIn(history, 'run_1', { repeatedCalls: 0, repeatedErrors: 3, repeatedAnswers: 2 })).toBeUndefined();
  });

  it('the same failed result three times in a row, even from different arguments', () => {
    const history = [call('a', '{"n":1}'), result(false, 'boom'), call('b', '{"n":2}'), result(false, 'boom'), call('c', '{"n":3}')];
    expect(stuckIn(history, 'run_1')).toBeUndefined();
    history.push(result(false, 'boom'));
    expect(stuckIn(history, 'run_1')).toEqual({ rule: 'repeatedErrors', times: 3, tool: 'calculator' });
    // a success in between breaks the streak
    expect(stuckIn([...history.slice(0, 4), result(true, 'ok'), result(false, 'boom')], 'run_1')).toBeUndefined();
  });

  it('the same answer text twice in a row; empty text never counts', () => {
    expect(stuckIn([answer(''), answer('')], 'run_1')).toBeUndefined();
    expect(stuckIn([answer('Let me check.'), answer('Let me check. ')], 'run_1')).toEqual({ rule: 'repeatedAnswers', times: 2 });
  });

  it('starts afresh after a failure (a plan step tried again)', () => {
    const history = [call('a', '{}'), result(true, '1'), call('b', '{}'), result(true, '1'), message({ kind: 'failure', error: 'x' }, 'failed'), call('c', '{}')];
    expect(stuckIn(history, 'run_1')).toBeUndefined();
  });
});
