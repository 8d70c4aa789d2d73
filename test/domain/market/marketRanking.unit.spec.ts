// The marketplace's order and what it shows (domain/market/ranking.ts).
import { expect } from 'chai';
import type { ScoreBreakdown } from '../../../domain/analytics/score.js';
import { breakdownPoints, isInMarketplace, publicProviderSetting, rankProviders } from '../../../domain/market/ranking.js';

const breakdown = (points: Partial<ScoreBreakdown> = {}): ScoreBreakdown => ({
  profitFactorScore: 0,
  winRateScore: 0,
  maxDrawdownScore: 0,
  recoveryFactorScore: 0,
  riskRewardScore: 0,
  expectancyScore: 0,
  consistencyScore: 0,
  totalTradesScore: 0,
  monthsActiveScore: 0,
  accountTypeScore: 0,
  diversificationScore: 0,
  accountBalanceScore: 0,
  martingalePenalty: 0,
  overtradingPenalty: 0,
  isLiveAccount: false,
  uniqueInstruments: 0,
  uniqueAssetClasses: 0,
  ...points,
});

const provider = (id: string, score: number, points: Partial<ScoreBreakdown> = {}, created = '2026-01-01T00:00:00.000Z') => ({
  id,
  created,
  score,
  scoreBreakdown: breakdown(points),
});

describe('marketplace: ranking signal providers', () => {
  it('orders by score, highest first', () => {
    const ranked = rankProviders([provider('a', 10), provider('b', 80), provider('c', 45)]);
    expect(ranked.map((p) => p.id)).to.deep.equal(['b', 'c', 'a']);
  });

  it("breaks a tie of the rounded score by the breakdown's points (penalties subtract; counts are no points)", () => {
    const ranked = rankProviders([
      provider('fewer', 50, { winRateScore: 6, uniqueInstruments: 40, uniqueAssetClasses: 5 }),
      provider('more', 50, { winRateScore: 8, martingalePenalty: -1 }),
    ]);
    expect(breakdownPoints(breakdown({ winRateScore: 8, martingalePenalty: -1, uniqueInstruments: 9 }))).to.equal(7);
    expect(ranked.map((p) => p.id)).to.deep.equal(['more', 'fewer']);
  });

  it('then the older provider, then the id: the order never depends on the input order', () => {
    const input = [provider('z', 30, {}, '2026-02-01T00:00:00.000Z'), provider('y', 30), provider('x', 30)];
    expect(rankProviders(input).map((p) => p.id)).to.deep.equal(['x', 'y', 'z']);
    expect(rankProviders([...input].reverse()).map((p) => p.id)).to.deep.equal(['x', 'y', 'z']);
  });

  it('lists only providers that chose makeVisibleInMarketplace', () => {
    expect(isInMarketplace({ makeVisibleInMarketplace: true })).to.equal(true);
    expect(isInMarketplace({ makeVisibleInMarketplace: false, isPublic: true })).to.equal(false);
    expect(isInMarketplace({})).to.equal(false);
  });

  it("shows no account, strategy or e-mail address of the provider's project", () => {
    const shown = publicProviderSetting({
      name: 'Alpha',
      allowCustomers: ['vip@example.com'],
      subscribers: ['someone@example.com'],
      customerId: 'c-1',
      copier: { id: 'k', fromAccountId: 'acc', fromAccountAlias: 'main', toAccountId: 'x', fromStrategyId: 's', multiplier: 2 },
    });
    expect(shown).to.deep.equal({ name: 'Alpha', allowCustomers: [], subscribers: [], copier: { multiplier: 2 } });
  });
});
