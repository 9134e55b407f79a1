/**
 * BudgetService on a real database (PGlite, or PostgreSQL with HELIX_TEST_DATABASE_URL): holds
 * sized from what is left, concurrent holds that never add up to more than the budget, cost
 * budgets priced from the catalog, settling, expiry, and the status read model; the UTC day a
 * hold and its settlement count on, holds left behind by calls that never settled, and holds of
 * several instances at once.
 */
import { translate } from '../common';
import type { BudgetRequest, BudgetReservation } from '../runtime/loop/step-hooks';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import { type BudgetService, DEFAULT_OUTPUT_RESERVE, HOLD_TTL_MS } from './budget.service';
import { utcDay } from './usage-ledger';
import type { UsageRepository } from './usage.repository';

const MODEL = { provider: 'openai', modelId: 'priced' };
/** USD per million tokens */
const PRICES = { inputPrice: 1, outputPrice: 2 };

describe('BudgetService (database)', () => {
  let t: MediumTest;
  let budgets: BudgetService;
  let usage: UsageRepository;
  let rejected: string[];

  beforeAll(async () => {
    t = await mediumTest();
    ({ budgets, usage, rejected } = t.budgets(PRICES));
  });
  afterAll(() => t?.close());

  const workspace = async (settings: object = {}): Promise<string> => (await t.workspace({ settings })).workspaceId;

  const ask = (workspaceId: string, limits: Partial<BudgetRequest>): Promise<BudgetReservation> =>
    budgets.reserve({ workspaceId, runId: t.id('run'), model: MODEL, estimatedPromptTokens: 100, ...limits });

  it('without a budget: allowed, nothing held, the usage recorded behind', async () => {
    const ws = await workspace();
    const held = await ask(ws, {});
    expect(held).toMatchObject({ allowed: true });
    expect(held.allowed && held.maxOutputTokens).toBeUndefined();
    if (held.allowed) await held.settle({ promptTokens: 7, completionTokens: 3, cost: 0.5 });
    expect(await budgets.status(ws)).toMatchObject({ dailyTokenBudget: null, tokensUsed: 10, costUsed: 0.5, tokensReserved: 0, remainingTokens: null });
  });

  it('holds the prompt (with a margin) and the default output; settling replaces the hold with the usage', async () => {
    const ws = await workspace({ dailyTokenBudget: 100_000 });
    const held = await ask(ws, { dailyTokenBudget: 100_000 });
    expect(held).toMatchObject({ allowed: true, maxOutputTokens: DEFAULT_OUTPUT_RESERVE });
    expect(await budgets.status(ws)).toMatchObject({ tokensReserved: 110 + DEFAULT_OUTPUT_RESERVE, tokensUsed: 0 });
    if (held.allowed) await held.settle({ promptTokens: 90, completionTokens: 20, cost: 0 });
    expect(await budgets.status(ws)).toMatchObject({ tokensReserved: 0, tokensUsed: 110, remainingTokens: 100_000 - 110 });
  });

  it('grants what is left, and refuses (naming budget, use and reset) when not even the minimum fits', async () => {
    const ws = await workspace({ dailyTokenBudget: 1_000 });
    const first = await ask(ws, { dailyTokenBudget: 1_000 });
    expect(first).toMatchObject({ allowed: true, maxOutputTokens: 1_000 - 110 });
    const second = await ask(ws, { dailyTokenBudget: 1_000 });
    expect(second.allowed).toBe(false);
    if (!second.allowed) {
      expect(second.reason).toContain("more than the 0 left of the workspace's daily token budget of 1,000 (0 used today, 1,000 held by calls in progress)");
      expect(second.reason).toContain('resets at');
    }
    expect(rejected.at(-1)).toBe('tokens');
  });

  it('a call too big for what is left says how much is left, not that the budget is spent', async () => {
    const ws = await workspace({ dailyTokenBudget: 100_000 });
    const refused = await ask(ws, { dailyTokenBudget: 100_000, estimatedPromptTokens: 150_000 });
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) {
      expect(refused.reason).toMatch(/^This call needs at least 1\d\d,\d{3} tokens, more than the 100,000 left of the workspace's daily token budget of 100,000 \(0 used today\)\./);
      expect(refused.reason).not.toContain('spent');
      // in Chinese too: more than the 100,000 left, not "used up" (已用完)
      const zh = translate(refused.reason, 'zh');
      expect(zh).toMatch(/^本次调用至少需要 1\d\d,\d{3} 个 token，超过了工作空间每日 100,000 个 token 预算的剩余 100,000 个（今天已用 0 个）。/);
      expect(zh).not.toContain('已用完');
    }
  });

  it('20 concurrent holds never add up to more than the budget', async () => {
    const limit = 2_000;
    const ws = await workspace({ dailyTokenBudget: limit });
    const holds = await Promise.all(Array.from({ length: 20 }, () => ask(ws, { dailyTokenBudget: limit, maxOutputTokens: 300 })));
    const granted = holds.filter((h) => h.allowed);
    // each holds 110 prompt + up to 300 output: four whole holds and a fifth cut to what is left
    expect(granted.map((h) => (h.allowed ? h.maxOutputTokens : 0)).sort()).toEqual([250, 300, 300, 300, 300]);
    const status = await budgets.status(ws);
    expect(status.tokensReserved).toBe(limit);
    expect(status.remainingTokens).toBe(0);
  });

  it('a cost budget is priced from the catalog', async () => {
    const ws = await workspace({ dailyCostBudget: 0.01 });
    // 110 prompt tokens at $1/M = $0.00011, 4096 output tokens at $2/M = $0.008192: it fits whole
    const held = await ask(ws, { dailyCostBudget: 0.01 });
    expect(held).toMatchObject({ allowed: true, maxOutputTokens: DEFAULT_OUTPUT_RESERVE });
    const next = await ask(ws, { dailyCostBudget: 0.01 });
    // what is left: $0.01 - 2 × $0.00011 - 4096 × $2/M = $0.001588, at $2/M: 794 tokens (float rounding aside)
    expect(next.allowed && next.maxOutputTokens).toBeGreaterThanOrEqual(793);
    expect(next.allowed && next.maxOutputTokens).toBeLessThanOrEqual(794);
    const refused = await ask(ws, { dailyCostBudget: 0.01 });
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) expect(refused.reason).toContain("more than the $0.0000 left of the workspace's daily cost budget of $0.0100");
    expect(rejected.at(-1)).toBe('cost');
  });

  it('an expired hold is released by the sweep', async () => {
    const ws = await workspace({ dailyTokenBudget: 10_000 });
    const day = utcDay(new Date());
    await usage.ensureDay(ws, day);
    const past = new Date(Date.now() - 1);
    await usage.hold({ id: `hold_${ws}`, workspaceId: ws, day, runId: 'run_x', promptTokens: 500, promptCost: 0, outputPrice: 0, maxOutput: 100, minOutput: 1, expiresAt: past }, { tokens: 10_000 });
    expect((await budgets.status(ws)).tokensReserved).toBe(600);
    expect(await budgets.releaseExpired()).toBeGreaterThanOrEqual(1);
    expect((await budgets.status(ws)).tokensReserved).toBe(0);
  });

  /** Date alone is faked (timers, ticks and the database's clock run on): `at(iso)` moves it. */
  const at = (iso: string) => {
    jest.useFakeTimers({
      doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame',
        'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
    });
    jest.setSystemTime(new Date(iso));
  };
  afterEach(() => jest.useRealTimers());

  const settle = (held: BudgetReservation, used: { promptTokens: number; completionTokens: number; cost: number }) => {
    if (!held.allowed) throw new Error(`refused: ${held.reason}`);
    return held.settle(used);
  };
  const heldRows = async (workspaceId: string) =>
    (await t.sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM budget_reservations WHERE workspace_id = ${workspaceId}`)[0].n;

  it('without a budget no statement is made before the call: no day row and no hold until the usage lands', async () => {
    const ws = await workspace();
    const held = await ask(ws, {});
    expect(await usage.day(ws, utcDay(new Date()))).toBeUndefined();
    expect(await heldRows(ws)).toBe(0);
    await settle(held, { promptTokens: 40, completionTokens: 2, cost: 0 });
    expect(await budgets.status(ws)).toMatchObject({ tokensUsed: 42, tokensReserved: 0 });
    expect(await heldRows(ws)).toBe(0);
  });

  it('settling with more than was held: the hold goes, the real usage counts in full', async () => {
    const ws = await workspace({ dailyTokenBudget: 10_000 });
    const held = await ask(ws, { dailyTokenBudget: 10_000, maxOutputTokens: 100 });
    expect(held).toMatchObject({ allowed: true, maxOutputTokens: 100 });
    expect(await budgets.status(ws)).toMatchObject({ tokensReserved: 210, tokensUsed: 0, remainingTokens: 9_790 });
    expect(await heldRows(ws)).toBe(1);
    await settle(held, { promptTokens: 500, completionTokens: 1_000, cost: 0 });
    expect(await budgets.status(ws)).toMatchObject({ tokensReserved: 0, tokensUsed: 1_500, remainingTokens: 8_500 });
    expect(await heldRows(ws)).toBe(0);
  });

  it('a call that never settles holds its tokens until its hold expires; the next call in its way releases it', async () => {
    const ws = await workspace({ dailyTokenBudget: 1_000 });
    at('2031-03-10T12:00:00.000Z');
    const abandoned = await ask(ws, { dailyTokenBudget: 1_000 });
    expect(abandoned).toMatchObject({ allowed: true, maxOutputTokens: 890 });
    // still held a minute before it expires: the next call is refused
    at('2031-03-10T12:14:00.000Z');
    expect((await ask(ws, { dailyTokenBudget: 1_000 })).allowed).toBe(false);
    // once expired, the call it blocks releases it and is granted the whole budget again
    at(new Date(Date.parse('2031-03-10T12:00:00.000Z') + HOLD_TTL_MS).toISOString());
    const next = await ask(ws, { dailyTokenBudget: 1_000 });
    expect(next).toMatchObject({ allowed: true, maxOutputTokens: 890 });
    expect(await budgets.status(ws, new Date())).toMatchObject({ tokensReserved: 1_000, tokensUsed: 0 });
    expect(await heldRows(ws)).toBe(1);
  });

  it('a hold settled after the sweep released it: its usage is recorded, the other holds stay', async () => {
    const ws = await workspace({ dailyTokenBudget: 10_000 });
    at('2031-03-10T09:00:00.000Z');
    const late = await ask(ws, { dailyTokenBudget: 10_000, maxOutputTokens: 100 });
    at('2031-03-10T09:10:00.000Z');
    await ask(ws, { dailyTokenBudget: 10_000, maxOutputTokens: 200 });
    expect(await budgets.status(ws, new Date())).toMatchObject({ tokensReserved: 210 + 310 });
    at('2031-03-10T09:20:00.000Z');
    // the sweep is for every workspace: holds of the other tests expired by now as well
    expect(await budgets.releaseExpired()).toBeGreaterThanOrEqual(1);
    expect(await heldRows(ws)).toBe(1);
    expect(await budgets.status(ws, new Date())).toMatchObject({ tokensReserved: 310 });
    await settle(late, { promptTokens: 100, completionTokens: 50, cost: 0 });
    expect(await budgets.status(ws, new Date())).toMatchObject({ tokensReserved: 310, tokensUsed: 150 });
  });

  it('budgets are per UTC day: a new day starts empty, and a hold settles on the day it was made', async () => {
    const ws = await workspace({ dailyTokenBudget: 1_000 });
    at('2031-03-10T23:59:30.000Z');
    const evening = await ask(ws, { dailyTokenBudget: 1_000 });
    expect(evening).toMatchObject({ allowed: true, maxOutputTokens: 890 });
    const refused = await ask(ws, { dailyTokenBudget: 1_000 });
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) expect(refused.reason).toContain('It resets at 2031-03-11T00:00:00.000Z (midnight UTC).');
    expect((await budgets.status(ws, new Date())).resetsAt).toEqual(new Date('2031-03-11T00:00:00.000Z'));

    at('2031-03-11T00:00:00.000Z');
    const morning = await ask(ws, { dailyTokenBudget: 1_000 });
    expect(morning).toMatchObject({ allowed: true, maxOutputTokens: 890 });
    // the evening's call ends after midnight: its usage belongs to the day it held on
    await settle(evening, { promptTokens: 100, completionTokens: 300, cost: 0 });
    expect(await budgets.status(ws, new Date('2031-03-10T12:00:00.000Z'))).toMatchObject({ tokensUsed: 400, tokensReserved: 0, remainingTokens: 600 });
    expect(await budgets.status(ws, new Date())).toMatchObject({ tokensUsed: 0, tokensReserved: 1_000, remainingTokens: 0 });
    expect((await usage.range(ws, '2031-03-10', '2031-03-11')).map((day) => day.day)).toEqual(['2031-03-10', '2031-03-11']);
  });

  it('holds of two instances at once (each with its own cache of days) never add up to more than the budget', async () => {
    const limit = 2_000;
    const ws = await workspace({ dailyTokenBudget: limit });
    const instances = [t.budgets(PRICES).budgets, t.budgets(PRICES).budgets];
    const holds = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        instances[i % 2].reserve({ workspaceId: ws, runId: t.id('run'), model: MODEL, estimatedPromptTokens: 100, dailyTokenBudget: limit, maxOutputTokens: 300 }),
      ),
    );
    expect(holds.map((h) => (h.allowed ? h.maxOutputTokens : 0)).filter(Boolean).sort()).toEqual([250, 300, 300, 300, 300]);
    expect((await budgets.status(ws)).tokensReserved).toBe(limit);
  });

  it('a day row deleted under a running instance (the workspace recreated) is made again', async () => {
    const ws = await workspace({ dailyTokenBudget: 1_000 });
    const first = await ask(ws, { dailyTokenBudget: 1_000, maxOutputTokens: 100 });
    await settle(first, { promptTokens: 10, completionTokens: 10, cost: 0 });
    await t.sql.$executeRaw`DELETE FROM usage_daily WHERE workspace_id = ${ws}`;
    expect(await ask(ws, { dailyTokenBudget: 1_000, maxOutputTokens: 100 })).toMatchObject({ allowed: true, maxOutputTokens: 100 });
    expect(await budgets.status(ws)).toMatchObject({ tokensUsed: 0, tokensReserved: 210 });
  });
});
