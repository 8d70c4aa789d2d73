// Performance metrics of an account (spec: PerformanceMetricsDTO), from its closed trades, balance
// operations and data-collector samples. Every formula is defined here once; the OpenAPI text of
// GET .../performanceMetrics repeats the definitions.
//
//   trade        one closed volume (a full close, or one part of a partial close), by close time;
//                its result = profit + swap + commission; a win > 0, a loss < 0, break-even = 0.
//   range        [from, to] on close time (trades), time (balance operations, samples); open ends
//                mean the whole history.
//   balance curve: the balance after each trade or balance operation, starting from the balance at
//                the start of the range. Drawdown episodes as in curves.ts: deposits and
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
//   months       months active: calendar months from the first trade's opening to the last trade's
//                close, both counted; a month's profit percentage is its net result over the balance
//                at its start plus its deposits.
//   score        score.ts: the reference's ScoreBreakdownDTO parts, each with its formula.
import { DateTime } from 'luxon';
import { assetClassOf } from './assetClasses.js';
import { dailyVolatility, endOfDayValues, episodesOf, type Point, smoothness } from './curves.js';
import { type PeriodUnit, hourOf, periodLabel, weekdayOf, WEEKDAYS } from './periods.js';
import { hours, mean, money, pct, ratio, rounded, sum } from './rounding.js';
import { martingaleShare, type ScoreFacts, scoreOf } from './score.js';
import {
  HOLDING_BUCKETS,
  type AccountFacts,
  type TradeRecord,
  type BalanceRecord,
  type SampleRecord,
  type MetricsInput,
  type PeriodPerformance,
  type DirectionPerformance,
  type SymbolAnalytics,
  type PerformanceMetrics,
} from './metricsTypes.js';

export { HOLDING_BUCKETS } from './metricsTypes.js';
export type {
  TradeRecord,
  BalanceRecord,
  SampleRecord,
  AccountFacts,
  MetricsInput,
  PeriodPerformance,
  DirectionPerformance,
  SymbolAnalytics,
  PerformanceMetrics,
} from './metricsTypes.js';

const BUCKET_LIMITS_MINUTES = [1, 15, 60, 240, 1440, 10_080];

export const resultOf = (t: TradeRecord): number => t.profit + t.swap + t.commission;

const within = (time: string, from: string | null, to: string | null): boolean =>
  (from === null || Date.parse(time) >= Date.parse(from)) && (to === null || Date.parse(time) <= Date.parse(to));

const add = (map: Record<string, number>, key: string, value: number): void => {
  map[key] = (map[key] ?? 0) + value;
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

/** The part of the history a range takes: its points, trades, operations and samples, and the balance it starts from. */
interface InRange {
  readonly startBalance: number;
  readonly points: readonly Point[];
  /** By close time. */
  readonly trades: readonly TradeRecord[];
  readonly operations: readonly BalanceRecord[];
  /** By time. */
  readonly samples: readonly SampleRecord[];
}

const inRange = (input: MetricsInput): InRange => {
  const { from, to } = input;
  const byTime = <T extends { time: string }>(xs: readonly T[]) => [...xs].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  const allPoints: (Point & { inRange: boolean })[] = byTime([
    ...input.trades.map((t) => ({ time: t.closeTime, kind: 'trade' as const, amount: resultOf(t), inRange: within(t.closeTime, from, to) })),
    ...input.balanceOperations.map((b) => ({ time: b.time, kind: 'balance' as const, amount: b.amount, inRange: within(b.time, from, to) })),
  ]);
  return {
    startBalance: sum(allPoints.filter((p) => from !== null && Date.parse(p.time) < Date.parse(from)).map((p) => p.amount)),
    points: allPoints.filter((p) => p.inRange),
    trades: [...input.trades].filter((t) => within(t.closeTime, from, to)).sort((a, b) => Date.parse(a.closeTime) - Date.parse(b.closeTime)),
    operations: input.balanceOperations.filter((b) => within(b.time, from, to)),
    samples: byTime(input.samples.filter((s) => within(s.time, from, to))),
  };
};

/** Wins and losses of the trades, unrounded (the score reads them so). */
interface Results {
  readonly results: readonly number[];
  readonly wins: readonly number[];
  readonly losses: readonly number[];
  readonly grossProfit: number;
  readonly grossLoss: number;
  readonly winRate: number;
  readonly profitFactor: number | null;
}

const resultsOf = (trades: readonly TradeRecord[]): Results => {
  const results = trades.map(resultOf);
  const wins = results.filter((r) => r > 0);
  const losses = results.filter((r) => r < 0);
  const grossProfit = sum(wins);
  const grossLoss = sum(losses);
  return {
    results,
    wins,
    losses,
    grossProfit,
    grossLoss,
    winRate: trades.length === 0 ? 0 : (wins.length / trades.length) * 100,
    profitFactor: losses.length === 0 ? null : grossProfit / Math.abs(grossLoss),
  };
};

/** The longest runs of wins and of losses, in close order; a break-even ends both. */
const streaks = (results: readonly number[]): { longestWinStreak: number; longestLossStreak: number } => {
  let wins = 0;
  let losses = 0;
  let longestWinStreak = 0;
  let longestLossStreak = 0;
  for (const r of results) {
    wins = r > 0 ? wins + 1 : 0;
    losses = r < 0 ? losses + 1 : 0;
    longestWinStreak = Math.max(longestWinStreak, wins);
    longestLossStreak = Math.max(longestLossStreak, losses);
  }
  return { longestWinStreak, longestLossStreak };
};

const tradeFigures = (trades: readonly TradeRecord[], r: Results) => {
  const net = sum(r.results);
  const avgWin = mean(r.wins);
  const avgLoss = mean(r.losses);
  return {
    totalTrades: trades.length,
    winningTrades: r.wins.length,
    losingTrades: r.losses.length,
    breakevenTrades: trades.length - r.wins.length - r.losses.length,
    winRate: pct(r.winRate),
    netProfit: money(net),
    totalNetProfit: money(net),
    grossProfit: money(r.grossProfit),
    grossLoss: money(r.grossLoss),
    ...(r.profitFactor === null ? {} : { profitFactor: ratio(r.profitFactor) }),
    avgWin: money(avgWin),
    avgLoss: money(avgLoss),
    avgNetProfitPerTrade: money(mean(r.results)),
    expectancy: money(mean(r.results)),
    largestWin: money(Math.max(0, ...r.wins)),
    largestLoss: money(Math.min(0, ...r.losses)),
    avgRiskReward: r.wins.length === 0 || r.losses.length === 0 ? 0 : ratio(avgWin / Math.abs(avgLoss)),
    ...streaks(r.results),
    avgHoldingTimeSeconds: Math.round(mean(trades.map((t) => (Date.parse(t.closeTime) - Date.parse(t.openTime)) / 1000))),
    avgLotSize: ratio(mean(trades.map((t) => t.volume))),
    maxLotSize: trades.length === 0 ? 0 : Math.max(...trades.map((t) => t.volume)),
    totalLotSize: ratio(sum(trades.map((t) => t.volume))),
    avgCommissionPerTrade: money(mean(trades.map((t) => t.commission))),
    avgSwapPerTrade: money(mean(trades.map((t) => t.swap))),
    totalSwap: money(sum(trades.map((t) => t.swap))),
    totalCommission: money(sum(trades.map((t) => t.commission))),
    totalCommissions: money(sum(trades.map((t) => t.commission))),
  };
};

/** The first and last trade of the range and the calendar months between them (both counted). */
const activity = (trades: readonly TradeRecord[], zone: string) => {
  if (trades.length === 0) return { monthsActive: 0 };
  const firstTradeAt = new Date(Math.min(...trades.map((t) => Date.parse(t.openTime)))).toISOString();
  const lastTradeAt = new Date(Math.max(...trades.map((t) => Date.parse(t.closeTime)))).toISOString();
  return { firstTradeAt, lastTradeAt, monthsActive: monthsActiveBetween(firstTradeAt, lastTradeAt, zone) };
};

/** The calendar months (in `zone`) from the first trade's opening to the last trade's close, both counted. */
const monthsActiveBetween = (firstTradeAt: string, lastTradeAt: string, zone: string): number => {
  const monthIndex = (at: string) => {
    const [year, month] = periodLabel('month', at, zone).split('-').map(Number) as [number, number];
    return year * 12 + month;
  };
  return monthIndex(lastTradeAt) - monthIndex(firstTradeAt) + 1;
};

/**
 * Per month (YYYY-MM) with trades: the net result, the mean result per trade, and the net result in
 * percent of the balance at the month's start plus the month's deposits (0 when that is not positive).
 */
const monthlyFigures = (startBalance: number, points: readonly Point[], trades: readonly TradeRecord[], zone: string) => {
  const net: Record<string, number> = {};
  const count: Record<string, number> = {};
  for (const t of trades) {
    const month = periodLabel('month', t.closeTime, zone);
    add(net, month, resultOf(t));
    add(count, month, 1);
  }
  const base: Record<string, number> = {};
  let balance = startBalance;
  for (const p of points) {
    const month = periodLabel('month', p.time, zone);
    base[month] ??= balance;
    if (p.kind === 'balance' && p.amount > 0) base[month] += p.amount;
    balance += p.amount;
  }
  const months = Object.keys(net);
  return {
    profitAmountPerMonth: rounded(net),
    avgProfitPerMonth: Object.fromEntries(months.map((m) => [m, money(net[m]! / count[m]!)])),
    profitPercentagePerMonth: Object.fromEntries(months.map((m) => [m, (base[m] ?? 0) > 0 ? pct((net[m]! / base[m]!) * 100) : 0])),
  };
};

/** The drawdown figures of the balance curve; `maxDrawdown` unrounded beside them (the score reads it so). */
const drawdownFigures = (startBalance: number, from: string | null, points: readonly Point[]) => {
  const { episodes, underwaterMs, spanMs } = episodesOf(startBalance, from, points);
  const recovered = episodes.filter((e) => e.recoveredAt !== null).map((e) => Date.parse(e.recoveredAt!) - Date.parse(e.peakAt));
  const maxDrawdown = episodes.length === 0 ? 0 : Math.max(...episodes.map((e) => e.depth)) * 100;
  const avgDrawdown = episodes.length === 0 ? 0 : mean(episodes.map((e) => e.depth)) * 100;
  return {
    maxDrawdown,
    maxDrawdownAmount: episodes.length === 0 ? 0 : Math.max(...episodes.map((e) => e.amount)),
    figures: {
      maxDrawdown: pct(maxDrawdown),
      avgDrawdown: pct(avgDrawdown),
      avgRecoveryTimeHours: recovered.length === 0 ? null : hours(mean(recovered)),
      maxRecoveryTimeHours: recovered.length === 0 ? null : hours(Math.max(...recovered)),
      timeInDrawdownPercent: spanMs === 0 ? 0 : pct((underwaterMs / spanMs) * 100),
    },
  };
};

const inWeekOrder = (map: Record<string, number>): Record<string, number> => Object.fromEntries(WEEKDAYS.filter((d) => d in map).map((d) => [d, map[d]!]));

/** Trades and balance operations by day, hour, weekday and holding time. */
const distributions = (trades: readonly TradeRecord[], operations: readonly BalanceRecord[], zone: string) => {
  const tradesPerDay: Record<string, number> = {};
  const profitPerHour: Record<string, number> = {};
  const profitPerWeekday: Record<string, number> = {};
  const tradesPerHour: Record<string, number> = {};
  const tradesPerWeekday: Record<string, number> = {};
  const tradesByHoldingBucket: Record<string, number> = Object.fromEntries(HOLDING_BUCKETS.map((b) => [b, 0]));
  const tradesPerSymbol: Record<string, number> = {};
  for (const t of trades) {
    add(tradesPerSymbol, t.symbol, 1);
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
  return {
    tradesPerDay,
    tradesPerSymbol: Object.fromEntries(Object.entries(tradesPerSymbol).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    dailyBalanceTransactions: rounded(dailyBalanceTransactions),
    profitPerHour: rounded(profitPerHour),
    profitPerWeekday: rounded(inWeekOrder(profitPerWeekday)),
    tradesPerHour,
    tradesPerWeekday: inWeekOrder(tradesPerWeekday),
    tradesByHoldingBucket,
  };
};

const bestAndWorstPeriods = (trades: readonly TradeRecord[], zone: string) => {
  const [bestDay, worstDay] = bestAndWorst(trades, 'day', zone);
  const [bestWeek, worstWeek] = bestAndWorst(trades, 'week', zone);
  const [bestMonth, worstMonth] = bestAndWorst(trades, 'month', zone);
  return { bestDay, worstDay, bestWeek, worstWeek, bestMonth, worstMonth };
};

const winRateOf = (ts: readonly TradeRecord[]): number => (ts.length === 0 ? 0 : pct((ts.filter((t) => resultOf(t) > 0).length / ts.length) * 100));

const directionPerformance = (trades: readonly TradeRecord[]): DirectionPerformance => {
  const buys = trades.filter((t) => t.side === 'Buy');
  const sells = trades.filter((t) => t.side === 'Sell');
  return {
    buyTrades: buys.length,
    sellTrades: sells.length,
    buyWinRate: winRateOf(buys),
    sellWinRate: winRateOf(sells),
    buyNetProfit: money(sum(buys.map(resultOf))),
    sellNetProfit: money(sum(sells.map(resultOf))),
  };
};

const symbolAnalytics = (trades: readonly TradeRecord[]): SymbolAnalytics[] =>
  [...new Set(trades.map((t) => t.symbol))].sort().map((symbol) => {
    const ts = trades.filter((t) => t.symbol === symbol);
    const net = sum(ts.map(resultOf));
    return { symbol, trades: ts.length, winRate: winRateOf(ts), netProfit: money(net), avgProfitPerTrade: money(net / ts.length) };
  });

/** The balance after each point, from the start balance; the equity curve (the samples when at least two, else the balance curve). */
const curvesOf = (startBalance: number, points: readonly Point[], samples: readonly SampleRecord[]) => {
  let level = startBalance;
  const balanceCurve = points.map((p) => ({ time: p.time, value: (level += p.amount) }));
  const equityCurve = samples.length >= 2 ? samples.map((s) => ({ time: s.time, value: s.equity })) : balanceCurve;
  return { balanceCurve, equityCurve, balance: level };
};

/** What the score reads that neither the time zone nor the account's connection changes. */
type ZoneFreeFacts = Omit<ScoreFacts, 'live' | 'propFirm' | 'monthsActive' | 'tradingDays'>;

const zoneFreeFacts = (
  trades: readonly TradeRecord[],
  results: Results,
  drawdowns: { readonly maxDrawdown: number; readonly maxDrawdownAmount: number },
  curveSmoothness: number,
  balance: number,
): ZoneFreeFacts => {
  const instruments = new Set(trades.map((t) => t.symbol));
  return {
    trades: trades.length,
    netProfit: sum(results.results),
    grossProfit: results.grossProfit,
    winRate: results.winRate,
    profitFactor: results.profitFactor,
    maxDrawdown: drawdowns.maxDrawdown,
    maxDrawdownAmount: drawdowns.maxDrawdownAmount,
    avgWin: mean(results.wins),
    avgLoss: mean(results.losses),
    expectancy: mean(results.results),
    smoothness: curveSmoothness,
    balance,
    uniqueInstruments: instruments.size,
    uniqueAssetClasses: new Set([...instruments].map(assetClassOf)).size,
    martingaleShare: martingaleShare(trades.map((t) => ({ ...t, result: resultOf(t) }))),
  };
};

/**
 * What the score of a range reads, kept where it cannot be computed per request (the marketplace read
 * model keeps one per signal provider, over its account's whole history): every fact but those of the
 * account's connection (live, prop firm: scoreOfKept takes them) and of the time zone, kept as the
 * times they are told from (TIME_ZONE is configuration, not history).
 */
export interface KeptScoreFacts extends ZoneFreeFacts {
  /** The earliest opening and the latest close of the range's trades (null without trades). */
  readonly firstOpen: string | null;
  readonly lastClose: string | null;
  /**
   * Every minute with a close (ms since the epoch / 60,000), distinct, ascending: the zone's days with a
   * close are the days of these minutes (offsets and their changes fall on whole minutes, so a close and
   * the start of its minute lie on one day). Read per UTC half-day (tradingDaysOf): where the zone keeps
   * one offset through a half-day its first and last minutes give its days, so only a half-day with a
   * change is read minute by minute, as where the clocks turn back across midnight (a close in the
   * repeated hour, then one on the next date, then one in the repeated hour again).
   */
  readonly closeMinutes: readonly number[];
}

const MINUTE_MS = 60_000;
const HALF_DAY_MINUTES = 720;

const closeMinutesOf = (trades: readonly TradeRecord[]): number[] =>
  [...new Set(trades.map((t) => Math.floor(Date.parse(t.closeTime) / MINUTE_MS)))].sort((a, b) => a - b);

const dayOfMinute = (minute: number, zone: string): DateTime => DateTime.fromMillis(minute * MINUTE_MS, { zone });

/**
 * The days of `zone` with a close, from the kept minutes. A zone changes its offset at most once in
 * a half-day (no day is shorter than 12 hours), so a half-day whose first and last minutes have one
 * offset runs forward through at most two dates, its ends' dates.
 */
export const tradingDaysOf = (closeMinutes: readonly number[], zone: string): number => {
  const days = new Set<string>();
  for (let i = 0; i < closeMinutes.length;) {
    const halfDay = Math.floor(closeMinutes[i]! / HALF_DAY_MINUTES);
    let j = i;
    while (j + 1 < closeMinutes.length && Math.floor(closeMinutes[j + 1]! / HALF_DAY_MINUTES) === halfDay) j += 1;
    const [first, last] = [dayOfMinute(closeMinutes[i]!, zone), dayOfMinute(closeMinutes[j]!, zone)];
    if (first.offset === last.offset) for (const at of [first, last]) days.add(at.toISODate()!);
    else for (let k = i; k <= j; k += 1) days.add(dayOfMinute(closeMinutes[k]!, zone).toISODate()!);
    i = j + 1;
  }
  return days.size;
};

export const keptScoreFacts = (input: MetricsInput): KeptScoreFacts => {
  const { startBalance, points, trades, samples } = inRange(input);
  const results = resultsOf(trades);
  const { equityCurve, balance } = curvesOf(startBalance, points, samples);
  const active = activity(trades, 'UTC');
  return {
    ...zoneFreeFacts(trades, results, drawdownFigures(startBalance, input.from, points), smoothness(equityCurve), balance),
    firstOpen: active.firstTradeAt ?? null,
    lastClose: active.lastTradeAt ?? null,
    closeMinutes: closeMinutesOf(trades),
  };
};

/** The score of kept facts for an account (its connection's live flag, its prop-firm flag) in `zone`: what performanceMetrics answers for the same range. */
export const scoreOfKept = (kept: KeptScoreFacts, account: Pick<AccountFacts, 'live' | 'propFirm'>, zone: string) => {
  const { firstOpen, lastClose, closeMinutes, ...facts } = kept;
  return scoreOf({
    ...facts,
    monthsActive: firstOpen && lastClose ? monthsActiveBetween(firstOpen, lastClose, zone) : 0,
    tradingDays: tradingDaysOf(closeMinutes, zone),
    live: account.live,
    propFirm: account.propFirm,
  });
};

export const performanceMetrics = (input: MetricsInput): PerformanceMetrics => {
  const { zone, account } = input;
  const { startBalance, points, trades, operations, samples } = inRange(input);
  const results = resultsOf(trades);
  const drawdowns = drawdownFigures(startBalance, input.from, points);
  const { balanceCurve, equityCurve, balance: level } = curvesOf(startBalance, points, samples);
  const curveSmoothness = smoothness(equityCurve);
  const perPeriod = distributions(trades, operations, zone);
  const figures = tradeFigures(trades, results);
  const active = activity(trades, zone);
  const score = scoreOf({
    ...zoneFreeFacts(trades, results, drawdowns, curveSmoothness, level),
    monthsActive: active.monthsActive,
    tradingDays: Object.keys(perPeriod.tradesPerDay).length,
    live: account?.live ?? false,
    propFirm: account?.propFirm ?? false,
  });
  return {
    ...(account ? { accountType: account.accountType, broker: account.broker, currency: account.currency } : {}),
    ...score,
    ...figures,
    ...active,
    deposits: money(sum(operations.filter((b) => b.amount > 0).map((b) => b.amount))),
    withdrawals: money(sum(operations.filter((b) => b.amount < 0).map((b) => b.amount))),
    ...drawdowns.figures,
    equityCurveSmoothness: curveSmoothness,
    equityVolatility: dailyVolatility(equityCurve, zone),
    ...perPeriod,
    dailyBalance: endOfDayValues(balanceCurve, zone),
    dailyEquity: endOfDayValues(equityCurve, zone),
    ...monthlyFigures(startBalance, points, trades, zone),
    ...bestAndWorstPeriods(trades, zone),
    directionPerformance: directionPerformance(trades),
    symbolAnalytics: symbolAnalytics(trades),
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
