// Performance metrics on a hand-computed fixture. The account, in UTC:
//   Mon 2026-03-02 08:00  deposit 1,000                         balance 1,000
//   T1 Buy  EURUSD 0.1   09:00-09:30 Mon  +50 -2 commission = +48   1,048  (peak)
//   T2 Sell GBPUSD 0.2   10:00-12:00 Mon  -100 -1 swap -4     = -105  943  (drawdown 105 / 1,048 = 10.019 %)
//   T3 Buy  EURUSD 0.1   Tue 09:00-15:00  +150 -3 swap -2     = +145  1,088 (new peak: recovered after 29.5 h)
//   T4 Sell EURUSD 0.3   Wed 10:00-10:00:30  0                 = 0     1,088 (break-even)
//   Wed 12:00  withdrawal 88                                    1,000  (the peak moves with it to 1,000)
//   T5 Buy  XAUUSD 0.05  Thu 08:00-16:00  -20 -1 commission   = -21   979  (drawdown 2.1 %, open)
import { expect } from 'chai';
import { type BalanceRecord, performanceMetrics, type TradeRecord } from '../../../domain/analytics/metrics.js';

const trade = (
  id: string,
  symbol: string,
  side: 'Buy' | 'Sell',
  volume: number,
  openTime: string,
  closeTime: string,
  profit: number,
  swap: number,
  commission: number,
): TradeRecord => ({
  id,
  positionId: id,
  symbol,
  side,
  volume,
  openTime,
  closeTime,
  profit,
  swap,
  commission,
});

const trades: TradeRecord[] = [
  trade('T1', 'EURUSD', 'Buy', 0.1, '2026-03-02T09:00:00Z', '2026-03-02T09:30:00Z', 50, 0, -2),
  trade('T2', 'GBPUSD', 'Sell', 0.2, '2026-03-02T10:00:00Z', '2026-03-02T12:00:00Z', -100, -1, -4),
  trade('T3', 'EURUSD', 'Buy', 0.1, '2026-03-03T09:00:00Z', '2026-03-03T15:00:00Z', 150, -3, -2),
  trade('T4', 'EURUSD', 'Sell', 0.3, '2026-03-04T10:00:00Z', '2026-03-04T10:00:30Z', 0, 0, 0),
  trade('T5', 'XAUUSD', 'Buy', 0.05, '2026-03-05T08:00:00Z', '2026-03-05T16:00:00Z', -20, 0, -1),
];
const balanceOperations: BalanceRecord[] = [
  { id: 'B1', time: '2026-03-02T08:00:00Z', amount: 1000 },
  { id: 'B2', time: '2026-03-04T12:00:00Z', amount: -88 },
];
const metricsOf = (from: string | null = null, to: string | null = null) =>
  performanceMetrics({ trades, balanceOperations, samples: [], from, to, zone: 'UTC', dataCollectorEnabled: false });

describe('performance metrics on a hand-computed trade list', () => {
  const m = metricsOf();

  it('counts wins, losses and break-evens; win rate 2 of 5', () => {
    expect(m).to.deep.include({ totalTrades: 5, winningTrades: 2, losingTrades: 2, breakevenTrades: 1, winRate: 40 });
  });

  it('sums gross profit 193, gross loss -126, net 67; profit factor 193 / 126', () => {
    expect(m).to.deep.include({ grossProfit: 193, grossLoss: -126, netProfit: 67, profitFactor: 1.5317, avgWin: 96.5, avgLoss: -63 });
  });

  it('averages lots, commission and swap over all five trades', () => {
    expect(m).to.deep.include({ avgLotSize: 0.15, maxLotSize: 0.3, avgCommissionPerTrade: -1.8, avgSwapPerTrade: -0.8, totalSwap: -4, totalCommission: -9 });
  });

  it('finds the 10.02 % drawdown recovered after 29.5 hours and the open 2.1 % one; a withdrawal is no drawdown', () => {
    expect(m).to.deep.include({ maxDrawdown: 10.02, avgDrawdown: 6.06, avgRecoveryTimeHours: 29.5, maxRecoveryTimeHours: 29.5 });
    // Below the peak from Mon 12:00 to Tue 15:00 (27 h) of the 80 h from the deposit to the last trade.
    expect(m.timeInDrawdownPercent).to.equal(33.75);
  });

  it('counts trades per day and balance transactions per day', () => {
    expect(m.tradesPerDay).to.deep.equal({ '2026-03-02': 2, '2026-03-03': 1, '2026-03-04': 1, '2026-03-05': 1 });
    expect(m.dailyBalanceTransactions).to.deep.equal({ '2026-03-02': 1000, '2026-03-04': -88 });
  });

  it('names the best and worst day, week and month', () => {
    expect(m.bestDay).to.deep.equal({ label: '2026-03-03', netProfit: 145 });
    expect(m.worstDay).to.deep.equal({ label: '2026-03-02', netProfit: -57 });
    expect(m.bestWeek).to.deep.equal({ label: '2026-W10', netProfit: 67 });
    expect(m.worstMonth).to.deep.equal({ label: '2026-03', netProfit: 67 });
  });

  it('splits results by direction and by symbol', () => {
    expect(m.directionPerformance).to.deep.equal({ buyTrades: 3, sellTrades: 2, buyWinRate: 66.67, sellWinRate: 0, buyNetProfit: 172, sellNetProfit: -105 });
    expect(m.symbolAnalytics).to.deep.equal([
      { symbol: 'EURUSD', trades: 3, winRate: 66.67, netProfit: 193, avgProfitPerTrade: 64.33 },
      { symbol: 'GBPUSD', trades: 1, winRate: 0, netProfit: -105, avgProfitPerTrade: -105 },
      { symbol: 'XAUUSD', trades: 1, winRate: 0, netProfit: -21, avgProfitPerTrade: -21 },
    ]);
  });

  it('buckets trades by holding time and sorts profits by close hour and weekday', () => {
    expect(m.tradesByHoldingBucket).to.deep.equal({ '<1m': 1, '1m-15m': 0, '15m-1h': 1, '1h-4h': 1, '4h-1d': 2, '1d-1w': 0, '>1w': 0 });
    expect(m.profitPerHour).to.deep.equal({ 9: 48, 12: -105, 15: 145, 10: 0, 16: -21 });
    expect(m.profitPerWeekday).to.deep.equal({ MONDAY: -57, TUESDAY: 145, WEDNESDAY: 0, THURSDAY: -21 });
    expect(m.tradesPerWeekday).to.deep.equal({ MONDAY: 2, TUESDAY: 1, WEDNESDAY: 1, THURSDAY: 1 });
  });

  it('adds the reference totals: net 67 over 5 trades, largest win 145 and loss -105, 0.75 lots', () => {
    expect(m).to.deep.include({
      totalNetProfit: 67,
      avgNetProfitPerTrade: 13.4,
      expectancy: 13.4,
      largestWin: 145,
      largestLoss: -105,
      avgRiskReward: 1.5317,
      totalLotSize: 0.75,
      totalCommissions: -9,
    });
    expect(m.tradesPerSymbol).to.deep.equal({ EURUSD: 3, GBPUSD: 1, XAUUSD: 1 });
  });

  it('streaks run in close order and a break-even ends them; holding averages 30 min, 2 h, 6 h, 30 s and 8 h', () => {
    expect(m).to.deep.include({ longestWinStreak: 1, longestLossStreak: 1, avgHoldingTimeSeconds: 11_886 });
  });

  it('spans one active month from the first opening to the last close', () => {
    expect(m).to.deep.include({ firstTradeAt: '2026-03-02T09:00:00.000Z', lastTradeAt: '2026-03-05T16:00:00.000Z', monthsActive: 1 });
    expect(m.profitAmountPerMonth).to.deep.equal({ '2026-03': 67 });
    expect(m.avgProfitPerMonth).to.deep.equal({ '2026-03': 13.4 });
    // 67 over the month's starting balance 0 plus its deposit of 1,000.
    expect(m.profitPercentagePerMonth).to.deep.equal({ '2026-03': 6.7 });
  });

  it('closes every day with its balance; without samples the equity is the balance', () => {
    const days = { '2026-03-02': 943, '2026-03-03': 1088, '2026-03-04': 1000, '2026-03-05': 979 };
    expect(m.dailyBalance).to.deep.equal(days);
    expect(m.dailyEquity).to.deep.equal(days);
  });

  it('scores the reference parts and sums them over 89 points', () => {
    expect(m.scoreBreakdown).to.deep.include({
      profitFactorScore: 3.19, // 12 x (1.5317 - 1) / 2
      winRateScore: 4, // 8 x 40 / 80
      maxDrawdownScore: 9.6, // 12 x (1 - 10.019 / 50)
      recoveryFactorScore: 2.13, // 10 x (67 / 105) / 3
      riskRewardScore: 5.36, // 7 x 1.5317 / 2
      expectancyScore: 2.13, // 5 x 2 x 13.4 / 63
      totalTradesScore: 0.2,
      monthsActiveScore: 0.17,
      accountTypeScore: 0,
      diversificationScore: 4, // 3 instruments: 2; forex and metals: 2
      accountBalanceScore: 0,
      martingalePenalty: 0, // after the loss of 0.2 lots came 0.1
      overtradingPenalty: 0,
      isLiveAccount: false,
      uniqueInstruments: 3,
      uniqueAssetClasses: 2,
    });
    expect(m.scoreBreakdown.consistencyScore).to.equal(Math.round(6 * m.equityCurveSmoothness * 100) / 100);
    const { isLiveAccount, uniqueInstruments, uniqueAssetClasses, ...points } = m.scoreBreakdown;
    void [isLiveAccount, uniqueInstruments, uniqueAssetClasses];
    expect(m.score).to.equal(Math.round((100 * Object.values(points).reduce((a, b) => a + b, 0)) / 89));
  });

  it('a live account earns the account type and balance points; a prop-firm account half the type points', () => {
    const account = { accountType: { id: 2, name: 'FX terminal, current generation' }, broker: 'Demo-Server', currency: 'USD', live: true, propFirm: false };
    const live = performanceMetrics({ account, trades, balanceOperations, samples: [], from: null, to: null, zone: 'UTC', dataCollectorEnabled: false });
    expect(live).to.deep.include({ accountType: account.accountType, broker: 'Demo-Server', currency: 'USD' });
    // 7 x 979 / 10,000.
    expect(live.scoreBreakdown).to.deep.include({ isLiveAccount: true, accountTypeScore: 8, accountBalanceScore: 0.69 });
    expect(live.score).to.be.greaterThan(m.score);
    const prop = performanceMetrics({
      account: { ...account, live: false, propFirm: true },
      trades,
      balanceOperations,
      samples: [],
      from: null,
      to: null,
      zone: 'UTC',
      dataCollectorEnabled: false,
    });
    expect(prop.scoreBreakdown).to.deep.include({ isLiveAccount: false, accountTypeScore: 4, accountBalanceScore: 0 });
    expect(m).not.to.have.any.keys('accountType', 'broker', 'currency');
  });

  it('without samples, the collector members are empty and advanced analytics unavailable', () => {
    expect(m).to.deep.include({ advancedAnalyticsAvailable: false, dataCollectorSamples: 0, currentEquityDrawdown: null, maxCollectorDrawdown: null });
  });
});

describe('performance metrics: date filters', () => {
  it('takes trades closed within the range, starting from the balance at its start', () => {
    const m = metricsOf('2026-03-03T00:00:00.000Z', '2026-03-04T23:59:59.999Z');
    expect(m).to.deep.include({ totalTrades: 2, netProfit: 145, maxDrawdown: 0, avgRecoveryTimeHours: null });
    expect(m.dailyBalanceTransactions).to.deep.equal({ '2026-03-04': -88 });
    expect(m.dailyBalance).to.deep.equal({ '2026-03-03': 1088, '2026-03-04': 1000 });
    // 145 over the 943 the range starts from.
    expect(m.profitPercentagePerMonth).to.deep.equal({ '2026-03': 15.38 });
  });

  it('an empty range has no trades and scores 0', () => {
    const m = metricsOf('2027-01-01T00:00:00.000Z', null);
    expect(m).to.deep.include({ totalTrades: 0, score: 0, winRate: 0, netProfit: 0, monthsActive: 0, largestWin: 0, largestLoss: 0, bestDay: null });
    // The reference's numbers and times have no null: without a loss or a trade they are left out.
    expect(m).not.to.have.any.keys('profitFactor', 'firstTradeAt', 'lastTradeAt');
    expect(m.dailyBalance).to.deep.equal({});
    expect(Object.values(m.scoreBreakdown).filter((v) => v !== 0 && v !== false)).to.deep.equal([]);
  });
});

describe('performance metrics: data-collector samples', () => {
  const samples = [
    { time: '2026-03-02T08:00:00Z', balance: 1000, equity: 1000, floating: 0 },
    { time: '2026-03-02T09:00:00Z', balance: 1000, equity: 1040, floating: 40 },
    { time: '2026-03-02T11:00:00Z', balance: 1048, equity: 962, floating: -86 },
    { time: '2026-03-03T10:00:00Z', balance: 943, equity: 1000, floating: 57 },
  ];
  const m = performanceMetrics({ trades, balanceOperations, samples, from: null, to: null, zone: 'UTC', dataCollectorEnabled: true });

  it('measures the equity drawdown from the samples: peak 1,040 to 962 is 7.5 %', () => {
    expect(m).to.deep.include({ maxCollectorDrawdown: 7.5, intradayMaxDrawdown: 7.5, currentEquityDrawdown: 3.85 });
    expect(m.equityDrawdownPerDay).to.deep.equal({ '2026-03-02': 7.5, '2026-03-03': 0 });
  });

  it('reports the floating P&L extremes and per day', () => {
    expect(m).to.deep.include({ maxFloatingLoss: -86, maxFloatingProfit: 57, peakFloatingPnl: 40, troughFloatingPnl: -86, currentFloatingPnl: 57 });
    expect(m.floatingPnlPerDay).to.deep.equal({ '2026-03-02': -86, '2026-03-03': 57 });
    expect(m.balanceEquityDivergencePerDay).to.deep.equal({ '2026-03-02': 86, '2026-03-03': 57 });
  });

  it('says the samples are there', () => {
    expect(m).to.deep.include({
      advancedAnalyticsAvailable: true,
      dataCollectorEnabled: true,
      dataCollectorSamples: 4,
      dataCollectorHistoryStartAt: '2026-03-02T08:00:00Z',
      dataCollectorHistoryEndAt: '2026-03-03T10:00:00Z',
    });
  });
});

describe('performance metrics: deposits and withdrawals during a drawdown', () => {
  const at = (day: number, hour: number) => `2026-03-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;
  const t = (id: string, close: string, profit: number) => trade(id, 'EURUSD', 'Buy', 0.1, close, close, profit, 0, 0);
  const of = (trades: TradeRecord[], balanceOperations: BalanceRecord[]) =>
    performanceMetrics({ trades, balanceOperations, samples: [], from: null, to: null, zone: 'UTC', dataCollectorEnabled: false });

  it('a deposit during a drawdown neither ends it nor deepens it', () => {
    // 1,000 -> 900 (10 %); deposit 500 moves the peak to 1,500; -50 -> 1,350: still 10 %.
    const m = of(
      [t('a', at(2, 10), -100), t('b', at(2, 12), -50)],
      [
        { id: 'd', time: at(2, 8), amount: 1000 },
        { id: 'e', time: at(2, 11), amount: 500 },
      ],
    );
    expect(m).to.deep.include({ maxDrawdown: 10, avgDrawdown: 10 });
  });

  it('a withdrawal alone creates no drawdown', () => {
    const m = of(
      [t('a', at(2, 12), 10)],
      [
        { id: 'd', time: at(2, 8), amount: 1000 },
        { id: 'w', time: at(2, 10), amount: -400 },
      ],
    );
    expect(m).to.deep.include({ maxDrawdown: 0, avgDrawdown: 0 });
  });
});
