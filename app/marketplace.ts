// The marketplace's reads (domain/market/ranking.ts says what is listed and in which order). Open to
// every key of every project: the providers listed chose to be seen. Scores are computed by the caller
// from each provider account as GET /accounts/{accountId}/performanceMetrics computes them.
import { checkProviderHistoryPublic } from '../domain/market/ranking.js';
import { notFound } from '../domain/shared/errors.js';
import { findAccount } from '../projections/accounts/queries.js';
import { closedTradesBetween } from '../projections/history/queries.js';
import { marketplaceProvider, marketplaceProviders } from '../projections/market/queries.js';
import type { Services } from './services.js';

/** Every provider in the marketplace with its account's row (for its metrics), oldest first. */
export const marketplaceListing = async (services: Services) => {
  const out = [];
  for (const provider of await marketplaceProviders(services.db)) {
    const account = await findAccount(services.db, provider.project_id, provider.account_id);
    if (account) out.push({ provider, account });
  }
  return out;
};

/** A listed provider's closed trades between start and stop, while it makes its history public. */
export const marketplaceProviderHistory = async (services: Services, providerId: string, start: string, stop: string) => {
  const provider = await marketplaceProvider(services.db, providerId);
  if (!provider) throw notFound('[SIGNAL_PROVIDER_NOT_FOUND]', `signal provider ${providerId} is not in the marketplace`);
  checkProviderHistoryPublic(providerId, provider.setting);
  return closedTradesBetween(services.db, provider.account_id, start, stop);
};
