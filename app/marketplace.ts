// The marketplace's reads (domain/market/ranking.ts says what is listed and in which order). Open to
// every key of every project: the providers listed chose to be seen, except those of a brand whose white
// label keeps its marketplace private (publicMarketplace false: the brand's project and its customers'
// projects see them, no other). A customer's project takes its brand's settings.
// Scores are those GET /accounts/{accountId}/performanceMetrics computes over the provider account's
// whole history, from the facts the marketplace read model keeps per provider (projections/marketplace)
// and the account's own (live while its venue says so, prop firm), and answered unless the caller's brand
// hides them (showScoreOnMarketplace).
import { scoreOfKept } from '../domain/analytics/metrics.js';
import { checkProviderHistoryPublic } from '../domain/market/ranking.js';
import { notFound } from '../domain/shared/errors.js';
import { findAccount } from '../projections/accounts/queries.js';
import { closedTradesBetween } from '../projections/history/queries.js';
import { marketplaceProvider, marketplaceProviders } from '../projections/market/queries.js';
import { keptScoresOf } from '../projections/marketplace/queries.js';
import { brandFeatureOfProject } from '../projections/customers/queries.js';
import { type Brand, brandById } from './customers.js';
import type { Services } from './services.js';

/**
 * What a brand's white label (FeatureWhiteLabelDTO, a project feature) says of the marketplace, for the
 * projects of the brand: the brand's own project (the one the white label is attached to) and every
 * project of the brand's customers (customer_projects), which inherit it. A project of neither is the
 * operator's own: scores shown, marketplace public.
 */
export interface MarketplaceBrand {
  /** showScoreOnMarketplace (default false with a white label; the operator's own marketplace shows it). */
  readonly showScore: boolean;
  /** The projects that see each other's providers whatever publicMarketplace says: the brand's (its project id), or the project alone. */
  readonly circle: string;
  /** publicMarketplace false: the circle's providers are listed to the circle only. */
  readonly private: boolean;
}

/** The white label of a brand's project, or of the brand of the customer owning the project. */
const brandOfProject = async (services: Services, projectId: string): Promise<Brand | undefined> => {
  const featureId = await brandFeatureOfProject(services.db, projectId);
  return featureId === undefined ? undefined : brandById(services, featureId);
};

export const marketplaceBrandOf = async (services: Services, projectId: string): Promise<MarketplaceBrand> => {
  const brand = await brandOfProject(services, projectId);
  if (!brand) return { showScore: true, circle: projectId, private: false };
  return { showScore: brand.settings.showScoreOnMarketplace === true, circle: brand.projectId, private: brand.settings.publicMarketplace === false };
};

/** Whether a caller of `caller`'s circle may see a provider of `owner`'s: a private brand's circle keeps its providers to itself. */
const seenBy = (owner: MarketplaceBrand, caller: MarketplaceBrand): boolean => owner.circle === caller.circle || !owner.private;

/** The brands of the provider projects, each looked up once. */
const brandsOf = (services: Services) => {
  const known = new Map<string, Promise<MarketplaceBrand>>();
  return (projectId: string): Promise<MarketplaceBrand> => {
    let brand = known.get(projectId);
    if (!brand) known.set(projectId, (brand = marketplaceBrandOf(services, projectId)));
    return brand;
  };
};

/** Every provider in the marketplace the project may see, with its score, oldest first; and the project's brand. */
export const marketplaceListing = async (services: Services, projectId: string) => {
  const brand = await marketplaceBrandOf(services, projectId);
  const brandOf = brandsOf(services);
  const seen = [];
  for (const provider of await marketplaceProviders(services.db)) {
    if (seenBy(await brandOf(provider.project_id), brand)) seen.push(provider);
  }
  const kept = await keptScoresOf(
    services.db,
    seen.map((p) => p.id),
  );
  const out = [];
  for (const provider of seen) {
    const account = await findAccount(services.db, provider.project_id, provider.account_id);
    if (!account) continue;
    // As performanceMetrics: live only while the venue connection reports a live account.
    const info = await services.connections.connection(account.id)?.accountInformation();
    const live = info?.environment === 'LIVE';
    out.push({ provider, ...scoreOfKept(kept.get(provider.id)!, { live, propFirm: account.prop_firm }, services.config.timeZone) });
  }
  return { listed: out, brand };
};

/** A listed provider's closed trades between start and stop, while it makes its history public. */
export const marketplaceProviderHistory = async (services: Services, projectId: string, providerId: string, start: string, stop: string) => {
  const provider = await marketplaceProvider(services.db, providerId);
  if (!provider || !seenBy(await marketplaceBrandOf(services, provider.project_id), await marketplaceBrandOf(services, projectId))) {
    throw notFound('[SIGNAL_PROVIDER_NOT_FOUND]', `signal provider ${providerId} is not in the marketplace`);
  }
  checkProviderHistoryPublic(providerId, provider.setting);
  return closedTradesBetween(services.db, provider.account_id, start, stop);
};
