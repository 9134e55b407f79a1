import { usageSeries } from './budget.resolver';

describe('usageSeries', () => {
  const row = (day: string, promptTokens: number) => ({ workspaceId: 'ws', day, promptTokens, completionTokens: 2, cost: 0.5, runs: 1, reservedTokens: 0, reservedCost: 0 });

  it('has one row per day of the range, zeros where the ledger has none, totals added', () => {
    expect(usageSeries('2024-02-28', '2024-03-01', [row('2024-02-29', 10)])).toEqual([
      { day: '2024-02-28', promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0, runs: 0 },
      { day: '2024-02-29', promptTokens: 10, completionTokens: 2, totalTokens: 12, cost: 0.5, runs: 1 },
      { day: '2024-03-01', promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0, runs: 0 },
    ]);
  });

  it('is one day for from = to', () => {
    expect(usageSeries('2026-01-01', '2026-01-01', [])).toHaveLength(1);
  });
});
