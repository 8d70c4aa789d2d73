// The performance report of one account (POST /reports/performance, AccountPerformanceDTO): where the
// account stood at the end of the period and what it earned in it, from the same history as the
// performance metrics (metrics.ts).
//
//   balance          every balance operation and trade result up to `stop`.
//   equity           the last data-collector sample in [start, stop]; without one, the balance.
//   currentDrawdown  percent below the balance's peak at `stop` (the whole history up to it;
//                    deposits and withdrawals move the peak, as in curves.ts).
//   netProfits       per year, per month (1 = January) of the close, the net result of the trades
//                    closed in [start, stop].
import { type BalanceRecord, resultOf, type SampleRecord, type TradeRecord } from './metrics.js';
import { periodLabel } from './periods.js';
import { money, pct } from './rounding.js';

export interface AccountPerformance {
  readonly balance: number;
  readonly equity: number;
  readonly currentDrawdown: number;
  readonly netProfits: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export interface ReportInput {
  readonly trades: readonly TradeRecord[];
  readonly balanceOperations: readonly BalanceRecord[];
  readonly samples: readonly SampleRecord[];
  /** ISO 8601, inclusive. */
  readonly start: string;
  readonly stop: string;
  readonly zone: string;
}

export const accountPerformance = (input: ReportInput): AccountPerformance => {
  const start = Date.parse(input.start);
  const stop = Date.parse(input.stop);
  const points = [
    ...input.trades.map((t) => ({ time: Date.parse(t.closeTime), amount: resultOf(t), trade: true })),
    ...input.balanceOperations.map((b) => ({ time: Date.parse(b.time), amount: b.amount, trade: false })),
  ]
    .filter((p) => p.time <= stop)
    .sort((a, b) => a.time - b.time);
  let balance = 0;
  let peak = 0;
  for (const p of points) {
    balance += p.amount;
    if (p.trade) peak = Math.max(peak, balance);
    else peak += p.amount;
  }
  const trades = input.trades.filter((t) => Date.parse(t.closeTime) >= start && Date.parse(t.closeTime) <= stop);
  const netProfits: Record<string, Record<string, number>> = {};
  for (const t of trades) {
    const [year, month] = periodLabel('month', t.closeTime, input.zone).split('-') as [string, string];
    const months = (netProfits[year] ??= {});
    const key = String(Number(month));
    months[key] = (months[key] ?? 0) + resultOf(t);
  }
  for (const months of Object.values(netProfits)) for (const m of Object.keys(months)) months[m] = money(months[m]!);
  const lastSample = input.samples
    .filter((s) => Date.parse(s.time) >= start && Date.parse(s.time) <= stop)
    .sort((a, b) => Date.parse(a.time) - Date.parse(b.time))
    .at(-1);
  return {
    balance: money(balance),
    equity: money(lastSample?.equity ?? balance),
    currentDrawdown: peak > 0 && balance < peak ? pct(((peak - balance) / peak) * 100) : 0,
    netProfits,
  };
};
