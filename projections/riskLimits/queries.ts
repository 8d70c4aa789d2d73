// Queries of the risk limits read model.
import type { Kysely } from 'kysely';
import { OVERALL_TARGET_TYPE } from '../../domain/profitTarget/features.js';
import type { RiskLimitSettings } from '../../domain/riskLimit/settings.js';
import type { ReadModels } from '../schema.js';

const PROFIT_TARGET_FEATURE_TYPES = [
  'FeatureDailyProfitTargetDTO',
  'FeatureWeeklyProfitTargetDTO',
  'FeatureMonthlyProfitTargetDTO',
  OVERALL_TARGET_TYPE,
] as const;

export interface RiskLimitRow {
  readonly id: string;
  readonly project_id: string;
  readonly account_id: string;
  readonly copier_id: string | null;
  readonly settings: RiskLimitSettings;
  readonly active: boolean;
  readonly created: Date;
  readonly updated: Date;
}

export const riskLimitsOf = (db: Kysely<ReadModels>, projectId: string, accountId: string): Promise<RiskLimitRow[]> =>
  db
    .selectFrom('risk_limits')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('account_id', '=', accountId)
    .orderBy('created')
    .orderBy('id')
    .execute() as Promise<RiskLimitRow[]>;

export const findRiskLimit = (db: Kysely<ReadModels>, projectId: string, accountId: string, riskLimitId: string): Promise<RiskLimitRow | undefined> =>
  db
    .selectFrom('risk_limits')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('account_id', '=', accountId)
    .where('id', '=', riskLimitId)
    .executeTakeFirst() as Promise<RiskLimitRow | undefined>;

/** Every active limit, for the protection monitor. */
export const activeRiskLimits = (db: Kysely<ReadModels>): Promise<RiskLimitRow[]> =>
  db.selectFrom('risk_limits').selectAll().where('active', '=', true).orderBy('created').orderBy('id').execute() as Promise<RiskLimitRow[]>;

/** Every limit of an account (its project already checked), oldest first. */
export const riskLimitsOfAccount = (db: Kysely<ReadModels>, accountId: string): Promise<RiskLimitRow[]> =>
  db.selectFrom('risk_limits').selectAll().where('account_id', '=', accountId).orderBy('created').orderBy('id').execute() as Promise<RiskLimitRow[]>;

/** The account's profit target features (as the protection monitor reads them from the features read model), oldest first. */
export const profitTargetFeaturesOf = (db: Kysely<ReadModels>, accountId: string) =>
  db
    .selectFrom('features')
    .select(['id', 'type', 'setting'])
    .where('scope_kind', '=', 'account')
    .where('account_id', '=', accountId)
    .where('type', 'in', [...PROFIT_TARGET_FEATURE_TYPES])
    .orderBy('created')
    .orderBy('id')
    .execute();
