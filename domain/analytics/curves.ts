// The curves behind the performance metrics (metrics.ts): the balance curve's drawdown episodes, and
// the smoothness and volatility of a curve.
import { nextPeriodStart, periodLabel, periodStart } from './periods.js';
import { mean, money, pct, ratio, sum } from './rounding.js';

// ---------------------------------------------------------------------------------------------
// The balance curve and its drawdown episodes

export interface Episode {
  /** When the balance stood at the peak it fell from. */
  readonly peakAt: string;
  readonly depth: number;
  /** The deepest fall below the peak in money (peak - lowest balance). */
  readonly amount: number;
  /** When it reached a new peak; null while still below. */
  readonly recoveredAt: string | null;
}

export interface Point {
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
  let amount = 0;
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
      if (depth > 0) episodes.push({ peakAt, depth, amount, recoveredAt: point.time });
      if (underSince) underwaterMs += Date.parse(point.time) - Date.parse(underSince);
      underSince = null;
      depth = 0;
      amount = 0;
      peak = balance;
      peakAt = point.time;
    } else if (peak > 0) {
      depth = Math.max(depth, (peak - balance) / peak);
      amount = Math.max(amount, peak - balance);
      underSince ??= point.time;
    }
  }
  const last = points[points.length - 1]?.time ?? peakAt;
  if (depth > 0) episodes.push({ peakAt, depth, amount, recoveredAt: null });
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

/**
 * The value at the end of each day (in `zone`) of a step curve (each point: the value from then on),
 * for every day from the first point's to the last point's: a day without a point keeps the value
 * before it.
 */
export const endOfDayValues = (curve: readonly { time: string; value: number }[], zone: string): Record<string, number> => {
  const out: Record<string, number> = {};
  if (curve.length === 0) return out;
  const lastDay = Date.parse(periodStart('day', curve[curve.length - 1]!.time, zone));
  let day = periodStart('day', curve[0]!.time, zone);
  let i = 0;
  let value = curve[0]!.value;
  while (Date.parse(day) <= lastDay) {
    const next = nextPeriodStart('day', day, zone);
    while (i < curve.length && Date.parse(curve[i]!.time) < Date.parse(next)) value = curve[i++]!.value;
    out[periodLabel('day', day, zone)] = money(value);
    day = next;
  }
  return out;
};
