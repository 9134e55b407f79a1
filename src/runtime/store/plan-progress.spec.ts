import { beginPlan, completeStep, currentStep, failStep, MAX_PLAN_STEPS, PLAN_SUMMARY_CHARS, replaceRemaining, skipOpen, stepsAfterCurrent } from './plan-progress';

const plan = (...titles: string[]) => ({ steps: titles.map((title) => ({ title })) });

describe('plan progress', () => {
  it('starts the first step, completes each in turn, and says when the last one is done', () => {
    const begun = beginPlan(plan('a', 'b'))!;
    expect(begun.events).toEqual([{ index: 0, title: 'a', status: 'running', attempt: 1 }]);
    expect(beginPlan(begun.plan)).toBeUndefined(); // a running step goes on (a resumed run)
    expect(stepsAfterCurrent(begun.plan)).toBe(true);
    const first = completeStep(begun.plan, '  found it ');
    expect(first.more).toBe(true);
    expect(first.events.map((e) => [e.index, e.status, e.summary])).toEqual([[0, 'done', 'found it'], [1, 'running', undefined]]);
    expect(stepsAfterCurrent(first.plan)).toBe(false);
    const last = completeStep(first.plan, 'answer');
    expect(last.more).toBe(false);
    expect(currentStep(last.plan)).toBeUndefined();
  });

  it('retries a failed step once, then fails it and skips the rest', () => {
    const begun = beginPlan(plan('a', 'b'))!.plan;
    const once = failStep(begun, 'down');
    expect(once.retried).toBe(true);
    expect(once.plan.steps[0]).toEqual({ title: 'a', status: 'running', attempts: 2 });
    const twice = failStep(once.plan, 'down again');
    expect(twice).toMatchObject({ retried: false, index: 0 });
    expect(twice.plan.steps).toEqual([{ title: 'a', status: 'failed', summary: 'down again', attempts: 2 }, { title: 'b', status: 'skipped' }]);
  });

  it('keeps a summary within its bound, by code point', () => {
    const done = completeStep(beginPlan(plan('a'))!.plan, '字'.repeat(PLAN_SUMMARY_CHARS + 10));
    expect([...(done.plan.steps[0].summary ?? '')]).toHaveLength(PLAN_SUMMARY_CHARS);
  });

  it('an edit replaces only the steps not started; the bound counts every step', () => {
    const running = completeStep(beginPlan(plan('a', 'b', 'c'))!.plan, 'x').plan;
    expect(replaceRemaining(running, [{ title: 'd', detail: 'why' }])?.steps.map((s) => [s.title, s.status])).toEqual([
      ['a', 'done'],
      ['b', 'running'],
      ['d', undefined],
    ]);
    expect(replaceRemaining(running, Array.from({ length: MAX_PLAN_STEPS - 1 }, () => ({ title: 't' })))).toBeUndefined();
    expect(skipOpen(running).events.map((e) => [e.index, e.status])).toEqual([[1, 'skipped'], [2, 'skipped']]);
  });
});
