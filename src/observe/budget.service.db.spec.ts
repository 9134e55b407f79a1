/**
 * BudgetService on a real database (PGlite, or PostgreSQL with HELIX_TEST_DATABASE_URL): holds
 * sized from what is left, concurrent holds that never add up to more than the budget, cost
 * budgets priced from the catalog, settling, expiry, and the status read model.
 */
import type { BudgetRequest, BudgetReservation } from '../runtime/step-hooks';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import { type BudgetService, DEFAULT_OUTPUT_RESERVE } from './budget.service';
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
      expect(second.reason).toContain("daily token budget of 1,000 tokens is spent: 0 tokens used today (1,000 more held by calls in progress)");
      expect(second.reason).toContain('resets at');
    }
    expect(rejected.at(-1)).toBe('tokens');
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
    if (!refused.allowed) expect(refused.reason).toContain('daily cost budget of $0.0100 is spent');
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
});
