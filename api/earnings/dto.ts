// The earnings DTOs from domain/earnings/earnings.ts's decimal text: cents as JSON numbers.
import type { Static } from '@sinclair/typebox';
import type { MonthlyEarnings, MonthlyFollowerCosts } from '../../domain/earnings/earnings.js';
import { Decimal, ZERO } from '../../domain/shared/decimal.js';
import type { EarningsFacts } from '../../projections/earnings/queries.js';
import type { SignalFollowerCostDTO, SignalProviderEarningsDTO } from './schemas.js';

const num = (text: string): number => Number(text);
const total = (values: readonly string[]): string => values.reduce((a, b) => a.plus(new Decimal(b)), ZERO).toFixed(2);

/** `currency`: the provider account's, which its fees and its followers' converted results are in. */
export const toSignalProviderEarningsDTO = (
  facts: EarningsFacts,
  months: readonly MonthlyEarnings[],
  currency: string,
  now: string,
): Static<typeof SignalProviderEarningsDTO> => ({
  signalProviderId: facts.providerId,
  currency,
  billingModel: facts.terms.billingModel,
  summary: {
    subscriptionAmount: num(total(months.map((m) => m.subscriptionAmount))),
    profitSharingAmount: num(total(months.map((m) => m.profitSharingAmount))),
    total: num(total(months.map((m) => m.total))),
    activeFollowers: facts.removed
      ? 0
      : facts.followers.filter((f) => Date.parse(f.subscribed) <= Date.parse(now) && (f.removed === null || Date.parse(f.removed) > Date.parse(now))).length,
  },
  months: months.map((m) => ({
    year: m.year,
    month: m.month,
    subscriptionAmount: num(m.subscriptionAmount),
    profitSharingAmount: num(m.profitSharingAmount),
    total: num(m.total),
    followers: m.followers.map((f) => ({
      followerId: f.followerId,
      accountId: f.accountId,
      daysActive: f.daysActive,
      subscriptionAmount: num(f.subscriptionAmount),
      closedTradeResult: num(f.closedTradeResult),
      highWaterMark: num(f.highWaterMark),
      profitBase: num(f.profitBase),
      profitSharingFee: num(f.profitSharingFee),
      profitSharingAmount: num(f.profitSharingAmount),
      total: num(f.total),
    })),
  })),
});

/** `currency`: the operator's price list's, which the daily rate is in. */
export const toSignalFollowerCostDTO = (
  facts: EarningsFacts,
  months: readonly MonthlyFollowerCosts[],
  currency: string,
): Static<typeof SignalFollowerCostDTO> => ({
  signalProviderId: facts.providerId,
  coverFollowerCosts: facts.terms.coverFollowerCosts,
  maxCoveredAccountsPerProject: facts.terms.maxCoveredAccountsPerProject,
  currency,
  total: num(total(months.map((m) => m.total))),
  months: months.map((m) => ({
    year: m.year,
    month: m.month,
    total: num(m.total),
    followers: m.followers.map((f) => ({
      followerId: f.followerId,
      accountId: f.accountId,
      daysActive: f.daysActive,
      appliedDailyRate: num(f.dailyRate),
      amount: num(f.amount),
    })),
  })),
});
