// A signal provider's earnings and the follower costs it covers (domain/earnings/earnings.ts), for the
// provider's own project only: a project-level key of it, or the provider account's account-level key;
// any other caller finds no provider (404 [SIGNAL_PROVIDER_NOT_FOUND]).
import { followerCosts, type Month, monthsBetween, providerEarnings } from '../domain/earnings/earnings.js';
import { invalid, notFound } from '../domain/shared/errors.js';
import { moneyCurrencies } from '../projections/accounts/currency.js';
import { earningsFacts } from '../projections/earnings/queries.js';
import type { Services } from './services.js';

export interface ProviderCaller {
  readonly projectId: string;
  readonly accountId: string | null;
}

const providerFacts = async (services: Services, caller: ProviderCaller, providerId: string) => {
  const facts = await earningsFacts(services.db, providerId);
  if (!facts || facts.projectId !== caller.projectId || (caller.accountId !== null && caller.accountId !== facts.accountId)) {
    throw notFound('[SIGNAL_PROVIDER_NOT_FOUND]', `signal provider ${providerId} not found`);
  }
  return facts;
};

/** From the provider's creation month to this month (or the month it was removed), months of TIME_ZONE. */
const monthsOf = (services: Services, facts: { created: string; removed: string | null }): Month[] =>
  monthsBetween(facts.created, facts.removed ?? services.clock().toISOString(), services.config.timeZone);

export const signalProviderEarnings = async (services: Services, caller: ProviderCaller, providerId: string) => {
  const facts = await providerFacts(services, caller, providerId);
  const { timeZone } = services.config;
  return {
    facts,
    /** The provider account's (recorded at its last connection): the fees' and the amounts' currency. */
    currency: (await moneyCurrencies(services.db, [facts.accountId]))(facts.accountId),
    months: providerEarnings(facts.terms, facts.followers, facts.trades, monthsOf(services, facts), services.clock().toISOString(), timeZone),
  };
};

/** One month when `year` and `month` are given (both or neither), else every month of the provider. */
export const signalProviderFollowerCosts = async (services: Services, caller: ProviderCaller, providerId: string, year?: number, month?: number) => {
  if ((year === undefined) !== (month === undefined)) throw invalid('[VALIDATION_FAILED]', 'month and year go together: give both or neither');
  const facts = await providerFacts(services, caller, providerId);
  const months = year !== undefined && month !== undefined ? [{ year, month }] : monthsOf(services, facts);
  // The price of a covered follower-day is the operator's (PRICE_LIST / PRICE_LIST_FILE), in its currency.
  const { followerDaily, currency } = services.config.priceList;
  return {
    facts,
    currency,
    months: followerCosts(facts.terms, facts.followers, months, followerDaily, services.clock().toISOString(), services.config.timeZone),
  };
};
