// The marketplace, read from the features and accounts read models: the signal providers
// (FeatureSignalProviderDTO, an account feature) with makeVisibleInMarketplace, of accounts not deleted
// in projects not deleted. No table of its own: a provider is its feature's events, and a rebuild of
// those read models rebuilds the marketplace.
import { sql, type Kysely } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import { SIGNAL_PROVIDER_FEATURE } from '../../domain/market/ranking.js';
import type { FeatureSetting } from '../../domain/feature/events.js';
import { WHITE_LABEL } from '../../domain/whiteLabel/feature.js';
import type { ReadModels } from '../schema.js';

export interface MarketplaceProviderRow {
  readonly id: string;
  readonly project_id: string;
  readonly account_id: string;
  readonly setting: FeatureSetting;
  readonly created: Date;
  readonly updated: Date;
}

const visibleProviders = (db: Kysely<ReadModels>) =>
  db
    .selectFrom('features')
    .innerJoin('accounts', 'accounts.id', 'features.account_id')
    .innerJoin('projects', 'projects.id', 'features.project_id')
    .select(['features.id', 'features.project_id', 'accounts.id as account_id', 'features.setting', 'features.created', 'features.updated'])
    .where('features.scope_kind', '=', 'account')
    .where('features.type', '=', SIGNAL_PROVIDER_FEATURE)
    .where(sql<boolean>`(features.setting->>'makeVisibleInMarketplace')::boolean IS TRUE`)
    .whereRef('accounts.project_id', '=', 'features.project_id')
    .where('accounts.account_status_id', '<>', AccountStatus.Deleted)
    .where('projects.deleted', 'is', null);

export const marketplaceProviders = async (db: Kysely<ReadModels>): Promise<MarketplaceProviderRow[]> =>
  (await visibleProviders(db).orderBy('features.created').orderBy('features.id').execute()) as MarketplaceProviderRow[];

export const marketplaceProvider = async (db: Kysely<ReadModels>, providerId: string): Promise<MarketplaceProviderRow | undefined> =>
  (await visibleProviders(db).where('features.id', '=', providerId).executeTakeFirst()) as MarketplaceProviderRow | undefined;

/** The projects whose white label (FeatureWhiteLabelDTO) keeps their marketplace private: publicMarketplace false. */
export const privateMarketplaceProjects = async (db: Kysely<ReadModels>): Promise<Set<string>> =>
  new Set(
    (
      await db
        .selectFrom('features')
        .select('project_id')
        .where('scope_kind', '=', 'project')
        .where('type', '=', WHITE_LABEL)
        .where(sql<boolean>`(setting->>'publicMarketplace')::boolean IS FALSE`)
        .execute()
    ).map((r) => r.project_id),
  );
