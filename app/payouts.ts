// Payouts to signal providers (issue 23: "payouts to signal providers exported (PayoutDTO), never sent
// from here"). A signal provider whose project belongs to one of the brand's customers earns its
// followers' subscription and profit-sharing fees (domain/earnings/earnings.ts, as GET
// /signals/{signalProviderId}/earnings gives them); the brand collects from the followers and pays the
// provider itself. Here its operator records each customer's payout method (PayoutDTO: Wise e-mail
// addresses; an event of the customer's payout stream, domain/billing/payouts.ts; the signed-in customer
// may record its own the same way) and exports, for a month, what each provider earned and where to send it. Nothing is sent and no money moves.
import { providerEarnings, type Month } from '../domain/earnings/earnings.js';
import { payoutMethodDecider, payoutMethodStream } from '../domain/billing/payouts.js';
import { monthEndIn, monthIn, previousMonth } from '../domain/shared/calendarMonth.js';
import { invalid } from '../domain/shared/errors.js';
import { isEmailAddress } from '../domain/notification/targets.js';
import type { RequestContext } from '../domain/shared/command.js';
import { customersOfBrand, type CustomerRow } from '../projections/customers/queries.js';
import { moneyCurrencies } from '../projections/accounts/currency.js';
import { earningsFacts } from '../projections/earnings/queries.js';
import { payoutMethodsOfBrand } from '../projections/payouts/queries.js';
import { loadBrandOfProject } from './customers.js';
import { loadSignedIn } from './customersProjects.js';
import type { SignedInCustomer } from './customersSignIn.js';
import { brandCustomer } from './invoicesWhiteLabel.js';
import { commandMetadata, execute, type Services } from './services.js';

export const PAYOUT_READ_MODELS = ['payouts'];
export const MAX_WISE_EMAILS = 5;

/** Records the customer's payout method (replaces the earlier one); answers the addresses as kept. */
const recordPayoutMethod = async (services: Services, customer: CustomerRow, wiseEmails: readonly string[], context: RequestContext): Promise<string[]> => {
  const kept = [...new Set(wiseEmails.map((e) => e.trim().toLowerCase()))];
  const bad = kept.find((e) => !isEmailAddress(e));
  if (bad !== undefined) throw invalid('[VALIDATION_FAILED]', `wiseDetails: "${bad}" is no e-mail address`);
  if (kept.length > MAX_WISE_EMAILS) throw invalid('[VALIDATION_FAILED]', `wiseDetails: at most ${MAX_WISE_EMAILS} addresses`);
  const { customerId, brandFeatureId } = customer;
  await execute(
    services,
    payoutMethodStream(customerId),
    payoutMethodDecider,
    { type: 'SetPayoutMethod', data: { customerId, brandFeatureId, wiseEmails: kept }, metadata: commandMetadata(services, context) },
    PAYOUT_READ_MODELS,
  );
  return kept;
};

/** The brand's operator records the payout method of its customer `customerId` (404 for another brand's). */
export const setPayoutMethod = async (
  services: Services,
  projectId: string,
  featureId: string,
  customerId: number,
  wiseEmails: readonly string[],
  context: RequestContext,
): Promise<string[]> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  return recordPayoutMethod(services, await brandCustomer(services, brand, customerId), wiseEmails, context);
};

/** The signed-in customer records its own payout method, by the same rules as its operator. */
export const setOwnPayoutMethod = async (
  services: Services,
  who: SignedInCustomer,
  wiseEmails: readonly string[],
  context: RequestContext,
): Promise<string[]> => recordPayoutMethod(services, (await loadSignedIn(services, who)).customer, wiseEmails, context);

export interface Payout {
  readonly signalProviderId: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly customerId: number;
  readonly customerEmail: string;
  readonly month: Month;
  readonly subscriptionAmount: string;
  readonly profitSharingAmount: string;
  readonly total: string;
  readonly currency: string;
  /** The customer's Wise addresses; empty: the operator recorded none (nothing to send it to yet). */
  readonly wiseEmails: readonly string[];
  /** false: the month is still under way (its amount grows until it ends). */
  readonly monthEnded: boolean;
}

/** The last month that has ended in `zone` (TIME_ZONE) on the service's clock. */
export const lastEndedMonth = (now: Date, zone: string): Month => previousMonth(monthIn(now.getTime(), zone));

/**
 * What each signal provider of the brand's customers earned in `month` (the last ended month when none is
 * given), with the customer's payout method; providers that earned nothing are left out.
 */
export const brandPayouts = async (services: Services, projectId: string, featureId: string, month?: Month): Promise<Payout[]> => {
  const brand = await loadBrandOfProject(services, projectId, featureId);
  const now = services.clock();
  const zone = services.config.timeZone;
  const period = month ?? lastEndedMonth(now, zone);
  if (period.month < 1 || period.month > 12) throw invalid('[VALIDATION_FAILED]', 'month is 1 to 12');
  const customers = await customersOfBrand(services.db, brand.featureId);
  const owner = new Map(customers.flatMap((c) => c.projectIds.map((p) => [p, c] as const)));
  if (owner.size === 0) return [];
  const methods = await payoutMethodsOfBrand(services.db, brand.featureId);
  const providers = await services.db
    .selectFrom('earnings_providers')
    .select(['id', 'account_id'])
    .where('project_id', 'in', [...owner.keys()])
    .orderBy('created')
    .orderBy('id')
    .execute();
  const monthEnded = monthEndIn(period, zone) <= now.getTime();
  const out: Payout[] = [];
  // Each payout is in its provider account's currency, as its earnings are.
  const currencyOf = await moneyCurrencies(
    services.db,
    providers.map((p) => p.account_id),
  );
  for (const { id } of providers) {
    const facts = await earningsFacts(services.db, id);
    if (!facts) continue;
    const [earned] = providerEarnings(facts.terms, facts.followers, facts.trades, [period], now.toISOString(), zone);
    if (!earned || Number(earned.total) <= 0) continue;
    const customer = owner.get(facts.projectId)!;
    out.push({
      signalProviderId: id,
      accountId: facts.accountId,
      projectId: facts.projectId,
      customerId: customer.customerId,
      customerEmail: customer.email,
      month: period,
      subscriptionAmount: earned.subscriptionAmount,
      profitSharingAmount: earned.profitSharingAmount,
      total: earned.total,
      currency: currencyOf(facts.accountId),
      wiseEmails: methods.get(customer.customerId) ?? [],
      monthEnded,
    });
  }
  return out;
};
