// The performance score's parts (domain/analytics/score.ts): each part's bounds, the penalties, and
// the asset classes behind diversification.
import { expect } from 'chai';
import { assetClassOf } from '../../../domain/analytics/assetClasses.js';
import { martingaleShare, SCORE_POINTS, type ScoreFacts, scoreOf } from '../../../domain/analytics/score.js';

const facts = (over: Partial<ScoreFacts> = {}): ScoreFacts => ({
  trades: 50,
  netProfit: 1000,
  grossProfit: 2000,
  winRate: 60,
  profitFactor: 2,
  maxDrawdown: 10,
  maxDrawdownAmount: 500,
  avgWin: 66.67,
  avgLoss: -50,
  expectancy: 20,
  smoothness: 0.9,
  monthsActive: 6,
  tradingDays: 25,
  live: false,
  propFirm: false,
  balance: 11_000,
  uniqueInstruments: 5,
  uniqueAssetClasses: 3,
  martingaleShare: 0,
  ...over,
});

describe('performance score', () => {
  it('the reference ranges add up to 89 points', () => {
    expect(SCORE_POINTS).to.equal(89);
  });

  it('a flawless live record earns every point and scores 100', () => {
    const { score, scoreBreakdown } = scoreOf(
      facts({
        trades: 100,
        winRate: 80,
        profitFactor: 3,
        maxDrawdown: 0,
        maxDrawdownAmount: 0,
        avgWin: 100,
        avgLoss: -50,
        expectancy: 25,
        smoothness: 1,
        monthsActive: 12,
        live: true,
        balance: 10_000,
      }),
    );
    expect(scoreBreakdown).to.deep.include({
      profitFactorScore: 12,
      winRateScore: 8,
      maxDrawdownScore: 12,
      recoveryFactorScore: 10,
      riskRewardScore: 7,
      expectancyScore: 5,
      consistencyScore: 6,
      totalTradesScore: 4,
      monthsActiveScore: 2,
      accountTypeScore: 8,
      diversificationScore: 8,
      accountBalanceScore: 7,
      martingalePenalty: 0,
      overtradingPenalty: 0,
    });
    expect(score).to.equal(100);
  });

  it('a losing record earns nothing for profit factor, recovery, expectancy and consistency', () => {
    const { scoreBreakdown } = scoreOf(facts({ netProfit: -300, profitFactor: 0.7, expectancy: -6 }));
    expect(scoreBreakdown).to.deep.include({ profitFactorScore: 0, recoveryFactorScore: 0, expectancyScore: 0, consistencyScore: 0 });
  });

  it('without losses, profit factor, risk/reward and expectancy take full marks when there is a profit', () => {
    const { scoreBreakdown } = scoreOf(facts({ profitFactor: null, avgLoss: 0, maxDrawdownAmount: 0 }));
    expect(scoreBreakdown).to.deep.include({ profitFactorScore: 12, riskRewardScore: 7, expectancyScore: 5, recoveryFactorScore: 10 });
  });

  it('raising lots after every loss costs all 6 martingale points; 35 trades a day cost half the overtrading points', () => {
    const { scoreBreakdown } = scoreOf(facts({ martingaleShare: 1, trades: 35 * 4, tradingDays: 4 }));
    expect(scoreBreakdown).to.deep.include({ martingalePenalty: -6, overtradingPenalty: -2.5 });
  });

  it('never goes below 0', () => {
    const { score } = scoreOf(
      facts({
        netProfit: -900,
        profitFactor: 0.1,
        winRate: 0,
        maxDrawdown: 90,
        expectancy: -50,
        martingaleShare: 1,
        trades: 500,
        tradingDays: 5,
        uniqueInstruments: 1,
        uniqueAssetClasses: 1,
        monthsActive: 0,
      }),
    );
    expect(score).to.equal(0);
  });

  it('without trades every part is 0, and the account facts stay', () => {
    const { score, scoreBreakdown } = scoreOf(facts({ trades: 0, live: true, uniqueInstruments: 0, uniqueAssetClasses: 0 }));
    expect(score).to.equal(0);
    expect(scoreBreakdown).to.deep.include({ accountTypeScore: 0, accountBalanceScore: 0, isLiveAccount: true, uniqueInstruments: 0 });
  });
});

describe('martingale share', () => {
  const t = (volume: number, openTime: string, closeTime: string, result: number) => ({ volume, openTime, closeTime, result });

  it('counts the next trade opened after a loss with 1.5 times its lots or more', () => {
    const trades = [
      t(0.1, '2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z', -10),
      t(0.2, '2026-03-02T10:05:00Z', '2026-03-02T11:00:00Z', -20), // doubled after a loss: a step
      t(0.25, '2026-03-02T11:05:00Z', '2026-03-02T12:00:00Z', 30), // 1.25 x after a loss: no step
      t(1, '2026-03-02T12:05:00Z', '2026-03-02T13:00:00Z', 10), // after a win: not looked at
    ];
    expect(martingaleShare(trades)).to.equal(0.5);
  });

  it('is 0 without a loss followed by a trade', () => {
    expect(martingaleShare([t(0.1, '2026-03-02T09:00:00Z', '2026-03-02T10:00:00Z', -10)])).to.equal(0);
  });
});

describe('asset classes of symbols', () => {
  it('tells forex, metals, energies, crypto and indices by name, broker suffixes aside', () => {
    expect(
      ['EURUSD', 'gbpjpy.m', 'USDJPYm', 'XAUUSD', 'XAGUSD.a', 'USOIL', 'BTCUSD', 'ETHUSDT', 'US500', 'GER40.cash', 'NAS100', 'AAPL'].map(assetClassOf),
    ).to.deep.equal(['forex', 'forex', 'forex', 'metals', 'metals', 'energies', 'crypto', 'crypto', 'indices', 'indices', 'indices', 'other']);
  });
});
