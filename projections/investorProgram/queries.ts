// The investor program, read from the features and accounts read models: the approved traders (accounts
// carrying FeatureTraderDTO, not deleted, of a project not deleted) and the investor accounts
// (FeatureInvestorDTO) of a project. No table of its own: the roles are features, and a rebuild of those
// read models rebuilds the program.
import type { Kysely } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import { INVESTOR_FEATURE, TRADER_FEATURE, type TraderSettings } from '../../domain/investor/features.js';
import type { ReadModels } from '../schema.js';

export interface TraderRow {
  /** The trader id: its FeatureTraderDTO's id. */
  readonly trader_id: string;
  readonly setting: TraderSettings & { readonly type: string };
  readonly since: Date;
  readonly project_id: string;
  readonly account_id: string;
}

const traders = (db: Kysely<ReadModels>) =>
  db
    .selectFrom('features')
    .innerJoin('accounts', 'accounts.id', 'features.account_id')
    .innerJoin('projects', 'projects.id', 'features.project_id')
    .select(['features.id as trader_id', 'features.setting', 'features.created as since', 'features.project_id', 'accounts.id as account_id'])
    .where('features.scope_kind', '=', 'account')
    .where('features.type', '=', TRADER_FEATURE)
    .whereRef('accounts.project_id', '=', 'features.project_id')
    .where('accounts.account_status_id', '<>', AccountStatus.Deleted)
    .where('projects.deleted', 'is', null);

/** Every approved trader of every project, oldest approval first. */
export const approvedTraders = async (db: Kysely<ReadModels>): Promise<TraderRow[]> =>
  (await traders(db).orderBy('features.created').orderBy('features.id').execute()) as TraderRow[];

export const approvedTrader = async (db: Kysely<ReadModels>, traderId: string): Promise<TraderRow | undefined> =>
  (await traders(db).where('features.id', '=', traderId).executeTakeFirst()) as TraderRow | undefined;

/** The project's accounts with the investor role (not deleted); with `accountId`, that account only. */
export const investorAccounts = async (db: Kysely<ReadModels>, projectId: string, accountId: string | null = null): Promise<string[]> => {
  let q = db
    .selectFrom('features')
    .innerJoin('accounts', 'accounts.id', 'features.account_id')
    .select('accounts.id')
    .where('features.project_id', '=', projectId)
    .where('features.scope_kind', '=', 'account')
    .where('features.type', '=', INVESTOR_FEATURE)
    .where('accounts.project_id', '=', projectId)
    .where('accounts.account_status_id', '<>', AccountStatus.Deleted);
  if (accountId !== null) q = q.where('accounts.id', '=', accountId);
  return (await q.execute()).map((r) => r.id);
};
