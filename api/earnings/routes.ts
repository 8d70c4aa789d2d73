// A signal provider's money (spec "Operations known by path and purpose": GET
// /signals/{signalProviderId}/earnings, /signals/{signalProviderId}/followerCosts): computed from the
// earnings read model's facts by domain/earnings/earnings.ts, through app/earnings.ts.
import type { Static } from '@sinclair/typebox';
import { signalProviderEarnings, signalProviderFollowerCosts } from '../../app/earnings.js';
import type { Services } from '../../app/services.js';
import type { Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { toSignalFollowerCostDTO, toSignalProviderEarningsDTO } from './dto.js';
import { FollowerCostsQuery, SignalFollowerCostDTO, SignalProviderEarningsDTO, SignalProviderIdParams } from './schemas.js';

const TAG = 'Signals';

const WHO =
  "For the provider's own project: a project-level key of it, or the provider account's account-level key; anyone else gets 404 [SIGNAL_PROVIDER_NOT_FOUND]. A provider removed keeps its figures up to its removal. Nothing is charged here: these are the numbers and their details (payments come with invoices, issue 23).";

const RULES =
  "Months and days are the calendar's in the service's TIME_ZONE (UTC unless configured; a day is 23 or 25 hours when the clocks change). A follower is active on a day its subscription (its FeatureSignalFollowerDTO, from its addition to its removal) covers any part of. Subscription: each active day costs monthlySubscriptionFee / the month's days, at the fee in force at that day's end (or when the follower left); fees only go down, so a lowered fee applies from its day. Profit sharing: on the net result (profit + swap + commission) of the trades the follower's copier placed, closed in the month while it followed, at the profitSharingFee in force at the month's end (or when the follower left): MONTHLY_PROFIT the month's result when positive (a loss is not carried over); HIGH_WATERMARK the cumulative result since the subscription above the highest cumulative result of the earlier month-ends (0 to start), when positive. Computed in exact decimals; each part rounded once per follower and month to the cent, half up; totals add the rounded parts. Currency: the provider account's (currency); the fees are in it, and a follower whose account keeps another currency has each trade's result converted to it at the rate the copy engine read when it opened the copy (the rate its sizing used).";

export const earningsRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ signalProviderId: string }, unknown, unknown>({
    method: 'get',
    path: '/signals/{signalProviderId}/earnings',
    tag: TAG,
    operationId: 'getSignalProviderEarnings',
    summary: "The provider's earnings, monthly, with the charge of each follower",
    description: `${WHO}\n\n${RULES}`,
    params: SignalProviderIdParams,
    responses: { 200: { description: 'the earnings', schema: SignalProviderEarningsDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      const { facts, months, currency } = await signalProviderEarnings(services, caller, params.signalProviderId);
      return { body: toSignalProviderEarningsDTO(facts, months, currency, services.clock().toISOString()) };
    },
  });

  routes.add<{ signalProviderId: string }, Static<typeof FollowerCostsQuery>, unknown>({
    method: 'get',
    path: '/signals/{signalProviderId}/followerCosts',
    tag: TAG,
    operationId: 'getSignalProviderFollowerCosts',
    summary: "The followers' account costs the provider covers",
    description: `${WHO}\n\nEmpty (months []) unless the provider has coverFollowerCosts. Covered: per follower project, the first maxCoveredAccountsPerProject followers by subscription time (0 = all). Each covered follower costs its days active in the month (days of TIME_ZONE its subscription covers any part of) x the daily rate of a follower-day in the operator's price list (PRICE_LIST / PRICE_LIST_FILE: followerDaily, default 0.50; the answer's currency is the price list's, default USD). Followers that cost nothing, and months without cost, are not listed. month and year (both or neither; one alone gives 400) pick one month; without them, every month from the provider's creation to now.`,
    params: SignalProviderIdParams,
    query: FollowerCostsQuery,
    responses: { 200: { description: 'the covered costs', schema: SignalFollowerCostDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, query }) {
      const { facts, months, currency } = await signalProviderFollowerCosts(services, caller, params.signalProviderId, query.year, query.month);
      return { body: toSignalFollowerCostDTO(facts, months, currency) };
    },
  });
};
