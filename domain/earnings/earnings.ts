// A signal provider's earnings and the follower costs it covers (spec: GET /signals/{signalProviderId}/
// earnings "monthly, with charge details", /followerCosts "daily rate x days active; empty unless
// coverFollowerCosts; followers that cost nothing are not listed"; issue 19 "Money"). Computed from
// facts the events give (the provider's fees as they changed, each follower's subscription, the results
// of the trades its copier placed), exactly, in decimals (decimal.js through domain/shared/decimal.ts),
// so a rebuild of the read model gives the same numbers. No payment is taken here (issue 23: invoices).
//
// The rules (the spec gives the parts, not the arithmetic; these are ours):
// - Months and days are calendar months and days in the service's TIME_ZONE (UTC unless configured;
//   domain/shared/calendarMonth.ts): a day may be 23 or 25 hours when the clocks change.
// - A follower is active on a day when its subscription (FeatureSignalFollowerDTO added, until removed)
//   covers any part of that day: days active in a month count those days, up to today (the month under
//   way counts the days so far, not the days to come).
// - Subscription: each active day costs monthlySubscriptionFee / days of the month, at the fee in force
//   at the end of that day (or when the follower left, if it left that day); fees only go down, so a
//   lowered fee applies from the day it was lowered.
// - Profit sharing: on the net result (profit + swap + commission) of the follower's trades its copier
//   placed, closed in the month while it followed, at the profitSharingFee (percent) in force at the
//   month's end (or when the follower left):
//     MONTHLY_PROFIT: the month's net result when positive, else nothing (a loss is not carried over);
//     HIGH_WATERMARK: the cumulative net result since the subscription, above the highest cumulative
//     result of the earlier month-ends (starting at 0), when positive; that high-water mark then rises.
// - Amounts are rounded once, per follower and part, to cents, half up; totals add the rounded amounts.
// - Follower costs (coverFollowerCosts only): each covered follower's days active x the daily rate
//   (the operator's price list, app/priceList.ts followerDaily, in its currency). Covered: per follower project,
//   the first maxCoveredAccountsPerProject followers by subscription time (0 = all). A follower that
//   costs nothing in a month (no active day, not covered) is not listed.
import { Decimal, ZERO } from '../shared/decimal.js';
import { type CalendarDay, daysOfMonth, monthEndIn, monthIn, type Month, monthStartIn } from '../shared/calendarMonth.js';

export type BillingModel = 'MONTHLY_PROFIT' | 'HIGH_WATERMARK';

export interface FeeChange {
  readonly at: string;
  /** Decimal text, as the event carried the number. */
  readonly monthlySubscriptionFee: string;
  readonly profitSharingFee: string;
}

export interface ProviderTerms {
  readonly billingModel: BillingModel;
  readonly coverFollowerCosts: boolean;
  readonly maxCoveredAccountsPerProject: number;
  /** Oldest first; the first is the creation. */
  readonly fees: readonly FeeChange[];
}

export interface FollowerPeriod {
  readonly followerId: string;
  readonly projectId: string;
  readonly accountId: string;
  readonly subscribed: string;
  readonly removed: string | null;
}

export interface FollowerTrade {
  readonly followerId: string;
  readonly closeTime: string;
  /** profit + swap + commission, decimal text. */
  readonly result: string;
}

export type { Month } from '../shared/calendarMonth.js';

export interface FollowerCharge {
  readonly followerId: string;
  readonly accountId: string;
  readonly daysActive: number;
  readonly subscriptionAmount: string;
  readonly closedTradeResult: string;
  readonly highWaterMark: string;
  readonly profitBase: string;
  readonly profitSharingFee: string;
  readonly profitSharingAmount: string;
  readonly total: string;
}

export interface MonthlyEarnings extends Month {
  readonly subscriptionAmount: string;
  readonly profitSharingAmount: string;
  readonly total: string;
  readonly followers: readonly FollowerCharge[];
}

export interface FollowerCost {
  readonly followerId: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly daysActive: number;
  readonly dailyRate: string;
  readonly amount: string;
}

export interface MonthlyFollowerCosts extends Month {
  readonly total: string;
  readonly followers: readonly FollowerCost[];
}

const cents = (value: Decimal): Decimal => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
const text = (value: Decimal): string => cents(value).toFixed(2);

/** Oldest first. */
const inOrder = (months: readonly Month[]): Month[] => [...months].sort((a, b) => a.year - b.year || a.month - b.month);

/** Every month (in `zone`) from `from`'s to `to`'s, both included. */
export const monthsBetween = (from: string, to: string, zone = 'UTC'): Month[] => {
  const out: Month[] = [];
  let m = monthIn(from, zone);
  const last = monthIn(to, zone);
  while (m.year < last.year || (m.year === last.year && m.month <= last.month)) {
    out.push(m);
    m = m.month === 12 ? { year: m.year + 1, month: 1 } : { year: m.year, month: m.month + 1 };
  }
  return out;
};

/** The fees in force at `instant` (ms): the last change at or before it, else the first. */
const feesAt = (terms: ProviderTerms, instant: number): FeeChange => {
  let current = terms.fees[0]!;
  for (const change of terms.fees) if (Date.parse(change.at) <= instant) current = change;
  return current;
};

const leftAt = (f: FollowerPeriod): number => (f.removed === null ? Number.POSITIVE_INFINITY : Date.parse(f.removed));

/** Each day of `m` in `zone` on which the follower was subscribed, up to `now` (ms): days to come are not active yet. */
const activeDays = (f: FollowerPeriod, m: Month, now: number, zone: string): CalendarDay[] => {
  const from = Date.parse(f.subscribed);
  const until = Math.min(leftAt(f), now);
  return daysOfMonth(m, zone).filter((day) => from < day.end && until > day.start);
};

const sum = (values: readonly Decimal[]): Decimal => values.reduce((a, b) => a.plus(b), ZERO);

/** The provider's earnings for each of `months`, with a charge detail per follower that owes something or was active. */
export const providerEarnings = (
  terms: ProviderTerms,
  followers: readonly FollowerPeriod[],
  trades: readonly FollowerTrade[],
  months: readonly Month[],
  /** ISO time: days after it are not counted (the month under way counts up to today). Omitted: no end. */
  now?: string,
  /** Where days and months begin (the service's TIME_ZONE). */
  zone = 'UTC',
): MonthlyEarnings[] => {
  const end = now === undefined ? Number.POSITIVE_INFINITY : Date.parse(now);
  const marks = new Map<string, Decimal>(); // HIGH_WATERMARK: per follower, the highest cumulative result of a month-end
  const cumulative = new Map<string, Decimal>();
  const out: MonthlyEarnings[] = [];
  for (const m of inOrder(months)) {
    const [monthStart, monthEnd] = [monthStartIn(m, zone), monthEndIn(m, zone)];
    const daysIn = daysOfMonth(m, zone).length;
    const details: FollowerCharge[] = [];
    for (const f of followers) {
      const days = activeDays(f, m, end, zone);
      const until = leftAt(f);
      // One division, last: the day's fees added exactly, then over the days of the month.
      const subscription = sum(days.map((day) => new Decimal(feesAt(terms, Math.min(day.end - 1, until)).monthlySubscriptionFee))).div(daysIn);
      const inMonth = trades.filter((t) => {
        const at = Date.parse(t.closeTime);
        return t.followerId === f.followerId && at >= monthStart && at < monthEnd && at >= Date.parse(f.subscribed) && at < until;
      });
      const result = sum(inMonth.map((t) => new Decimal(t.result)));
      const mark = marks.get(f.followerId) ?? ZERO;
      const total = (cumulative.get(f.followerId) ?? ZERO).plus(result);
      cumulative.set(f.followerId, total);
      const base = terms.billingModel === 'HIGH_WATERMARK' ? Decimal.max(ZERO, total.minus(mark)) : Decimal.max(ZERO, result);
      if (terms.billingModel === 'HIGH_WATERMARK') marks.set(f.followerId, Decimal.max(mark, total));
      const percent = new Decimal(feesAt(terms, Math.min(monthEnd - 1, until)).profitSharingFee);
      const sharing = base.times(percent).div(100);
      if (days.length === 0 && inMonth.length === 0) continue;
      details.push({
        followerId: f.followerId,
        accountId: f.accountId,
        daysActive: days.length,
        subscriptionAmount: text(subscription),
        closedTradeResult: result.toFixed(),
        highWaterMark: terms.billingModel === 'HIGH_WATERMARK' ? mark.toFixed() : '0',
        profitBase: base.toFixed(),
        profitSharingFee: percent.toFixed(),
        profitSharingAmount: text(sharing),
        total: cents(subscription).plus(cents(sharing)).toFixed(2),
      });
    }
    const subscriptionAmount = sum(details.map((d) => new Decimal(d.subscriptionAmount)));
    const profitSharingAmount = sum(details.map((d) => new Decimal(d.profitSharingAmount)));
    out.push({
      ...m,
      subscriptionAmount: subscriptionAmount.toFixed(2),
      profitSharingAmount: profitSharingAmount.toFixed(2),
      total: subscriptionAmount.plus(profitSharingAmount).toFixed(2),
      followers: details,
    });
  }
  return out;
};

/** The followers whose costs the provider covers: per follower project, the first maxCoveredAccountsPerProject by subscription (0 = all). */
export const coveredFollowers = (terms: ProviderTerms, followers: readonly FollowerPeriod[]): FollowerPeriod[] => {
  if (!terms.coverFollowerCosts) return [];
  const byTime = [...followers].sort((a, b) => Date.parse(a.subscribed) - Date.parse(b.subscribed) || (a.followerId < b.followerId ? -1 : 1));
  const counted = new Map<string, number>();
  return byTime.filter((f) => {
    const n = (counted.get(f.projectId) ?? 0) + 1;
    counted.set(f.projectId, n);
    return terms.maxCoveredAccountsPerProject === 0 || n <= terms.maxCoveredAccountsPerProject;
  });
};

/** The costs the provider covers, per month: empty unless coverFollowerCosts; followers and months that cost nothing left out. */
export const followerCosts = (
  terms: ProviderTerms,
  followers: readonly FollowerPeriod[],
  months: readonly Month[],
  /** Decimal text: the price of a covered follower-day. */
  dailyRate: string,
  /** ISO time: days after it are not counted (the month under way counts up to today). Omitted: no end. */
  now?: string,
  /** Where days and months begin (the service's TIME_ZONE). */
  zone = 'UTC',
): MonthlyFollowerCosts[] => {
  const end = now === undefined ? Number.POSITIVE_INFINITY : Date.parse(now);
  const covered = coveredFollowers(terms, followers);
  const rate = new Decimal(dailyRate);
  const out: MonthlyFollowerCosts[] = [];
  for (const m of inOrder(months)) {
    const details: FollowerCost[] = [];
    for (const f of covered) {
      const days = activeDays(f, m, end, zone).length;
      const amount = rate.times(days);
      if (amount.isZero()) continue;
      details.push({
        followerId: f.followerId,
        accountId: f.accountId,
        projectId: f.projectId,
        daysActive: days,
        dailyRate: rate.toFixed(),
        amount: text(amount),
      });
    }
    if (details.length > 0) out.push({ ...m, total: sum(details.map((d) => new Decimal(d.amount))).toFixed(2), followers: details });
  }
  return out;
};
