// The marketplace (spec: GET /marketplace "marketplace listing"; the reference's getMarketplace answers
// MarketplaceDTO): the signal providers that chose makeVisibleInMarketplace, ranked by the score their
// performance metrics compute (domain/market/ranking.ts), and, ours, a listed provider's closed trades
// while it makes its history public.
import { type Static, Type } from '@sinclair/typebox';
import { SCORE_FORMULA } from '../../domain/analytics/score.js';
import { rankProviders } from '../../domain/market/ranking.js';
import { marketplaceListing, marketplaceProviderHistory } from '../../app/marketplace.js';
import type { Services } from '../../app/services.js';
import { toPublicHistoryPositionDTO } from '../investorProgram/dto.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { HistoryQuery, PositionDTO } from '../trading/schemas.js';
import { toMarketplaceSignalDTO } from './dto.js';
import { MarketplaceDTO, SignalProviderIdParams } from './schemas.js';

const TAG = 'Marketplace';

export const marketplaceRoutes = (routes: Routes, services: Services): void => {
  routes.add<unknown, unknown, unknown>({
    method: 'get',
    path: '/marketplace',
    tag: TAG,
    operationId: 'getMarketplace',
    summary: 'The signal providers in the marketplace, best score first',
    description: `Every signal provider (FeatureSignalProviderDTO on an account) whose makeVisibleInMarketplace is true, of any project, for any key (account-level keys too): a provider that is not visible (isPublic alone included), removed, or whose account or project is deleted is not listed. Ordered by score, highest first: the score of GET /accounts/{accountId}/performanceMetrics for the provider's account over its whole history (the same computation, from the facts the marketplace read model keeps per provider: a trade counts once the read models have it); equal scores by the sum of scoreBreakdown's points and penalties, then the older provider, then the id. Each entry is the provider's FeatureDTO with public data only (no accountId, copierId or projectId; allowCustomers and subscribers empty, no customerId, the copier without its id, accounts and strategies) and, ours, rank, score and scoreBreakdown. The caller's brand applies: the white label (FeatureWhiteLabelDTO) on the caller's project (a brand's project), or, for a project of a brand's customer, that brand's (customer projects inherit their brand's settings). With showScoreOnMarketplace false (its default) score and scoreBreakdown are left out (the order and rank stay the score's); a brand with publicMarketplace false lists the providers of its projects (its own and its customers') to its projects only (other projects' marketplaces leave them out, and their history is not found). A project of no brand is the operator's: scores shown, every visible provider of a public brand listed.\n\n${SCORE_FORMULA}`,
    responses: { 200: { description: 'the marketplace', schema: MarketplaceDTO }, ...errorResponses(401) },
    async handler({ caller }) {
      const { listed, brand } = await marketplaceListing(services, caller.projectId);
      const scored = listed.map(({ provider, score, scoreBreakdown }) => ({
        provider,
        id: provider.id,
        created: new Date(provider.created).toISOString(),
        score,
        scoreBreakdown,
      }));
      return { body: { signals: rankProviders(scored).map((p, i) => toMarketplaceSignalDTO(p.provider, brand.showScore ? p : null, i + 1)) } };
    },
  });

  routes.add<{ signalProviderId: string }, Static<typeof HistoryQuery>, unknown>({
    method: 'get',
    path: '/marketplace/{signalProviderId}/history/positions',
    tag: TAG,
    operationId: 'getMarketplaceSignalHistoryPositions',
    summary: "A listed provider's closed positions between start and stop",
    description:
      'Ours (the spec\'s /signals/{signalProviderId}/history/positions is the provider\'s own view): for any key, the closed trades of a provider GET /marketplace lists to the caller, from the history read model (one entry per closed volume, by close time), without comment, magic number and client order id ("", "0", ""). Only while the provider\'s makeHistoryPublic is true: otherwise 403 [SIGNAL_HISTORY_NOT_PUBLIC]; a provider not listed gives 404 [SIGNAL_PROVIDER_NOT_FOUND]. start and stop are required; start after stop gives 400.',
    params: SignalProviderIdParams,
    query: HistoryQuery,
    responses: { 200: { description: 'closed positions', schema: Type.Array(PositionDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, query, caller }) {
      if (Date.parse(query.start) > Date.parse(query.stop)) throw new ApiError(400, '[VALIDATION_FAILED]', 'start must not be after stop');
      const trades = await marketplaceProviderHistory(
        services,
        caller.projectId,
        params.signalProviderId,
        new Date(query.start).toISOString(),
        new Date(query.stop).toISOString(),
      );
      return { body: trades.map(toPublicHistoryPositionDTO) };
    },
  });
};
