// The marketplace's reads (domain/market/ranking.ts says what is listed and in which order). Open to
// every key of every project: the providers listed chose to be seen, except those of a brand whose white
// label keeps its marketplace private (publicMarketplace false: its own project sees them, no other).
// Scores are computed by the caller from each provider account as GET /accounts/{accountId}/
// performanceMetrics computes them, and answered unless the caller's brand hides them (showScoreOnMarketplace).
import { checkProviderHistoryPublic } from '../domain/market/ranking.js';
import { notFound } from '../domain/shared/errors.js';
import { findAccount } from '../projections/accounts/queries.js';
import { closedTradesBetween } from '../projections/history/queries.js';
import { projectFeatureRows } from '../projections/features/queries.js';
import { type MarketplaceProviderRow, marketplaceProvider, marketplaceProviders, privateMarketplaceProjects } from '../projections/market/queries.js';
import { WHITE_LABEL } from '../domain/whiteLabel/feature.js';
import type { Services } from './services.js';

/**
 * What a brand's white label (FeatureWhiteLabelDTO, a project feature) says of the marketplace, for the
 * project it is attached to (the brand's project). A project without one is the operator's own: scores
 * shown, marketplace public. The brand of a customer's project (issue 23's customers) is not joined here.
 */
export interface MarketplaceBrand {
  /** showScoreOnMarketplace (default false with a white label; the operator's own marketplace shows it). */
  readonly showScore: boolean;
}

const brandOf = async (services: Services, projectId: string): Promise<MarketplaceBrand> => {
  const brand = (await projectFeatureRows(services.db, projectId)).find((r) => r.type === WHITE_LABEL);
  if (!brand) return { showScore: true };
  return { showScore: (brand.setting as { showScoreOnMarketplace?: unknown }).showScoreOnMarketplace === true };
};

/** Whether `projectId` may see a listed provider: a brand with publicMarketplace false shows its providers to its own project only. */
const seenBy = (privateBrands: ReadonlySet<string>, provider: MarketplaceProviderRow, projectId: string): boolean =>
  provider.project_id === projectId || !privateBrands.has(provider.project_id);

/** Every provider in the marketplace the project may see, with its account's row (for its metrics), oldest first; and the project's brand. */
export const marketplaceListing = async (services: Services, projectId: string) => {
  const privateBrands = await privateMarketplaceProjects(services.db);
  const out = [];
  for (const provider of await marketplaceProviders(services.db)) {
    if (!seenBy(privateBrands, provider, projectId)) continue;
    const account = await findAccount(services.db, provider.project_id, provider.account_id);
    if (account) out.push({ provider, account });
  }
  return { listed: out, brand: await brandOf(services, projectId) };
};

/** A listed provider's closed trades between start and stop, while it makes its history public. */
export const marketplaceProviderHistory = async (services: Services, projectId: string, providerId: string, start: string, stop: string) => {
  const provider = await marketplaceProvider(services.db, providerId);
  if (!provider || !seenBy(await privateMarketplaceProjects(services.db), provider, projectId)) {
    throw notFound('[SIGNAL_PROVIDER_NOT_FOUND]', `signal provider ${providerId} is not in the marketplace`);
  }
  checkProviderHistoryPublic(providerId, provider.setting);
  return closedTradesBetween(services.db, provider.account_id, start, stop);
};
