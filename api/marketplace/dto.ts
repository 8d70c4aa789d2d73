// A listed provider as MarketplaceSignalDTO: its feature as FeatureDTO shows it, public data only
// (domain/market/ranking.ts publicProviderSetting), with its rank and score.
import type { Static } from '@sinclair/typebox';
import type { PerformanceMetrics } from '../../domain/analytics/metrics.js';
import { membersOf } from '../../domain/feature/definition.js';
import { publicProviderSetting } from '../../domain/market/ranking.js';
import type { MarketplaceProviderRow } from '../../projections/market/queries.js';
import { toFeatureTypeDTO } from '../features/dto.js';
import { presentSetting } from '../features/settingHooks.js';
import type { MarketplaceSignalDTO } from './schemas.js';

export const toMarketplaceSignalDTO = (
  provider: MarketplaceProviderRow,
  /** null: the caller's brand hides the score (showScoreOnMarketplace false). */
  metrics: Pick<PerformanceMetrics, 'score' | 'scoreBreakdown'> | null,
  rank: number,
): Static<typeof MarketplaceSignalDTO> => ({
  id: provider.id,
  featureId: provider.id,
  type: toFeatureTypeDTO(provider.setting.type),
  setting: publicProviderSetting(membersOf<Record<string, unknown>>(presentSetting(provider.setting))),
  created: new Date(provider.created).toISOString(),
  updated: new Date(provider.updated).toISOString(),
  rank,
  ...(metrics ? { score: metrics.score, scoreBreakdown: metrics.scoreBreakdown } : {}),
});
