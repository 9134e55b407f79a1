import { MAX_SUBRUN_DEPTH, MAX_SUBRUNS_PER_RUN, MAX_TASK_CHARS, readDelegateRequest, subrunRefusal } from './delegate';

describe('delegate', () => {
  it('reads the agent and the task, trimmed; names the field that is missing or too long', () => {
    expect(readDelegateRequest({ agent: ' researcher ', task: ' find it ' })).toEqual({ ok: true, agent: 'researcher', task: 'find it' });
    expect(readDelegateRequest({ task: 'x' })).toEqual({ ok: false, error: expect.stringContaining('`agent`') });
    expect(readDelegateRequest({ agent: 'a', task: '  ' })).toEqual({ ok: false, error: expect.stringContaining('`task`') });
    expect(readDelegateRequest('not an object')).toMatchObject({ ok: false });
    expect(readDelegateRequest({ agent: 'a', task: 'x'.repeat(MAX_TASK_CHARS + 1) })).toEqual({ ok: false, error: expect.stringContaining('at most') });
  });

  it('lets a run and its child delegate, not a grandchild', () => {
    expect(MAX_SUBRUN_DEPTH).toBe(2);
    expect(subrunRefusal(0, 0)).toBeUndefined();
    expect(subrunRefusal(1, 0)).toBeUndefined();
    expect(subrunRefusal(2, 0)).toContain('nest at most 2 deep and this run is at depth 2');
  });

  it('lets a run start at most 4 sub-runs', () => {
    expect(MAX_SUBRUNS_PER_RUN).toBe(4);
    expect(subrunRefusal(0, 3)).toBeUndefined();
    expect(subrunRefusal(0, 4)).toContain('at most 4 sub-runs and this one started 4');
  });
});
