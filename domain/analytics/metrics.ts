// Performance metrics of an account (spec: PerformanceMetricsDTO), from its closed trades, balance
// operations and data-collector samples. Every formula is defined here once; the OpenAPI text of
// GET .../performanceMetrics repeats the definitions.
//
//   trade        one closed volume (a full close, or one part of a partial close), by close time;
//                its result = profit + swap + commission; a win > 0, a loss < 0, break-even = 0.
//   range        [from, to] on close time (trades), time (balance operations, samples); open ends
//                mean the whole history.
//   balance curve: the balance after each trade or balance operation, starting from the balance at
//                the start of the range. Drawdown episodes as in drawdown.ts: deposits and
//                withdrawals shift the peak; depth = (peak - balance) / peak.
//   recovery     hours from the peak an episode fell from to the time the balance reached a new peak;
//                only recovered episodes count.
//   time in drawdown  share of the range's time (first to last point) the balance spent below its peak.
//   smoothness   R² (0..1) of a straight line fitted to the equity curve against time (the samples
//                when there are at least 2, else the balance curve); 1 = a perfectly steady curve.
//   volatility   standard deviation, in percent, of the day-to-day returns of end-of-day equity
//                (samples, else balance); 0 with fewer than 3 days.
//   collector    from samples: equity drawdown (peak to trough of equity, percent), intraday maximum
//                (the deepest drawdown within one day), floating P&L extremes.
//   score        0..100: 30 % profit factor (3 or more = full marks), 20 % win rate, 25 % drawdown
//                (100 - 2 x max drawdown %), 15 % smoothness, 10 % experience (30 trading days = full).
import { Decimal } from 'decimal.js';
import { type PeriodUnit, hourOf, periodLabel, weekdayOf, WEEKDAYS } from './periods.js';

export interface TradeRecord {
  readonly id: string;
  readonly positionId: string;
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  readonly openTime: string;
  readonly closeTime: string;
  readonly profit: number;
  readonly swap: number;
  readonly commission: number;
}

export interface BalanceRecord {
  readonly id: string;
  readonly time: string;
  /** Positive = deposit, negative = withdrawal. */
  readonly amount: number;
}

export interface SampleRecord {
  readonly time: string;
  readonly balance: number;
  readonly equity: number;
  /** Floating profit and loss of the open positions (equity - balance - credit). */
  readonly floating: number;
}

export interface MetricsInput {
  readonly trades: readonly TradeRecord[];
  readonly balanceOperations: readonly BalanceRecord[];
  readonly samples: readonly SampleRecord[];
  /** ISO bounds of the range, inclusive; null = open. */
  readonly from: string | null;
  readonly to: string | null;
  readonly zone: string;
  readonly dataCollectorEnabled: boolean;
}

export interface PeriodPerformance {
  readonly label: string;
  readonly netProfit: number;
}

export interface DirectionPerformance {
  readonly buyTrades: number;
  readonly sellTrades: number;
  readonly buyWinRate: number;
  readonly sellWinRate: number;
  readonly buyNetProfit: number;
  readonly sellNetProfit: number;
}

export interface SymbolAnalytics {
  readonly symbol: string;
  readonly trades: number;
  readonly winRate: number;
  readonly netProfit: number;
  readonly avgProfitPerTrade: number;
}

export interface ScoreBreakdown {
  readonly profitFactor: number;
  readonly winRate: number;
  readonly drawdown: number;
  readonly consistency: number;
  readonly experience: number;
}

export const SCORE_WEIGHTS: Readonly<ScoreBreakdown> = { profitFactor: 0.3, winRate: 0.2, drawdown: 0.25, consistency: 0.15, experience: 0.1 };

export const HOLDING_BUCKETS = ['<1m', '1m-15m', '15m-1h', '1h-4h', '4h-1d', '1d-1w', '>1w'] as const;
const BUCKET_LIMITS_MINUTES = [1, 15, 60, 240, 1440, 10_080];

export interface PerformanceMetrics {
  readonly score: number;
  readonly scoreBreakdown: ScoreBreakdown;
  readonly totalTrades: number;
  readonly winningTrades: number;
  readonly losingTrades: number;
  readonly breakevenTrades: number;
  /** Percent of trades that won. */
  readonly winRate: number;
  readonly netProfit: number;
  readonly grossProfit: number;
  /** Negative or 0. */
  readonly grossLoss: number;
  /** grossProfit / |grossLoss|; null without losses. */
  readonly profitFactor: number | null;
  readonly avgWin: number;
  readonly avgLoss: number;
  readonly avgLotSize: number;
  readonly maxLotSize: number;
  readonly avgCommissionPerTrade: number;
  readonly avgSwapPerTrade: number;
  readonly totalSwap: number;
  readonly totalCommission: number;
  readonly deposits: number;
  readonly withdrawals: number;
  readonly maxDrawdown: number;
  readonly avgDrawdown: number;
  readonly avgRecoveryTimeHours: number | null;
  readonly maxRecoveryTimeHours: number | null;
  readonly timeInDrawdownPercent: number;
  readonly equityCurveSmoothness: number;
  readonly equityVolatility: number;
  readonly tradesPerDay: Readonly<Record<string, number>>;
  readonly dailyBalanceTransactions: Readonly<Record<string, number>>;
  readonly profitPerHour: Readonly<Record<string, number>>;
  readonly profitPerWeekday: Readonly<Record<string, number>>;
  readonly tradesPerHour: Readonly<Record<string, number>>;
  readonly tradesPerWeekday: Readonly<Record<string, number>>;
  readonly tradesByHoldingBucket: Readonly<Record<string, number>>;
  readonly bestDay: PeriodPerformance | null;
  readonly worstDay: PeriodPerformance | null;
  readonly bestWeek: PeriodPerformance | null;
  readonly worstWeek: PeriodPerformance | null;
  readonly bestMonth: PeriodPerformance | null;
  readonly worstMonth: PeriodPerformance | null;
  readonly directionPerformance: DirectionPerformance;
  readonly symbolAnalytics: readonly SymbolAnalytics[];
  readonly advancedAnalyticsAvailable: boolean;
  readonly dataCollectorEnabled: boolean;
  readonly dataCollectorHistoryStartAt: string | null;
  readonly dataCollectorHistoryEndAt: string | null;
  readonly dataCollectorSamples: number;
  readonly currentEquityDrawdown: number | null;
  readonly currentFloatingPnl: number | null;
  readonly intradayMaxDrawdown: number | null;
  readonly maxCollectorDrawdown: number | null;
  readonly maxFloatingLoss: number | null;
  readonly maxFloatingProfit: number | null;
  readonly peakFloatingPnl: number | null;
  readonly troughFloatingPnl: number | null;
  readonly equityDrawdownPerDay: Readonly<Record<string, number>>;
  readonly floatingPnlPerDay: Readonly<Record<string, number>>;
  readonly balanceEquityDivergencePerDay: Readonly<Record<string, number>>;
}

/** Rounds half away from zero, after dropping the binary noise of sums (-11.9 / 4 is -2.975, so -2.98). */
const Exact = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
const round = (x: number, places: number): number => new Exact(x.toPrecision(12)).toDecimalPlaces(places).toNumber() + 0;
const money = (x: number): number => round(x, 2);
const pct = (x: number): number => round(x, 2);
const ratio = (x: number): number => round(x, 4);
const hours = (ms: number): number => round(ms / 3_600_000, 2);
const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : sum(xs) / xs.length);

export const resultOf = (t: TradeRecord): number => t.profit + t.swap + t.commission;

const within = (time: string, from: string | null, to: string | null): boolean =>
  (from === null || Date.parse(time) >= Date.parse(from)) && (to === null || Date.parse(time) <= Date.parse(to));

const add = (map: Record<string, number>, key: string, value: number): void => {
  map[key] = (map[key] ?? 0) + value;
};

const rounded = (map: Record<string, number>): Record<string, number> => Object.fromEntries(Object.entries(map).map(([k, v]) => [k, money(v)]));

// ---------------------------------------------------------------------------------------------
// The balance curve and its drawdown episodes

export interface Episode {
  /** When the balance stood at the peak it fell from. */
  readonly peakAt: string;
  readonly depth: number;
  /** When it reached a new peak; null while still below. */
  readonly recoveredAt: string | null;
}

interface Point {
  readonly time: string;
  readonly kind: 'trade' | 'balance';
  readonly amount: number;
}

export const episodesOf = (
  start: number,
  startTime: string | null,
  points: readonly Point[],
): { episodes: Episode[]; underwaterMs: number; spanMs: number } => {
  let balance = start;
  let peak = start;
  let peakAt = startTime ?? points[0]?.time ?? new Date(0).toISOString();
  let depth = 0;
  let underSince: string | null = null;
  let underwaterMs = 0;
  const episodes: Episode[] = [];
  for (const point of points) {
    if (point.kind === 'balance') {
      balance += point.amount;
      peak += point.amount;
      continue;
    }
    balance += point.amount;
    if (balance >= peak) {
      if (depth > 0) episodes.push({ peakAt, depth, recoveredAt: point.time });
      if (underSince) underwaterMs += Date.parse(point.time) - Date.parse(underSince);
      underSince = null;
      depth = 0;
      peak = balance;
      peakAt = point.time;
    } else if (peak > 0) {
      depth = Math.max(depth, (peak - balance) / peak);
      underSince ??= point.time;
    }
  }
  const last = points[points.length - 1]?.time ?? peakAt;
  if (depth > 0) episodes.push({ peakAt, depth, recoveredAt: null });
  if (underSince) underwaterMs += Date.parse(last) - Date.parse(underSince);
  const first = startTime ?? points[0]?.time ?? last;
  return { episodes, underwaterMs, spanMs: Math.max(0, Date.parse(last) - Date.parse(first)) };
};

// ---------------------------------------------------------------------------------------------
// Curve statistics

/** R² of the least-squares line through the points (x = time); 1 for fewer than 3 points or a flat line. */
export const smoothness = (curve: readonly { time: string; value: number }[]): number => {
  if (curve.length < 3) return 1;
  const xs = curve.map((p) => Date.parse(p.time) / 3_600_000);
  const ys = curve.map((p) => p.value);
  const mx = mean(xs);
  const my = mean(ys);
  const sxx = sum(xs.map((x) => (x - mx) ** 2));
  const syy = sum(ys.map((y) => (y - my) ** 2));
  const sxy = sum(xs.map((x, i) => (x - mx) * (ys[i]! - my)));
  if (syy === 0) return 1;
  if (sxx === 0) return 0;
  return ratio((sxy * sxy) / (sxx * syy));
};

/** Standard deviation in percent of day-to-day returns of the last value of each day; 0 with fewer than 3 days. */
export const dailyVolatility = (curve: readonly { time: string; value: number }[], zone: string): number => {
  const lastOfDay = new Map<string, number>();
  for (const p of curve) lastOfDay.set(periodLabel('day', p.time, zone), p.value);
  const values = [...lastOfDay.values()];
  if (values.length < 3) return 0;
  const returns: number[] = [];
  for (let i = 1; i < values.length; i++) if (values[i - 1]! > 0) returns.push((values[i]! - values[i - 1]!) / values[i - 1]!);
  if (returns.length < 2) return 0;
  const m = mean(returns);
  return pct(Math.sqrt(sum(returns.map((r) => (r - m) ** 2)) / (returns.length - 1)) * 100);
};

// ---------------------------------------------------------------------------------------------

const bestAndWorst = (trades: readonly TradeRecord[], unit: PeriodUnit, zone: string): [PeriodPerformance | null, PeriodPerformance | null] => {
  const totals: Record<string, number> = {};
  for (const t of trades) add(totals, periodLabel(unit, t.closeTime, zone), resultOf(t));
  const entries = Object.entries(totals).map(([label, netProfit]) => ({ label, netProfit: money(netProfit) }));
  if (entries.length === 0) return [null, null];
  const best = entries.reduce((a, b) => (b.netProfit > a.netProfit || (b.netProfit === a.netProfit && b.label < a.label) ? b : a));
  const worst = entries.reduce((a, b) => (b.netProfit < a.netProfit || (b.netProfit === a.netProfit && b.label < a.label) ? b : a));
  return [best, worst];
};

const holdingBucket = (t: TradeRecord): string => {
  const minutes = (Date.parse(t.closeTime) - Date.parse(t.openTime)) / 60_000;
  const index = BUCKET_LIMITS_MINUTES.findIndex((limit) => minutes < limit);
  return HOLDING_BUCKETS[index === -1 ? HOLDING_BUCKETS.length - 1 : index]!;
};

const collectorMetrics = (samples: readonly SampleRecord[], zone: string) => {
  if (samples.length === 0) {
    return {
      currentEquityDrawdown: null,
      currentFloatingPnl: null,
      intradayMaxDrawdown: null,
      maxCollectorDrawdown: null,
      maxFloatingLoss: null,
      maxFloatingProfit: null,
      peakFloatingPnl: null,
      troughFloatingPnl: null,
      equityDrawdownPerDay: {},
      floatingPnlPerDay: {},
      balanceEquityDivergencePerDay: {},
    };
  }
  let peak = samples[0]!.equity;
  let maxDepth = 0;
  let highest = samples[0]!;
  let lowest = samples[0]!;
  const perDay: Record<string, number> = {};
  const dayPeak = new Map<string, number>();
  const floatingPerDay: Record<string, number> = {};
  const divergence: Record<string, number> = {};
  for (const s of samples) {
    peak = Math.max(peak, s.equity);
    if (peak > 0) maxDepth = Math.max(maxDepth, (peak - s.equity) / peak);
    if (s.equity > highest.equity) highest = s;
    if (s.equity < lowest.equity) lowest = s;
    const day = periodLabel('day', s.time, zone);
    const dp = Math.max(dayPeak.get(day) ?? s.equity, s.equity);
    dayPeak.set(day, dp);
    perDay[day] = Math.max(perDay[day] ?? 0, dp > 0 ? ((dp - s.equity) / dp) * 100 : 0);
    floatingPerDay[day] = s.floating;
    divergence[day] = Math.max(divergence[day] ?? 0, Math.abs(s.equity - s.balance));
  }
  const last = samples[samples.length - 1]!;
  const floatings = samples.map((s) => s.floating);
  return {
    currentEquityDrawdown: pct(peak > 0 ? ((peak - last.equity) / peak) * 100 : 0),
    currentFloatingPnl: money(last.floating),
    intradayMaxDrawdown: pct(Math.max(0, ...Object.values(perDay))),
    maxCollectorDrawdown: pct(maxDepth * 100),
    maxFloatingLoss: money(Math.min(0, ...floatings)),
    maxFloatingProfit: money(Math.max(0, ...floatings)),
    peakFloatingPnl: money(highest.floating),
    troughFloatingPnl: money(lowest.floating),
    equityDrawdownPerDay: Object.fromEntries(Object.entries(perDay).map(([k, v]) => [k, pct(v)])),
    floatingPnlPerDay: rounded(floatingPerDay),
    balanceEquityDivergencePerDay: rounded(divergence),
  };
};

export const performanceMetrics = (input: MetricsInput): PerformanceMetrics => {
  const { zone, from, to } = input;
  const byTime = <T extends { time: string }>(xs: readonly T[]) => [...xs].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  const allPoints: (Point & { inRange: boolean })[] = byTime([
    ...input.trades.map((t) => ({ time: t.closeTime, kind: 'trade' as const, amount: resultOf(t), inRange: within(t.closeTime, from, to) })),
    ...input.balanceOperations.map((b) => ({ time: b.time, kind: 'balance' as const, amount: b.amount, inRange: within(b.time, from, to) })),
  ]);
  const startBalance = sum(allPoints.filter((p) => from !== null && Date.parse(p.time) < Date.parse(from)).map((p) => p.amount));
  const points = allPoints.filter((p) => p.inRange);
  const trades = [...input.trades].filter((t) => within(t.closeTime, from, to)).sort((a, b) => Date.parse(a.closeTime) - Date.parse(b.closeTime));
  const operations = input.balanceOperations.filter((b) => within(b.time, from, to));
  const samples = byTime(input.samples.filter((s) => within(s.time, from, to)));

  const results = trades.map(resultOf);
  const wins = results.filter((r) => r > 0);
  const losses = results.filter((r) => r < 0);
  const grossProfit = sum(wins);
  const grossLoss = sum(losses);
  const winRate = trades.length === 0 ? 0 : (wins.length / trades.length) * 100;
  const profitFactor = losses.length === 0 ? null : grossProfit / Math.abs(grossLoss);

  const { episodes, underwaterMs, spanMs } = episodesOf(startBalance, from, points);
  const recovered = episodes.filter((e) => e.recoveredAt !== null).map((e) => Date.parse(e.recoveredAt!) - Date.parse(e.peakAt));
  const maxDrawdown = episodes.length === 0 ? 0 : Math.max(...episodes.map((e) => e.depth)) * 100;
  const avgDrawdown = episodes.length === 0 ? 0 : mean(episodes.map((e) => e.depth)) * 100;

  let level = startBalance;
  const balanceCurve = points.map((p) => ({ time: p.time, value: (level += p.amount) }));
  const equityCurve = samples.length >= 2 ? samples.map((s) => ({ time: s.time, value: s.equity })) : balanceCurve;
  const curveSmoothness = smoothness(equityCurve);

  const tradesPerDay: Record<string, number> = {};
  const profitPerHour: Record<string, number> = {};
  const profitPerWeekday: Record<string, number> = {};
  const tradesPerHour: Record<string, number> = {};
  const tradesPerWeekday: Record<string, number> = {};
  const tradesByHoldingBucket: Record<string, number> = Object.fromEntries(HOLDING_BUCKETS.map((b) => [b, 0]));
  for (const t of trades) {
    add(tradesPerDay, periodLabel('day', t.closeTime, zone), 1);
    const hour = String(hourOf(t.closeTime, zone));
    const weekday = weekdayOf(t.closeTime, zone);
    add(profitPerHour, hour, resultOf(t));
    add(tradesPerHour, hour, 1);
    add(profitPerWeekday, weekday, resultOf(t));
    add(tradesPerWeekday, weekday, 1);
    add(tradesByHoldingBucket, holdingBucket(t), 1);
  }
  const dailyBalanceTransactions: Record<string, number> = {};
  for (const b of operations) add(dailyBalanceTransactions, periodLabel('day', b.time, zone), b.amount);

  const [bestDay, worstDay] = bestAndWorst(trades, 'day', zone);
  const [bestWeek, worstWeek] = bestAndWorst(trades, 'week', zone);
  const [bestMonth, worstMonth] = bestAndWorst(trades, 'month', zone);

  const side = (s: 'Buy' | 'Sell') => trades.filter((t) => t.side === s);
  const rateOf = (ts: readonly TradeRecord[]) => (ts.length === 0 ? 0 : pct((ts.filter((t) => resultOf(t) > 0).length / ts.length) * 100));
  const symbols = [...new Set(trades.map((t) => t.symbol))].sort();

  const scoreBreakdown: ScoreBreakdown =
    trades.length === 0
      ? { profitFactor: 0, winRate: 0, drawdown: 0, consistency: 0, experience: 0 }
      : {
          profitFactor: pct(profitFactor === null ? (grossProfit > 0 ? 100 : 0) : Math.min(100, (profitFactor / 3) * 100)),
          winRate: pct(winRate),
          drawdown: pct(Math.max(0, 100 - 2 * maxDrawdown)),
          consistency: pct(curveSmoothness * 100),
          experience: pct(Math.min(100, (Object.keys(tradesPerDay).length / 30) * 100)),
        };
  const score = Math.round((Object.keys(SCORE_WEIGHTS) as (keyof ScoreBreakdown)[]).reduce((total, k) => total + SCORE_WEIGHTS[k] * scoreBreakdown[k], 0));

  return {
    score,
    scoreBreakdown,
    totalTrades: trades.length,
    winningTrades: wins.length,
    losingTrades: losses.length,
    breakevenTrades: trades.length - wins.length - losses.length,
    winRate: pct(winRate),
    netProfit: money(sum(results)),
    grossProfit: money(grossProfit),
    grossLoss: money(grossLoss),
    profitFactor: profitFactor === null ? null : ratio(profitFactor),
    avgWin: money(mean(wins)),
    avgLoss: money(mean(losses)),
    avgLotSize: ratio(mean(trades.map((t) => t.volume))),
    maxLotSize: trades.length === 0 ? 0 : Math.max(...trades.map((t) => t.volume)),
    avgCommissionPerTrade: money(mean(trades.map((t) => t.commission))),
    avgSwapPerTrade: money(mean(trades.map((t) => t.swap))),
    totalSwap: money(sum(trades.map((t) => t.swap))),
    totalCommission: money(sum(trades.map((t) => t.commission))),
    deposits: money(sum(operations.filter((b) => b.amount > 0).map((b) => b.amount))),
    withdrawals: money(sum(operations.filter((b) => b.amount < 0).map((b) => b.amount))),
    maxDrawdown: pct(maxDrawdown),
    avgDrawdown: pct(avgDrawdown),
    avgRecoveryTimeHours: recovered.length === 0 ? null : hours(mean(recovered)),
    maxRecoveryTimeHours: recovered.length === 0 ? null : hours(Math.max(...recovered)),
    timeInDrawdownPercent: spanMs === 0 ? 0 : pct((underwaterMs / spanMs) * 100),
    equityCurveSmoothness: curveSmoothness,
    equityVolatility: dailyVolatility(equityCurve, zone),
    tradesPerDay,
    dailyBalanceTransactions: rounded(dailyBalanceTransactions),
    profitPerHour: rounded(profitPerHour),
    profitPerWeekday: rounded(Object.fromEntries(WEEKDAYS.filter((d) => d in profitPerWeekday).map((d) => [d, profitPerWeekday[d]!]))),
    tradesPerHour,
    tradesPerWeekday: Object.fromEntries(WEEKDAYS.filter((d) => d in tradesPerWeekday).map((d) => [d, tradesPerWeekday[d]!])),
    tradesByHoldingBucket,
    bestDay,
    worstDay,
    bestWeek,
    worstWeek,
    bestMonth,
    worstMonth,
    directionPerformance: {
      buyTrades: side('Buy').length,
      sellTrades: side('Sell').length,
      buyWinRate: rateOf(side('Buy')),
      sellWinRate: rateOf(side('Sell')),
      buyNetProfit: money(sum(side('Buy').map(resultOf))),
      sellNetProfit: money(sum(side('Sell').map(resultOf))),
    },
    symbolAnalytics: symbols.map((symbol) => {
      const ts = trades.filter((t) => t.symbol === symbol);
      const net = sum(ts.map(resultOf));
      return { symbol, trades: ts.length, winRate: rateOf(ts), netProfit: money(net), avgProfitPerTrade: money(net / ts.length) };
    }),
    advancedAnalyticsAvailable: samples.length >= 2,
    dataCollectorEnabled: input.dataCollectorEnabled,
    dataCollectorHistoryStartAt: samples[0]?.time ?? null,
    dataCollectorHistoryEndAt: samples[samples.length - 1]?.time ?? null,
    dataCollectorSamples: samples.length,
    ...collectorMetrics(samples, zone),
  };
};

/** The net result of trades closed from `start` on (account information's profitToday and kin). */
export const netProfitSince = (trades: readonly TradeRecord[], start: string): number =>
  money(sum(trades.filter((t) => Date.parse(t.closeTime) >= Date.parse(start)).map(resultOf)));
