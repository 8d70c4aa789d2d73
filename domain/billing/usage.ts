// Usage and its price (issue 23 "Usage metered from events: account-days by type, features with a daily
// price, STANDARD/PRO AI tiers billed daily, follower costs covered by providers"), computed from the
// facts the billing read model keeps (projections/billing) and the operator's price list
// (app/priceList.ts), exactly, in decimals, so a rebuild gives the same lines.
//
// The rules (neither document gives the arithmetic; these are ours, documented in the operations):
// - Days and months are the calendar's in the service's TIME_ZONE (domain/shared/calendarMonth.ts; UTC
//   unless configured), like a provider's earnings: a month's usage is what its local days touched.
// - A thing is used on a day when it existed for any part of that day: an account from its creation to
//   its deletion, a feature from its addition to its removal.
// - An account-day is priced by the account's type in force at the end of that day (or at its deletion).
// - A feature-day is priced by its DTO name (featureDaily; a feature not listed is free and not billed).
//   A FeatureMessagingConnectorDTO with aiTier STANDARD or PRO adds an AI-tier day at aiTierDaily
//   (spec: "BASIC (default model, no charge), STANDARD (enhanced, billed daily), PRO (premium, billed
//   daily); settable on creation only").
// - Follower costs a signal provider covers (coverFollowerCosts): the provider's project pays each
//   covered follower-day at followerDaily (domain/earnings followerCosts), and the follower's project is
//   credited the same amount for that follower's account (its account-days are the provider's to pay).
// - One line per account and price, per feature, per AI tier, per provider's covered followers and per
//   covered follower account: quantity (days) x unit price, rounded once to the cent, half up; a total
//   adds the rounded lines.
import { daysOfMonth, monthEndIn, type Month } from '../shared/calendarMonth.js';
import { Decimal, ZERO } from '../shared/decimal.js';

export type { Month } from '../shared/calendarMonth.js';
export { monthEndIn, monthIn, monthStartIn, nextMonth } from '../shared/calendarMonth.js';

export const DAY_MS = 86_400_000;

export interface AccountUsage {
  readonly accountId: string;
  readonly projectId: string;
  readonly alias: string | null;
  readonly created: string;
  readonly deleted: string | null;
  /** Oldest first; the first is the creation's. */
  readonly types: readonly { readonly at: string; readonly accountTypeId: number }[];
}

export interface FeatureUsage {
  readonly featureId: string;
  readonly projectId: string;
  /** The feature DTO's name (FeatureTypeDTO.name). */
  readonly featureDto: string;
  /** The messaging connector's aiTier; null for other features. */
  readonly aiTier: string | null;
  readonly added: string;
  readonly removed: string | null;
}

/** A covered follower's days in a month, as domain/earnings followerCosts gives them. */
export interface CoveredFollowerDays {
  readonly providerId: string;
  readonly providerProjectId: string;
  readonly followerId: string;
  readonly followerProjectId: string;
  readonly followerAccountId: string;
  readonly daysActive: number;
}

/** How usage is priced: the parts of the operator's price list that metering reads. */
export interface Prices {
  readonly currency: string;
  readonly accountDaily: (accountTypeId: number) => string;
  readonly featureDaily: (featureDto: string) => string | null;
  readonly aiTierDaily: (tier: string) => string | null;
  readonly followerDaily: string;
}

export type UsageLineKind = 'ACCOUNT' | 'FEATURE' | 'AI_TIER' | 'FOLLOWER_COSTS' | 'COVERED_BY_PROVIDER';

export interface UsageLine {
  readonly projectId: string;
  readonly kind: UsageLineKind;
  /** What is billed: the account, feature or signal provider id. */
  readonly subjectId: string;
  readonly description: string;
  /** Days. */
  readonly quantity: number;
  /** Decimal text, per day (negative for a credit). */
  readonly unitPrice: string;
  /** quantity x unitPrice, to the cent, half up; decimal text. */
  readonly amount: string;
}

export const cents = (value: Decimal): Decimal => value.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

export const monthText = (m: Month): string => `${m.year}-${String(m.month).padStart(2, '0')}`;

export const earlier = (a: Month, b: Month): boolean => a.year < b.year || (a.year === b.year && a.month < b.month);

/** Each day of `m` in `zone` that [from, until) touches, as its [start, end); `until` null: still running; days from `upTo` on left out. */
export const daysUsed = (m: Month, zone: string, from: string, until: string | null, upTo: number = monthEndIn(m, zone)): { start: number; end: number }[] => {
  const start = Date.parse(from);
  const end = until === null ? Number.POSITIVE_INFINITY : Date.parse(until);
  return daysOfMonth(m, zone).filter((day) => day.start < upTo && start < day.end && end > day.start);
};

const typeAt = (account: AccountUsage, instant: number): number => {
  let current = account.types[0]!.accountTypeId;
  for (const t of account.types) if (Date.parse(t.at) <= instant) current = t.accountTypeId;
  return current;
};

const line = (base: Omit<UsageLine, 'amount' | 'quantity' | 'unitPrice'>, quantity: number, unitPrice: string): UsageLine => ({
  ...base,
  quantity,
  unitPrice,
  amount: cents(new Decimal(unitPrice).times(quantity)).toFixed(2),
});

export interface UsageFacts {
  readonly accounts: readonly AccountUsage[];
  readonly features: readonly FeatureUsage[];
  readonly coveredFollowers: readonly CoveredFollowerDays[];
}

/**
 * The priced lines of `month` (in `zone`) for the projects whose facts are given, in a stable order (project, kind,
 * then time). `upTo` (ms) cuts the month short: the days before it only (the forecast's "so far").
 */
export const usageLines = (facts: UsageFacts, prices: Prices, month: Month, zone: string, upTo?: number): UsageLine[] => {
  const out: UsageLine[] = [];
  for (const a of [...facts.accounts].sort((x, y) => Date.parse(x.created) - Date.parse(y.created) || (x.accountId < y.accountId ? -1 : 1))) {
    const days = daysUsed(month, zone, a.created, a.deleted, upTo);
    const deleted = a.deleted === null ? Number.POSITIVE_INFINITY : Date.parse(a.deleted);
    // Days grouped by price, in the order the prices first appear.
    const byPrice = new Map<string, { typeId: number; days: number }>();
    for (const day of days) {
      const typeId = typeAt(a, Math.min(day.end - 1, deleted));
      const price = prices.accountDaily(typeId);
      const key = `${typeId}/${price}`;
      const entry = byPrice.get(key) ?? { typeId, days: 0 };
      entry.days += 1;
      byPrice.set(key, entry);
    }
    for (const [key, { typeId, days: n }] of byPrice) {
      const name = a.alias ? `"${a.alias}" (${a.accountId})` : a.accountId;
      out.push(
        line(
          { projectId: a.projectId, kind: 'ACCOUNT', subjectId: a.accountId, description: `Account ${name}, account type ${typeId}: account-days` },
          n,
          key.slice(key.indexOf('/') + 1),
        ),
      );
    }
  }
  const features = [...facts.features].sort((x, y) => Date.parse(x.added) - Date.parse(y.added) || (x.featureId < y.featureId ? -1 : 1));
  for (const f of features) {
    const price = prices.featureDaily(f.featureDto);
    if (price === null) continue;
    const n = daysUsed(month, zone, f.added, f.removed, upTo).length;
    if (n > 0)
      out.push(
        line({ projectId: f.projectId, kind: 'FEATURE', subjectId: f.featureId, description: `${f.featureDto} ${f.featureId}: feature-days` }, n, price),
      );
  }
  for (const f of features) {
    const price = f.aiTier === null ? null : prices.aiTierDaily(f.aiTier);
    if (price === null) continue;
    const n = daysUsed(month, zone, f.added, f.removed, upTo).length;
    if (n > 0)
      out.push(
        line(
          { projectId: f.projectId, kind: 'AI_TIER', subjectId: f.featureId, description: `AI tier ${f.aiTier} of ${f.featureDto} ${f.featureId}: days` },
          n,
          price,
        ),
      );
  }
  const byProvider = new Map<string, { projectId: string; days: number }>();
  for (const c of facts.coveredFollowers) {
    const entry = byProvider.get(c.providerId) ?? { projectId: c.providerProjectId, days: 0 };
    entry.days += c.daysActive;
    byProvider.set(c.providerId, entry);
  }
  for (const [providerId, { projectId, days }] of byProvider) {
    if (days > 0)
      out.push(
        line(
          { projectId, kind: 'FOLLOWER_COSTS', subjectId: providerId, description: `Follower costs covered by signal provider ${providerId}: follower-days` },
          days,
          prices.followerDaily,
        ),
      );
  }
  const credit = new Decimal(prices.followerDaily).negated().toFixed();
  for (const c of facts.coveredFollowers) {
    if (c.daysActive > 0)
      out.push(
        line(
          {
            projectId: c.followerProjectId,
            kind: 'COVERED_BY_PROVIDER',
            subjectId: c.providerId,
            description: `Account ${c.followerAccountId}: follower-days covered by signal provider ${c.providerId}`,
          },
          c.daysActive,
          credit,
        ),
      );
  }
  return out;
};

/** The sum of the (already rounded) lines' amounts, decimal text to the cent. */
export const totalOf = (lines: readonly { readonly amount: string }[]): string => lines.reduce((sum, l) => sum.plus(new Decimal(l.amount)), ZERO).toFixed(2);

/** Each line's amount recomputed from its quantity and unit price, and their total: what an invoice's details show. */
export const recompute = (lines: readonly UsageLine[]): { lines: UsageLine[]; total: string } => {
  const again = lines.map((l) => line(l, l.quantity, l.unitPrice));
  return { lines: again, total: totalOf(again) };
};
