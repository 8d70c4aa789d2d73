// What the economic calendar computes from its events (spec "Economic calendar, news and alerts": surprise
// index, risk heatmap, rate outlook). Pure functions of the events the read model holds and `now`.
import { type CalendarEntry, type Impact, MAJORS, numericValue, seriesOf } from './entry.js';

export interface CalendarRecord extends CalendarEntry {
  readonly eventId: string;
}

const WEIGHT: Readonly<Record<Impact, number>> = { HOLIDAY: 1, NONE: 0, LOW: 1, MEDIUM: 2, HIGH: 3 };
const round = (n: number, digits = 4): number => Math.round(n * 10 ** digits) / 10 ** digits;

// ---- surprise index -------------------------------------------------------------------------------

export interface SurpriseComponent {
  readonly eventId: string;
  readonly title: string;
  readonly time: string;
  readonly impact: Impact;
  readonly actual: number;
  readonly forecast: number;
  readonly surprise: number;
  /** The surprise in standard deviations of the series' past surprises (±1 when there are fewer than two, or they do not vary). */
  readonly zScore: number;
}

export interface SurpriseIndex {
  readonly currency: string;
  /** The impact-weighted mean of the components' z-scores (HIGH 3, MEDIUM 2, LOW 1); 0 without components. */
  readonly index: number;
  readonly components: readonly SurpriseComponent[];
}

/**
 * The surprise index of each currency over the releases from `since` to `now`: each release with a
 * numeric actual and forecast gives surprise = actual - forecast, in standard deviations of the surprises
 * of the same series (currency and title) released before it, at most the last 24 (a series with fewer
 * than two before it, or none that vary, counts ±1 or 0 by the sign). Releases of every time are the
 * series' past: pass the whole history of the currencies asked for.
 */
export const surpriseIndex = (records: readonly CalendarRecord[], currencies: readonly string[], since: string, now: string): SurpriseIndex[] => {
  const released = records
    .filter((r) => r.time <= now && numericValue(r.actual) !== null && numericValue(r.forecast) !== null)
    .sort((a, b) => a.time.localeCompare(b.time));
  const past = new Map<string, number[]>();
  const components = new Map<string, SurpriseComponent[]>();
  for (const r of released) {
    const series = seriesOf(r);
    const surprise = numericValue(r.actual)! - numericValue(r.forecast)!;
    const before = past.get(series) ?? [];
    let z = Math.sign(surprise);
    if (before.length >= 2) {
      const mean = before.reduce((s, x) => s + x, 0) / before.length;
      const sd = Math.sqrt(before.reduce((s, x) => s + (x - mean) ** 2, 0) / (before.length - 1));
      if (sd > 0) z = surprise / sd;
    }
    past.set(series, [...before, surprise].slice(-24));
    if (r.time < since || !currencies.includes(r.currency) || r.impact === 'NONE' || r.impact === 'HOLIDAY') continue;
    const list = components.get(r.currency) ?? [];
    list.push({
      eventId: r.eventId,
      title: r.title,
      time: r.time,
      impact: r.impact,
      actual: numericValue(r.actual)!,
      forecast: numericValue(r.forecast)!,
      surprise: round(surprise, 6),
      zScore: round(z),
    });
    components.set(r.currency, list);
  }
  return currencies.map((currency) => {
    const list = components.get(currency) ?? [];
    const weight = list.reduce((s, c) => s + WEIGHT[c.impact], 0);
    return { currency, index: weight ? round(list.reduce((s, c) => s + c.zScore * WEIGHT[c.impact], 0) / weight) : 0, components: list };
  });
};

// ---- risk heatmap ---------------------------------------------------------------------------------

export interface HeatmapCell {
  readonly currency: string;
  /** YYYY-MM-DD (UTC). */
  readonly date: string;
  /** HIGH 3, MEDIUM 2, LOW 1, a holiday 1, summed over the day's events. */
  readonly score: number;
  readonly high: number;
  readonly medium: number;
  readonly low: number;
  readonly holidays: number;
  readonly eventIds: readonly string[];
}

/** One cell per currency and UTC day from `from` to `to` (YYYY-MM-DD), empty days with score 0. */
export const riskHeatmap = (records: readonly CalendarRecord[], currencies: readonly string[], from: string, to: string): HeatmapCell[] => {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return currencies.flatMap((currency) =>
    days.map((date) => {
      const of = records.filter((r) => r.currency === currency && r.time.slice(0, 10) === date);
      const count = (impact: Impact) => of.filter((r) => r.impact === impact).length;
      return {
        currency,
        date,
        score: of.reduce((s, r) => s + WEIGHT[r.impact], 0),
        high: count('HIGH'),
        medium: count('MEDIUM'),
        low: count('LOW'),
        holidays: count('HOLIDAY'),
        eventIds: of.map((r) => r.eventId),
      };
    }),
  );
};

// ---- rate outlook ---------------------------------------------------------------------------------

/** The titles of central banks' rate decisions in calendars (Federal Funds Rate, Main Refinancing Rate, Official Bank Rate ...). */
export const RATE_DECISION =
  /\b(funds rate|refinancing rate|deposit (facility )?rate|bank rate|cash rate|overnight rate|policy rate|interest rate decision|rate decision|libor target|policy balance rate)\b/i;

export interface RateOutlook {
  readonly currency: string;
  readonly centralBank: string | null;
  /** The rate of the last decision released (its actual), else the previous of the next; null when unknown. */
  readonly currentRate: number | null;
  readonly lastDecision: { readonly eventId: string; readonly title: string; readonly time: string; readonly actual: number | null } | null;
  readonly nextDecision: {
    readonly eventId: string;
    readonly title: string;
    readonly time: string;
    readonly forecast: number | null;
    readonly previous: number | null;
  } | null;
  /** The next decision's forecast minus the current rate, in percentage points; null when either is unknown. */
  readonly expectedChange: number | null;
  /** HIKE, CUT or HOLD by the expected change; UNKNOWN without one. */
  readonly bias: 'HIKE' | 'CUT' | 'HOLD' | 'UNKNOWN';
}

/** The rate outlook of each currency from the imported rate decisions (RATE_DECISION titles). */
export const rateOutlook = (records: readonly CalendarRecord[], currencies: readonly string[], now: string): RateOutlook[] =>
  currencies.map((currency) => {
    const decisions = records.filter((r) => r.currency === currency && RATE_DECISION.test(r.title)).sort((a, b) => a.time.localeCompare(b.time));
    const last = [...decisions].reverse().find((r) => r.time <= now && numericValue(r.actual) !== null) ?? null;
    const next = decisions.find((r) => r.time > now) ?? null;
    const currentRate = last ? numericValue(last.actual) : next ? numericValue(next.previous) : null;
    const forecast = next ? numericValue(next.forecast) : null;
    const expectedChange = currentRate !== null && forecast !== null ? round(forecast - currentRate) : null;
    return {
      currency,
      centralBank: MAJORS.find((m) => m.currency === currency)?.centralBank ?? null,
      currentRate,
      lastDecision: last ? { eventId: last.eventId, title: last.title, time: last.time, actual: numericValue(last.actual) } : null,
      nextDecision: next ? { eventId: next.eventId, title: next.title, time: next.time, forecast, previous: numericValue(next.previous) } : null,
      expectedChange,
      bias: expectedChange === null ? 'UNKNOWN' : expectedChange > 0 ? 'HIKE' : expectedChange < 0 ? 'CUT' : 'HOLD',
    };
  });
