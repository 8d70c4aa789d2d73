// The performance report of one account (domain/analytics/report.ts) on the metrics fixture:
//   Mon 2026-03-02 deposit 1,000; T1 +48 (1,048, peak); T2 -105 (943)
//   Tue T3 +145 (1,088, new peak); Wed T4 0, withdrawal 88 (1,000; the peak moves to 1,000)
//   Thu T5 -21 (979)
import { expect } from 'chai';
import type { BalanceRecord, TradeRecord } from '../../../domain/analytics/metrics.js';
import { accountPerformance } from '../../../domain/analytics/report.js';

const trade = (id: string, closeTime: string, profit: number, commission = 0): TradeRecord => ({
  id,
  positionId: id,
  symbol: 'EURUSD',
  side: 'Buy',
  volume: 0.1,
  openTime: closeTime,
  closeTime,
  profit,
  swap: 0,
  commission,
});
const trades = [
  trade('T1', '2026-03-02T09:30:00Z', 50, -2),
  trade('T2', '2026-03-02T12:00:00Z', -105),
  trade('T3', '2026-03-03T15:00:00Z', 145),
  trade('T4', '2026-03-04T10:00:30Z', 0),
  trade('T5', '2026-03-05T16:00:00Z', -21),
  trade('T6', '2026-04-01T10:00:00Z', 10),
];
const balanceOperations: BalanceRecord[] = [
  { id: 'B1', time: '2026-03-02T08:00:00Z', amount: 1000 },
  { id: 'B2', time: '2026-03-04T12:00:00Z', amount: -88 },
];
const report = (start: string, stop: string, samples: { time: string; equity: number }[] = []) =>
  accountPerformance({ trades, balanceOperations, samples: samples.map((s) => ({ ...s, balance: 0, floating: 0 })), start, stop, zone: 'UTC' });

describe('performance report of an account', () => {
  it('stands at stop: balance 943 at the end of Monday, 10.02 % below the peak of 1,048', () => {
    expect(report('2026-03-02T00:00:00Z', '2026-03-02T23:59:59Z')).to.deep.equal({
      balance: 943,
      equity: 943,
      currentDrawdown: 10.02,
      netProfits: { 2026: { 3: -57 } },
    });
  });

  it('counts the balance from the whole history but the profits from the period only; a withdrawal moves the peak', () => {
    // Thursday: 979 below the peak of 1,000 the withdrawal left.
    expect(report('2026-03-05T00:00:00Z', '2026-03-05T23:59:59Z')).to.deep.include({ balance: 979, currentDrawdown: 2.1, netProfits: { 2026: { 3: -21 } } });
  });

  it('splits the profits by year and month (1 = January)', () => {
    expect(report('2026-03-01T00:00:00Z', '2026-04-30T23:59:59Z').netProfits).to.deep.equal({ 2026: { 3: 67, 4: 10 } });
  });

  it('takes the equity of the last sample within the period', () => {
    const samples = [
      { time: '2026-03-02T10:00:00Z', equity: 1030 },
      { time: '2026-03-02T11:00:00Z', equity: 1010 },
      { time: '2026-03-03T11:00:00Z', equity: 900 },
    ];
    expect(report('2026-03-02T00:00:00Z', '2026-03-02T23:59:59Z', samples).equity).to.equal(1010);
  });
});
