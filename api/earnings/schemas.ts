// The earnings DTOs the spec names without showing their members (SignalProviderEarningsDTO,
// EarningsSummaryDTO, MonthlyEarningsDTO, FollowerChargeDetailDTO, SignalFollowerCostDTO,
// MonthlyFollowerCostDTO, FollowerCostDetailDTO: "days active, applied daily rate, amount"): ours.
// Amounts are computed in decimals and rounded to cents (domain/earnings/earnings.ts), then answered as
// JSON numbers.
import { Type } from '@sinclair/typebox';
import { Uuid } from '../shared/schemas.js';

const Amount = (description: string) => Type.Number({ description: `${description}; in the provider account's currency, to the cent` });
/** Follower costs are priced by the operator's price list, in its currency. */
const CostAmount = (description: string) =>
  Type.Number({ description: `${description}; in the price list's currency (SignalFollowerCostDTO.currency), to the cent` });

export const SignalProviderIdParams = Type.Object({ signalProviderId: Uuid }, { additionalProperties: false });

export const FollowerCostsQuery = Type.Object(
  {
    month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: '1 = January; with year' })),
    year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 9999, description: 'with month' })),
  },
  { additionalProperties: false },
);

export const FollowerChargeDetailDTO = Type.Object(
  {
    followerId: Type.String({ format: 'uuid', description: 'the FeatureSignalFollowerDTO id' }),
    accountId: Type.String({ format: 'uuid', description: "the follower's account (as /signals/{signalProviderId}/accounts/{accountId} names it)" }),
    daysActive: Type.Integer({ minimum: 0, description: 'days of the month (TIME_ZONE) on which it followed, for any part of the day' }),
    subscriptionAmount: Amount('monthlySubscriptionFee / days of the month for each active day, at the fee in force that day'),
    closedTradeResult: Type.Number({
      description:
        "net result (profit + swap + commission) of the trades the follower's copier placed, closed in the month while it followed; in the provider account's currency: a follower account in another currency has each trade's result converted at the rate the copy engine read when it opened the copy (one unit of the follower's currency in the provider's, the rate its sizing used), exactly, unrounded",
    }),
    highWaterMark: Type.Number({ description: 'HIGH_WATERMARK: the highest cumulative result of the earlier month-ends (0 to start); 0 with MONTHLY_PROFIT' }),
    profitBase: Type.Number({
      description:
        'what profit sharing applies to: the positive month result (MONTHLY_PROFIT), or the cumulative result above the high-water mark (HIGH_WATERMARK)',
    }),
    profitSharingFee: Type.Number({ description: "percent in force at the month's end (or when the follower left)" }),
    profitSharingAmount: Amount('profitBase x profitSharingFee / 100'),
    total: Amount('subscriptionAmount + profitSharingAmount'),
  },
  { $id: 'FollowerChargeDetailDTO', additionalProperties: false },
);

export const MonthlyEarningsDTO = Type.Object(
  {
    year: Type.Integer(),
    month: Type.Integer({ minimum: 1, maximum: 12 }),
    subscriptionAmount: Amount("the followers' subscription amounts"),
    profitSharingAmount: Amount("the followers' profit sharing amounts"),
    total: Amount('both'),
    followers: Type.Array(FollowerChargeDetailDTO, { description: 'followers active in the month or with a trade closed in it, by subscription' }),
  },
  { $id: 'MonthlyEarningsDTO', additionalProperties: false },
);

export const EarningsSummaryDTO = Type.Object(
  {
    subscriptionAmount: Amount('every month'),
    profitSharingAmount: Amount('every month'),
    total: Amount('every month'),
    activeFollowers: Type.Integer({ minimum: 0, description: 'followers subscribed now' }),
  },
  { $id: 'EarningsSummaryDTO', additionalProperties: false },
);

export const SignalProviderEarningsDTO = Type.Object(
  {
    signalProviderId: Uuid,
    currency: Type.String({
      description:
        "the provider account's currency, as its venue reported it on the account's last connection (USD for an account never connected); the fees are taken to be in it",
    }),
    billingModel: Type.String({ description: 'MONTHLY_PROFIT or HIGH_WATERMARK (set at creation)' }),
    summary: EarningsSummaryDTO,
    months: Type.Array(MonthlyEarningsDTO, { description: "from the provider's creation month to this month (or the month it was removed), oldest first" }),
  },
  { $id: 'SignalProviderEarningsDTO', additionalProperties: false },
);

export const FollowerCostDetailDTO = Type.Object(
  {
    followerId: Type.String({ format: 'uuid', description: 'the FeatureSignalFollowerDTO id' }),
    accountId: Type.String({ format: 'uuid', description: "the follower's account" }),
    daysActive: Type.Integer({ minimum: 1, description: 'days of the month (TIME_ZONE) on which it followed' }),
    appliedDailyRate: Type.Number({ description: "the price of a covered follower-day in the operator's price list (followerDaily), as configured" }),
    amount: CostAmount('daysActive x appliedDailyRate'),
  },
  { $id: 'FollowerCostDetailDTO', additionalProperties: false },
);

export const MonthlyFollowerCostDTO = Type.Object(
  {
    year: Type.Integer(),
    month: Type.Integer({ minimum: 1, maximum: 12 }),
    total: CostAmount('the amounts of the month'),
    followers: Type.Array(FollowerCostDetailDTO, { description: 'the covered followers that cost something in the month' }),
  },
  { $id: 'MonthlyFollowerCostDTO', additionalProperties: false },
);

export const SignalFollowerCostDTO = Type.Object(
  {
    signalProviderId: Uuid,
    coverFollowerCosts: Type.Boolean(),
    maxCoveredAccountsPerProject: Type.Integer({ minimum: 0, description: '0 = every follower account is covered' }),
    currency: Type.String({
      description: "the operator's price list's currency (PRICE_LIST: USD, EUR or CHF; default USD), which the daily rate and amounts are in",
    }),
    total: CostAmount('the months listed'),
    months: Type.Array(MonthlyFollowerCostDTO, { description: 'empty unless coverFollowerCosts; months that cost nothing are not listed' }),
  },
  { $id: 'SignalFollowerCostDTO', additionalProperties: false },
);
