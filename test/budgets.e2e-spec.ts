/**
 * Daily budgets and the usage ledger through HTTP/SSE with the mock provider: the ledger sums
 * the `usage` events (an auto-title call's too), concurrent runs against a nearly spent budget
 * never overspend it (the ones that do not fit end BUDGET_EXCEEDED without a provider request),
 * and a crashed process's hold expires.
 */
import { SqlClient } from '../src/database/sql-client';
import { BudgetService, HOLD_TTL_MS } from '../src/observe/budget.service';
import { utcDay } from '../src/observe/usage-ledger';
import { UsageRepository } from '../src/observe/usage.repository';
import { DEFAULT_WORKSPACE_ID } from '../src/security/auth-context';
import { useMockApp } from './support/mock-app';

jest.setTimeout(120_000);

const TOKEN = 'budgets-e2e-token';
const BUDGET = 20_000;

describe('daily budgets and the usage ledger (mock provider)', () => {
  const app = useMockApp(TOKEN);
  const sql = () => app.t.app.get(SqlClient);
  const budgets = () => app.t.app.get(BudgetService);
  const today = () => utcDay(new Date());

  async function setBudget(settings: { dailyTokenBudget?: number; dailyCostBudget?: number }) {
    await sql().$executeRaw`UPDATE workspaces SET settings = ${JSON.stringify(settings)}::jsonb WHERE id = ${DEFAULT_WORKSPACE_ID}`;
  }

  /** Sets today's recorded usage (as if earlier runs had spent it) and clears every hold. */
  async function spentToday(tokens: number) {
    await sql().$executeRaw`DELETE FROM budget_reservations`;
    await sql().$executeRaw`
      INSERT INTO usage_daily (workspace_id, day, prompt_tokens) VALUES (${DEFAULT_WORKSPACE_ID}, ${today()}::date, ${tokens})
      ON CONFLICT (workspace_id, day) DO UPDATE SET prompt_tokens = EXCLUDED.prompt_tokens, completion_tokens = 0, cost = 0,
        reserved_tokens = 0, reserved_cost = 0`;
  }

  const holds = async () => (await sql().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM budget_reservations`)[0].n;

  it('records every call in the ledger: the day sums the usage events, and counts the runs', async () => {
    const totals = { promptTokens: 0, completionTokens: 0, calls: 0 };
    for (const text of ['first question', 'a second, longer question for the ledger']) {
      // titled (here and below): one model call per run, no auto-title call
      const conversationId = await app.api.createConversation({ title: 'ledger' });
      const { events, done } = await app.api.converse(conversationId, { text });
      expect(done.data).toMatchObject({ state: 'SUCCEEDED' });
      for (const event of events.filter((e) => e.type === 'usage')) {
        totals.promptTokens += event.data.promptTokens;
        totals.completionTokens += event.data.completionTokens;
        totals.calls++;
      }
    }
    expect(totals.calls).toBe(2); // one usage event per model call
    const [day] = await budgets().usageBetween(DEFAULT_WORKSPACE_ID, today(), today());
    expect(day).toMatchObject({ day: today(), promptTokens: totals.promptTokens, completionTokens: totals.completionTokens, runs: 2 });
    expect(totals.promptTokens).toBeGreaterThan(0);

    const status = await budgets().status(DEFAULT_WORKSPACE_ID);
    expect(status).toMatchObject({ dailyTokenBudget: null, remainingTokens: null, tokensUsed: totals.promptTokens + totals.completionTokens });
  });

  it('charges an auto-title call to the day, like the answer it follows', async () => {
    const before = (await budgets().status(DEFAULT_WORKSPACE_ID)).tokensUsed;
    const conversationId = await app.api.createConversation(); // the default title: the run asks for one
    app.mock.reset();
    app.mock.script({ text: 'Paris is lovely in April.' }, { text: 'Trip to Paris' });
    const { events, done } = await app.api.converse(conversationId, { text: 'I want to go to Paris in April' });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(events.find((e) => e.type === 'title')?.data).toEqual({ title: 'Trip to Paris' });
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage).toHaveLength(2); // the answer's call and the title's
    const tokens = usage.reduce((total, e) => total + e.data.promptTokens + e.data.completionTokens, 0);
    expect((await budgets().status(DEFAULT_WORKSPACE_ID)).tokensUsed - before).toBe(tokens);
  });

  it('20 runs started at once against a nearly spent budget never overspend it; the rest end BUDGET_EXCEEDED unsent', async () => {
    await setBudget({ dailyTokenBudget: BUDGET });
    await spentToday(BUDGET - 6_000); // room for one call's full hold at a time, not for twenty
    const conversations = await Promise.all(Array.from({ length: 20 }, () => app.api.createConversation({ title: 'budget' })));
    app.mock.reset();

    const posted = await Promise.all(conversations.map((id, i) => app.api.postMessage(id, { text: `question number ${i}` })));
    const runs = await Promise.all(posted.map((p) => app.api.waitForRun(p.run.id)));
    const succeeded = runs.filter((r) => r.state === 'SUCCEEDED');
    const refused = runs.filter((r) => r.state === 'BUDGET_EXCEEDED');
    expect(succeeded.length + refused.length).toBe(20);
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    // a refused run sent nothing: one provider request per run that answered
    expect(app.mock.requests).toHaveLength(succeeded.length);

    for (const run of refused) {
      expect(run.error).toMatchObject({ code: 'budget_exceeded' });
      const events = await app.api.jsonEvents(run.id);
      const error = events.find((e) => e.type === 'error');
      expect(error?.data.code).toBe('budget_exceeded');
      expect(error?.data.message).toContain("daily token budget of 20,000 (");
      expect(error?.data.message).toMatch(/more than the [\d,]+ left of .*\([\d,]+ used today/);
      expect(error?.data.message).toContain(`resets at ${new Date(Date.parse(today()) + 86_400_000).toISOString()}`);
      expect(events.at(-1)).toMatchObject({ type: 'done', data: { state: 'BUDGET_EXCEEDED' } });
    }

    const status = await budgets().status(DEFAULT_WORKSPACE_ID);
    expect(status.tokensUsed).toBeLessThanOrEqual(BUDGET);
    expect(status).toMatchObject({ dailyTokenBudget: BUDGET, tokensReserved: 0, resetsAt: new Date(Date.parse(today()) + 86_400_000) });
    expect(status.remainingTokens).toBe(BUDGET - status.tokensUsed);
    expect(await holds()).toBe(0);
  });

  it('a call is sent with the output limit its hold was granted', async () => {
    await setBudget({ dailyTokenBudget: BUDGET });
    // room for the prompt (every built-in tool's schema) and a little output
    await spentToday(BUDGET - 2_000);
    app.mock.reset();
    const conversationId = await app.api.createConversation();
    const { done } = await app.api.converse(conversationId, { text: 'a short one' });
    expect(done.data).toMatchObject({ state: 'SUCCEEDED' });
    const sent = app.mock.requests[0] as { max_tokens?: number; max_completion_tokens?: number };
    const limit = sent.max_completion_tokens ?? sent.max_tokens;
    expect(limit).toBeGreaterThanOrEqual(64);
    expect(limit).toBeLessThan(2_000);
  });

  it('a hold left by a crashed process expires and no longer blocks the budget', async () => {
    await setBudget({ dailyTokenBudget: BUDGET });
    await spentToday(0);
    // a process took the whole day's budget for a call, then died before settling it
    const expired = new Date(Date.now() - 1000);
    const crashed = await app.t.app.get(UsageRepository).hold(
      { id: 'hold_crashed', workspaceId: DEFAULT_WORKSPACE_ID, day: today(), runId: 'run_gone', promptTokens: BUDGET - 10, promptCost: 0, outputPrice: 0, maxOutput: 10, minOutput: 1, expiresAt: expired },
      { tokens: BUDGET },
    );
    expect(crashed.granted).toBe(10);
    expect((await budgets().status(DEFAULT_WORKSPACE_ID)).remainingTokens).toBe(0);

    const conversationId = await app.api.createConversation();
    const { done } = await app.api.converse(conversationId, { text: 'after the crash' });
    expect(done.data).toMatchObject({ state: 'SUCCEEDED' });
    expect(await holds()).toBe(0);
    expect((await budgets().status(DEFAULT_WORKSPACE_ID)).tokensReserved).toBe(0);
    expect(HOLD_TTL_MS).toBeGreaterThan(60_000); // the periodic sweep releases holds older than this
  });
});
