// The score the marketplace read model answers (domain/analytics/metrics.ts keptScoreFacts kept as JSON,
// then scoreOfKept) against the score performanceMetrics computes from the same history: equal, for
// seeded random histories (trades out of order, partial closes, break-evens, martingale steps, deposits
// and withdrawals, with and without samples), live, demo and prop-firm accounts, in zones with whole,
// half-hour and 45-minute offsets and daylight saving.
import { expect } from 'chai';
import { keptScoreFacts, performanceMetrics, scoreOfKept, tradingDaysOf } from '../../../domain/analytics/metrics.js';
import type { MetricsInput, TradeRecord } from '../../../domain/analytics/metricsTypes.js';

/** mulberry32: the same histories on every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};

const SYMBOLS = ['EURUSD', 'GBPUSD', 'XAUUSD', 'BTCUSD', 'US30', 'USOIL', 'ACME'];
const START = Date.parse('2025-01-01T00:00:00Z');
const DAY = 86_400_000;

const historyOf = (seed: number): Omit<MetricsInput, 'zone' | 'account'> => {
  const next = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const trades: TradeRecord[] = [];
  const count = Math.floor(next() * 120);
  for (let i = 0; i < count; i += 1) {
    const open = START + Math.floor(next() * 400 * DAY);
    const close = open + Math.floor(next() * 3 * DAY * next());
    const profit = next() < 0.1 ? 0 : Math.round((next() - 0.45) * 20_000) / 100;
    trades.push({
      id: `t${String(i).padStart(4, '0')}`,
      positionId: `p${i}`,
      symbol: pick(SYMBOLS),
      side: next() < 0.5 ? 'Buy' : 'Sell',
      volume: pick([0.01, 0.1, 0.2, 0.5, 1]),
      openTime: new Date(open).toISOString(),
      closeTime: new Date(close).toISOString(),
      profit,
      swap: profit === 0 ? 0 : -Math.round(next() * 300) / 100,
      commission: profit === 0 ? 0 : -Math.round(next() * 200) / 100,
    });
  }
  const balanceOperations = [{ id: 'deposit', time: new Date(START - DAY).toISOString(), amount: Math.round(next() * 20_000) }];
  for (let i = 0; i < Math.floor(next() * 6); i += 1) {
    balanceOperations.push({ id: `b${i}`, time: new Date(START + Math.floor(next() * 400 * DAY)).toISOString(), amount: Math.round((next() - 0.4) * 5000) });
  }
  const sampleCount = pick([0, 1, 2, 50]);
  const samples = Array.from({ length: sampleCount }, (_, i) => ({
    time: new Date(START + i * 6 * 3_600_000).toISOString(),
    balance: 10_000,
    equity: 10_000 + Math.round((next() - 0.5) * 100_000) / 100,
    floating: 0,
  }));
  return { trades, balanceOperations, samples, from: null, to: null, dataCollectorEnabled: sampleCount > 0 };
};

/** A history of one winning trade per close time. */
const historyClosing = (closeTimes: readonly string[]): Omit<MetricsInput, 'zone' | 'account'> => {
  const at = (closeTime: string): TradeRecord => ({
    id: closeTime,
    positionId: closeTime,
    symbol: 'EURUSD',
    side: 'Buy',
    volume: 0.1,
    openTime: new Date(Date.parse(closeTime) - 3_600_000).toISOString(),
    closeTime,
    profit: 10,
    swap: 0,
    commission: 0,
  });
  return { trades: closeTimes.map(at), balanceOperations: [], samples: [], from: null, to: null, dataCollectorEnabled: false };
};

const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'Australia/Lord_Howe', 'Pacific/Kiritimati'];
const ACCOUNTS = [
  { live: false, propFirm: false },
  { live: true, propFirm: false },
  { live: false, propFirm: true },
];

describe("marketplace score: kept facts give performanceMetrics' score", () => {
  it('for 24 seeded histories in six zones, of three kinds of account', function () {
    // performanceMetrics computes every figure: a few seconds in all on a loaded machine.
    this.timeout(180_000);
    let compared = 0;
    for (let seed = 1; seed <= 24; seed += 1) {
      const history = historyOf(seed);
      // The read model keeps the facts as JSON (jsonb) and reads them back.
      const kept = JSON.parse(JSON.stringify(keptScoreFacts({ ...history, zone: 'UTC' })));
      const facts = ACCOUNTS[seed % ACCOUNTS.length]!;
      const account = { accountType: { id: 1, name: 'MT5' }, broker: 'Demo', currency: 'USD', ...facts };
      for (const zone of ZONES) {
        const old = performanceMetrics({ ...history, zone, account });
        const { score, scoreBreakdown } = scoreOfKept(kept, facts, zone);
        expect({ score, scoreBreakdown }, `seed ${seed} in ${zone}`).to.deep.equal({ score: old.score, scoreBreakdown: old.scoreBreakdown });
        if (old.totalTrades > 0) compared += 1;
      }
    }
    expect(compared).to.be.greaterThan(20 * ZONES.length);
  });

  it('counts the trading days of the zone, not of UTC, from the kept closes', () => {
    // Two closes 6 hours apart: one UTC day, two days in New York, one in Kolkata.
    const history = historyClosing(['2025-03-04T01:00:00Z', '2025-03-04T07:00:00Z']);
    const kept = keptScoreFacts({ ...history, zone: 'UTC' });
    for (const [zone, days] of [
      ['UTC', 1],
      ['America/New_York', 2],
      ['Asia/Kolkata', 1],
    ] as const) {
      const old = performanceMetrics({ ...history, zone });
      expect(Object.keys(old.tradesPerDay), zone).to.have.length(days);
      expect(scoreOfKept(kept, { live: false, propFirm: false }, zone), zone).to.deep.equal({ score: old.score, scoreBreakdown: old.scoreBreakdown });
    }
  });

  it('counts a day met only between two closes of the hour repeated when the clocks turn back across midnight', () => {
    // St. John's turned its clocks back at 00:01 on 7 November 2010, to 23:01 on the 6th (02:31 UTC):
    // 23:30 on the 6th, 00:00:30 on the 7th, then 23:15 on the 6th again. Two days, though the first and
    // the last close of the UTC half-day both fall on the 6th (the kept facts used to count one).
    const history = historyClosing(['2010-11-07T02:00:00Z', '2010-11-07T02:30:30Z', '2010-11-07T02:45:00Z']);
    const kept = JSON.parse(JSON.stringify(keptScoreFacts({ ...history, zone: 'UTC' })));
    const zone = 'America/St_Johns';
    const old = performanceMetrics({ ...history, zone });
    expect(Object.keys(old.tradesPerDay)).to.deep.equal(['2010-11-06', '2010-11-07']);
    expect(tradingDaysOf(kept.closeMinutes, zone)).to.equal(2);
    expect(tradingDaysOf(kept.closeMinutes, 'UTC')).to.equal(1);
    expect(scoreOfKept(kept, { live: false, propFirm: false }, zone)).to.deep.equal({ score: old.score, scoreBreakdown: old.scoreBreakdown });
    // Without the close after midnight, one day: the repeated hour alone is the 6th.
    const without = historyClosing(['2010-11-07T02:00:00Z', '2010-11-07T02:45:00Z']);
    expect(tradingDaysOf(keptScoreFacts({ ...without, zone: 'UTC' }).closeMinutes, zone)).to.equal(1);
    expect(Object.keys(performanceMetrics({ ...without, zone }).tradesPerDay)).to.have.length(1);
  });
});
