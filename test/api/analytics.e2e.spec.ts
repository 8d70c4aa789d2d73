// Performance metrics, the chart and the data collector end to end (spec: "Accounts":
// performanceMetrics, dataCollector): trades at the simulated venue with pinned quotes, so every
// result is known in advance, and the metrics worked out by hand below.
//
// Day 1, Wednesday 2026-01-07 (UTC), balance 10,000 (the initial deposit):
//   1. EURUSD Buy 1 at 1.0851, closed at 1.0871: profit 200, commission -7   ->  +193   balance 10,193 (peak)
//   2. EURUSD Sell 0.5 at 1.0871, closed at 1.0891: profit -100, commission -3.5 -> -103.5 balance 10,089.5
//   3. US500 Buy 1 at 5200 (bid = ask), closed at 5200: 0, no commission     ->    0    break-even
// Day 2, Thursday 2026-01-08:
//   deposit 1,000 (balance 11,089.5; the peak shifts to 11,193)
//   4. EURUSD Buy 0.2 at 1.0891, closed at 1.0951: profit 120, commission -1.4 ->  +118.6 balance 11,208.1 (new peak)
// So: 4 trades, 2 wins, 1 loss, 1 break-even; gross profit 311.6, gross loss -103.5, net 208.1;
// one drawdown episode of 103.5 / 10,193 = 1.0154 %, recovered a day after its peak.
import { expect } from 'chai';
import { sql } from 'kysely';
import { simulatedLogin } from '../../engine/venues/host.js';
import { allProjections } from '../../projections/all.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { rebuildProjection } from '../../projections/rebuild.js';
import { referenceErrors, referenceRequestValidator, referenceResponseValidator } from '../support/reference.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually, dataCollectorBody, movableClock, pinQuotes, positionRequest, positionsOf, startedAccount } from '../support/trading.js';

const DAY = 24 * 3_600_000;

describe('Performance metrics, chart and data collector end to end', function () {
  this.timeout(60_000);
  const clock = movableClock();
  let t: TestService;
  let account: string;
  let login: string;
  let live: Record<string, unknown>;

  const metrics = async (query = '') => {
    const res = await t.call('GET', `/accounts/${account}/performanceMetrics${query}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies freely
    return res.body as Record<string, any>;
  };
  const open = async (body: Record<string, unknown>): Promise<string> => {
    const res = await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest(body) });
    expect(res.status, JSON.stringify(res.body)).to.equal(204);
    return res.headers.get('x-position-id')!;
  };
  const close = async (id: string, trades: number) => {
    expect((await t.call('DELETE', `/accounts/${account}/positions/${id}`)).status).to.equal(204);
    expect(await positionsOf(t, account)).to.deep.equal([]);
    await eventually(async () => ((await metrics()).totalTrades === trades ? true : undefined), 5000, `trade ${trades} in the history`);
  };

  before(async () => {
    t = await startTestService({ clock });
    account = await startedAccount(t, 'analytics');
    login = simulatedLogin((await t.call('GET', `/accounts/${account}`)).body);

    await pinQuotes(t, { EURUSD: [1.085, 1.0851], US500: [5200, 5200] });
    const first = await open({
      symbol: 'EURUSD',
      orderType: 'Buy',
      volume: 1,
      stopLoss: 1.08,
      takeProfit: 1.1,
      comment: 'first',
      magicNumber: '7',
      requestId: 5,
    });
    await pinQuotes(t, { EURUSD: [1.0871, 1.0872] });
    await close(first, 1);
    const second = await open({ symbol: 'EURUSD', orderType: 'Sell', volume: 0.5 });
    await pinQuotes(t, { EURUSD: [1.089, 1.0891] });
    await close(second, 2);
    await close(await open({ symbol: 'US500', orderType: 'Buy', volume: 1 }), 3);

    clock.advance(DAY);
    await t.service.services.venues.desk((venue) => venue.deposit(login, 1000, 'top up'));
    await eventually(async () => ((await metrics()).deposits === 11_000 ? true : undefined), 5000, 'the deposit in the history');
    const fourth = await open({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.2 });
    await pinQuotes(t, { EURUSD: [1.0951, 1.0952] });
    await close(fourth, 4);
  });
  after(() => t?.stop());

  it('computes the hand-worked figures from the trades at the venue', async () => {
    const m = await metrics();
    live = m;
    expect(m).to.deep.include({
      totalTrades: 4,
      winningTrades: 2,
      losingTrades: 1,
      breakevenTrades: 1,
      winRate: 50,
      grossProfit: 311.6,
      grossLoss: -103.5,
      netProfit: 208.1,
      profitFactor: 3.0106,
      avgWin: 155.8,
      avgLoss: -103.5,
      maxLotSize: 1,
      avgLotSize: 0.675,
      totalCommission: -11.9,
      avgCommissionPerTrade: -2.98,
      totalSwap: 0,
      deposits: 11_000,
      withdrawals: 0,
      maxDrawdown: 1.02,
      avgDrawdown: 1.02,
    });
    // The episode ran from the first close (day 1) to the fourth (day 2): a day and the seconds the spec took.
    expect(m.maxRecoveryTimeHours).to.be.closeTo(24, 0.1);
    expect(m.avgRecoveryTimeHours).to.equal(m.maxRecoveryTimeHours);
    expect(m.tradesPerDay).to.deep.equal({ '2026-01-07': 3, '2026-01-08': 1 });
    expect(m.dailyBalanceTransactions).to.deep.equal({ '2026-01-07': 10_000, '2026-01-08': 1000 });
    expect(m.tradesPerWeekday).to.deep.equal({ WEDNESDAY: 3, THURSDAY: 1 });
    expect(m.profitPerWeekday).to.deep.equal({ WEDNESDAY: 89.5, THURSDAY: 118.6 });
    expect(m.bestDay).to.deep.equal({ label: '2026-01-08', netProfit: 118.6 });
    expect(m.worstDay).to.deep.equal({ label: '2026-01-07', netProfit: 89.5 });
    expect(m.bestMonth).to.deep.equal({ label: '2026-01', netProfit: 208.1 });
    expect(m.directionPerformance).to.deep.equal({
      buyTrades: 3,
      sellTrades: 1,
      buyWinRate: 66.67,
      sellWinRate: 0,
      buyNetProfit: 311.6,
      sellNetProfit: -103.5,
    });
    expect(m.symbolAnalytics).to.deep.equal([
      { symbol: 'EURUSD', trades: 3, winRate: 66.67, netProfit: 208.1, avgProfitPerTrade: 69.37 },
      { symbol: 'US500', trades: 1, winRate: 0, netProfit: 0, avgProfitPerTrade: 0 },
    ]);
    expect(m.tradesByHoldingBucket['<1m']).to.equal(4);
    // The reference's members (PerformanceMetricsDTO).
    expect(m).to.deep.include({
      accountType: { id: 1, name: 'FX terminal, classic' },
      broker: 'Sim-Demo',
      currency: 'USD',
      totalNetProfit: 208.1,
      avgNetProfitPerTrade: 52.03,
      expectancy: 52.03,
      largestWin: 193,
      largestLoss: -103.5,
      avgRiskReward: 1.5053,
      longestWinStreak: 1,
      longestLossStreak: 1,
      totalLotSize: 2.7,
      totalCommissions: -11.9,
      monthsActive: 1,
    });
    expect(m.tradesPerSymbol).to.deep.equal({ EURUSD: 3, US500: 1 });
    expect(m.profitAmountPerMonth).to.deep.equal({ '2026-01': 208.1 });
    expect(m.avgProfitPerMonth).to.deep.equal({ '2026-01': 52.03 });
    // 208.1 over the month's deposits (10,000 + 1,000).
    expect(m.profitPercentagePerMonth).to.deep.equal({ '2026-01': 1.89 });
    expect(m.dailyBalance).to.deep.equal({ '2026-01-07': 10_089.5, '2026-01-08': 11_208.1 });
    expect(m.dailyEquity).to.deep.equal(m.dailyBalance);
    expect(Date.parse(m.firstTradeAt)).to.be.below(Date.parse(m.lastTradeAt));
    expect(m.avgHoldingTimeSeconds).to.be.a('number').and.below(60);
    // The score (domain/analytics/score.ts) from the parts the reference names, over 89 points.
    const b = m.scoreBreakdown;
    expect(b).to.deep.include({
      profitFactorScore: 12, // profit factor 3.01: 3 or more earns all 12
      winRateScore: 5, // 8 x 50 / 80
      maxDrawdownScore: 11.76, // 12 x (1 - 1.0154 / 50)
      recoveryFactorScore: 6.7, // 10 x (208.1 / 103.5) / 3
      riskRewardScore: 5.27, // 7 x (155.8 / 103.5) / 2
      expectancyScore: 5, // 2 x 52.03 / 103.5 is above 1
      totalTradesScore: 0.16,
      monthsActiveScore: 0.17,
      accountTypeScore: 0, // the simulated venue's accounts are demo accounts
      accountBalanceScore: 0,
      diversificationScore: 3, // 2 instruments: 1; forex and indices: 2
      martingalePenalty: -6, // after the loss on 0.5 lots came a trade of 1 lot
      overtradingPenalty: 0,
      isLiveAccount: false,
      uniqueInstruments: 2,
      uniqueAssetClasses: 2,
    });
    const { isLiveAccount, uniqueInstruments, uniqueAssetClasses, ...points } = b as Record<string, number>;
    void [isLiveAccount, uniqueInstruments, uniqueAssetClasses];
    expect(m.score).to.equal(Math.round((100 * Object.values(points).reduce((x, y) => x + y, 0)) / 89));
    // Without the data collector the equity members stay empty.
    expect(m).to.deep.include({ dataCollectorEnabled: false, advancedAnalyticsAvailable: false, dataCollectorSamples: 0, currentEquityDrawdown: null });
  });

  it('agrees with account information', async () => {
    const info = (await t.call('GET', `/accounts/${account}/information`)).body;
    expect(info).to.deep.include({
      profitToday: 118.6,
      profitThisWeek: 208.1,
      profitThisMonth: 208.1,
      maxDrawdown: 1.02,
      avgDrawdown: 1.02,
      balance: 11_208.1,
    });
  });

  it('filters by startDate and endDate (whole days in the service time zone)', async () => {
    const day1 = await metrics('?endDate=2026-01-07');
    expect(day1).to.deep.include({ totalTrades: 3, netProfit: 89.5, deposits: 10_000, maxDrawdown: 1.02 });
    expect(day1.maxRecoveryTimeHours).to.equal(null);
    const day2 = await metrics('?startDate=2026-01-08');
    // The range starts at 10,089.5 (everything before it): no drawdown within day 2.
    expect(day2).to.deep.include({ totalTrades: 1, netProfit: 118.6, deposits: 1000, maxDrawdown: 0 });
    expect(day2.tradesPerDay).to.deep.equal({ '2026-01-08': 1 });
    const both = await metrics('?startDate=2026-01-07T00:00:00Z&endDate=2026-01-08T23:59:59Z');
    expect(both).to.deep.include({ totalTrades: 4, netProfit: 208.1 });
    expect(await metrics('?startDate=2026-02-01')).to.deep.include({ totalTrades: 0, netProfit: 0, score: 0, bestDay: null });

    for (const query of ['?startDate=2026-01-09&endDate=2026-01-08', '?startDate=yesterday', '?endDate=2026-13-01', '?other=1']) {
      const res = await t.call('GET', `/accounts/${account}/performanceMetrics${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.error, query).to.equal('[VALIDATION_FAILED]');
    }
  });

  it('draws the equity and drawdown chart as SVG', async () => {
    const res = await t.call('GET', `/accounts/${account}/performanceMetrics/chart.svg`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
    expect(res.body).to.match(/^<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(res.body).to.contain('4 trades, net 208.10');
    expect(res.body).to.match(/<path[^>]+d="M/);
    const missing = await t.call('GET', '/accounts/00000000-0000-4000-8000-000000000001/performanceMetrics/chart.svg');
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.be.a('string');
  });

  it('reports the performance of accounts and of a project as the reference asks (POST /reports/performance)', async () => {
    const report = async (body: Record<string, unknown>) => {
      // The reference's own request schema: a client generated from it sends exactly this.
      const validRequest = referenceRequestValidator('POST', '/reports/performance');
      expect(validRequest(body), referenceErrors(validRequest)).to.equal(true);
      const res = await t.call('POST', '/reports/performance', { body });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read response bodies freely
      return res.body as { accounts: Record<string, any>[] };
    };
    const both = await report({ id: [account], idType: 'ACCOUNT', start: '2026-01-07T00:00:00Z', stop: '2026-01-08T23:59:59Z' });
    expect(both.accounts).to.have.length(1);
    const [a] = both.accounts;
    expect(a).to.deep.include({
      accountId: account,
      date: '2026-01-08T23:59:59.000Z',
      balance: 11_208.1,
      equity: 11_208.1,
      currentDrawdown: 0,
      currency: 'USD',
      deleted: false,
      netProfits: { 2026: { 1: 208.1 } },
    });
    expect(a!.history.map((p: { symbol: string; profit: number }) => [p.symbol, p.profit])).to.deep.equal([
      ['EURUSD', 200],
      ['EURUSD', -100],
      ['US500', 0],
      ['EURUSD', 120],
    ]);
    expect(a!.history[0]).to.deep.include({ orderType: 'Buy', volume: 1, openPrice: 1.0851, closePrice: 1.0871, commission: -7 });
    // The history read model keeps what the position had when it closed, as the broker's history answers it.
    expect(a!.history[0]).to.deep.include({
      stopLoss: 1.08,
      takeProfit: 1.1,
      comment: 'API|5|first',
      magicNumber: '7',
      requestId: '5',
      placedType: 'ByExpert',
    });
    expect(a!.history[1]).to.deep.include({ stopLoss: 0, takeProfit: 0, magicNumber: '0' });

    // At the end of day 1 the balance stood 103.5 below its peak of 10,193.
    const day1 = await report({ id: [account, account], idType: 'ACCOUNT', start: '2026-01-07T00:00:00Z', stop: '2026-01-07T23:59:59Z' });
    expect(day1.accounts).to.have.length(1);
    expect(day1.accounts[0]).to.deep.include({ balance: 10_089.5, equity: 10_089.5, currentDrawdown: 1.02, netProfits: { 2026: { 1: 89.5 } } });
    expect(day1.accounts[0]!.history).to.have.length(3);

    // A period without trades: the whole answer is the reference's ReportPerformanceDTO.
    const quiet = await report({ id: [DEFAULT_PROJECT_ID], idType: 'PROJECT', start: '2026-02-01T00:00:00Z', stop: '2026-02-28T23:59:59Z' });
    const mine = quiet.accounts.find((x) => x.accountId === account)!;
    expect(mine).to.deep.include({ balance: 11_208.1, currentDrawdown: 0, history: [], netProfits: {} });
    const validAnswer = referenceResponseValidator('POST', '/reports/performance', 200);
    expect(validAnswer(quiet), referenceErrors(validAnswer)).to.equal(true);

    const refused = [
      [{ id: [account], idType: 'ACCOUNT', start: '2026-01-09T00:00:00Z', stop: '2026-01-08T00:00:00Z' }, 400, '[VALIDATION_FAILED]'],
      [{ id: [account], idType: 'WALLET', start: '2026-01-07T00:00:00Z', stop: '2026-01-08T00:00:00Z' }, 400, '[VALIDATION_FAILED]'],
      [{ id: [account], idType: 'ACCOUNT', start: '2026-01-07T00:00:00Z' }, 400, '[VALIDATION_FAILED]'],
      [
        { id: ['00000000-0000-4000-8000-0000000000ff'], idType: 'ACCOUNT', start: '2026-01-07T00:00:00Z', stop: '2026-01-08T00:00:00Z' },
        404,
        '[ACCOUNT_NOT_FOUND]',
      ],
      [
        { id: ['00000000-0000-4000-8000-0000000000ff'], idType: 'PROJECT', start: '2026-01-07T00:00:00Z', stop: '2026-01-08T00:00:00Z' },
        404,
        '[PROJECT_NOT_FOUND]',
      ],
      [
        { id: ['00000000-0000-4000-8000-0000000000ff'], idType: 'FEATURE', start: '2026-01-07T00:00:00Z', stop: '2026-01-08T00:00:00Z' },
        404,
        '[FEATURE_NOT_FOUND]',
      ],
    ] as const;
    for (const [body, status, error] of refused) {
      const res = await t.call('POST', '/reports/performance', { body });
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.body.error, JSON.stringify(body)).to.equal(error);
    }
  });

  it('samples equity while the data collector is on, and serves them with the limit rules', async () => {
    // The position first, so every sample sees it.
    await pinQuotes(t, { EURUSD: [1.0951, 1.0952] });
    await open({ symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
    const added = await t.call('POST', `/accounts/${account}/features`, {
      body: dataCollectorBody({ collectionIntervalSeconds: 10 }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    // A report by feature covers the account the feature is attached to.
    const byFeature = await t.call('POST', '/reports/performance', {
      body: { id: [added.body.id ?? added.body.featureId], idType: 'FEATURE', start: '2026-01-07T00:00:00Z', stop: '2026-01-08T23:59:59Z' },
    });
    expect(byFeature.status, JSON.stringify(byFeature.body)).to.equal(200);
    expect(byFeature.body.accounts.map((x: { accountId: string }) => x.accountId)).to.deep.equal([account]);
    const samples = async (query = '') => {
      const res = await t.call('GET', `/accounts/${account}/dataCollector${query}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as { id: string; accountId: string; timestamp: number; balance: number; equity: number; floatingPnL: number; margin: number }[];
    };
    // The spec's clock also moves in real time: advancing it a fixed 10 s after a sample skipped a whole
    // interval whenever real time had crossed an interval boundary meanwhile (a full run saw samples
    // 20 s apart), and so did moving it past the boundary after the clock's own: when real time had
    // just crossed one, the jump went past the next before the collector sampled the first. Moving it
    // just past the boundary after the LATEST SAMPLE (never backwards) makes each sample the next interval's.
    // A sample equal to the previous record is not stored (the reference: "only saved when values have
    // changed"), so the spec changes the price before it moves the clock to the next interval.
    const sampled = async (n: number) =>
      eventually(
        async () => {
          const all = await samples('?limit=-1');
          return all.length >= n ? all : undefined;
        },
        5000,
        `sample ${n}`,
      );
    const nextInterval = async () => {
      const got = await samples('?limit=-1');
      const now = clock().getTime();
      // Just past the boundary after the latest sample, or after the clock when it is there already.
      const next = Math.max(Math.max(...got.map((s) => s.timestamp)) + 10_000, Math.ceil((now + 1) / 10_000) * 10_000) + 100;
      clock.advance(Math.max(0, next - now));
    };
    await sampled(1);
    // The price falls 5 pips, then 10: floating -60, then -110, equity 100 below its peak.
    await pinQuotes(t, { EURUSD: [1.0946, 1.0947] });
    await nextInterval();
    await sampled(2);
    await pinQuotes(t, { EURUSD: [1.0941, 1.0942] });
    await nextInterval();
    await sampled(3);
    // The same figures an interval later: nothing more is stored.
    await nextInterval();
    await new Promise((r) => setTimeout(r, 2500));
    const all = await samples('?limit=-1');
    expect(all).to.have.length(3);
    // Commission 7 is paid; the floating loss is the spread on 1 lot.
    expect(all[0]).to.deep.include({ accountId: account, balance: 11_201.1, equity: 11_191.1, floatingPnL: -10 });
    expect(all[1]).to.deep.include({ balance: 11_201.1, equity: 11_141.1, floatingPnL: -60 });
    expect(all[2]).to.deep.include({ balance: 11_201.1, equity: 11_091.1, floatingPnL: -110 });
    expect(all.map((s) => s.timestamp)).to.deep.equal([...all.map((s) => s.timestamp)].sort((a, b) => a - b));
    expect(new Set(all.map((s) => s.timestamp)).size).to.equal(all.length);
    expect(new Set(all.map((s) => s.id)).size).to.equal(all.length);
    expect(all[1]!.timestamp - all[0]!.timestamp).to.equal(10_000);
    const iso = (s: { timestamp: number }) => new Date(s.timestamp).toISOString();

    expect(await samples('?limit=2')).to.deep.equal(all.slice(-2));
    expect(await samples()).to.deep.equal(all);
    expect(await samples(`?startTime=${iso(all[1]!)}&endTime=${iso(all[2]!)}`)).to.deep.equal(all.slice(1, 3));
    expect(await samples(`?startTime=${iso(all[1]!)}&limit=1`)).to.deep.equal(all.slice(-1));
    for (const query of ['?limit=0', '?limit=-2', '?limit=1.5', '?limit=ten', '?startTime=soon', `?startTime=${iso(all[2]!)}&endTime=${iso(all[1]!)}`]) {
      const res = await t.call('GET', `/accounts/${account}/dataCollector${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.error, query).to.equal('[VALIDATION_FAILED]');
    }

    const m = await metrics();
    expect(m).to.deep.include({
      dataCollectorEnabled: true,
      advancedAnalyticsAvailable: true,
      currentFloatingPnl: -110,
      maxFloatingLoss: -110,
      maxFloatingProfit: 0,
      peakFloatingPnl: -10,
      troughFloatingPnl: -110,
      maxCollectorDrawdown: 0.89,
      currentEquityDrawdown: 0.89,
      intradayMaxDrawdown: 0.89,
    });
    expect(m.dataCollectorSamples).to.equal((await samples('?limit=-1')).length);
    expect(m.dataCollectorHistoryStartAt).to.equal(iso(all[0]!));
    // The end-of-day equity is now the last sample's.
    expect(Object.values(m.dailyEquity).at(-1)).to.equal(all.at(-1)!.equity);

    // normalizeValues scales the answers so the oldest record's balance is 100,000; recordEquity false
    // leaves equity out of the records taken meanwhile; retentionDays is read-only (90).
    const featureId = (added.body.id ?? added.body.featureId) as string;
    const put = await t.call('PUT', `/accounts/${account}/features/${featureId}`, {
      body: dataCollectorBody({ collectionIntervalSeconds: 10, normalizeValues: true, recordEquity: false, retentionDays: 5 }),
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    expect(put.body.setting).to.deep.include({ normalizeValues: true, recordEquity: false, retentionDays: 90 });
    const factor = 100_000 / 11_201.1;
    const cents = (x: number) => Math.round(x * factor * 100) / 100;
    const normalizedAll = await samples('?limit=-1');
    expect(normalizedAll[0]).to.deep.include({
      id: all[0]!.id,
      balance: 100_000,
      equity: cents(11_191.1),
      floatingPnL: cents(-10),
      margin: cents(all[0]!.margin),
    });
    expect(await samples(`?startTime=${iso(all[1]!)}&limit=1`), "the factor is the oldest record's, whatever the range").to.deep.equal(normalizedAll.slice(-1));
    const count = normalizedAll.length;
    await nextInterval();
    await sampled(count + 1);
    const taken = (await samples('?limit=1'))[0]!;
    expect(taken).not.to.have.property('equity');
    expect(taken).to.deep.include({ balance: 100_000, floatingPnL: cents(-110) });
  });

  it('rebuilds the history and data collector read models from the events, with the same metrics', async () => {
    const { db, store } = t.service.services;
    const tables = ['closed_trades', 'balance_operations', 'data_collector_samples'] as const;
    const snapshot = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of tables) out[table] = (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} ORDER BY 1, 2`.execute(db)).rows;
      return out;
    };
    // Sampling stops with the feature; the samples stay.
    const [collector] = (await t.call('GET', `/accounts/${account}/features`)).body as { featureId: string }[];
    expect((await t.call('DELETE', `/accounts/${account}/features/${collector!.featureId}`)).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 1500));
    const before = await eventually(
      async () => {
        const a = await snapshot();
        await new Promise((r) => setTimeout(r, 300));
        return JSON.stringify(await snapshot()) === JSON.stringify(a) ? a : undefined;
      },
      5000,
      'the read models at rest',
    );
    const metricsBefore = await metrics();
    expect(before.closed_trades!.length).to.equal(4);
    expect(before.data_collector_samples!.length).to.be.at.least(4);
    for (const name of ['history', 'data_collector'])
      await rebuildProjection(
        db,
        store,
        allProjections.find((p) => p.name === name)!,
      );
    expect(await snapshot()).to.deep.equal(before);
    expect(await metrics()).to.deep.equal(metricsBefore);
    expect(live.netProfit).to.equal(metricsBefore.netProfit);
  });
});
