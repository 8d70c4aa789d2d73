import type { Kysely } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import type { ProjectSettings } from '../../domain/project/settings.js';
import type { ReadModels } from '../schema.js';

/** The account feature that makes an account a trader of the investor program (spec "Feature DTOs"). */
export const TRADER_FEATURE = 'FeatureTraderDTO';

export interface ProjectRow {
  readonly id: string;
  readonly name: string;
  readonly owner: string | null;
  readonly settings: ProjectSettings;
  readonly dedicated: boolean;
  readonly created: Date;
  readonly updated: Date;
  /** When the project was deleted; null while it is not. */
  readonly deleted: Date | null;
}

export const findProject = (db: Kysely<ReadModels>, projectId: string): Promise<ProjectRow | undefined> =>
  db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst() as Promise<ProjectRow | undefined>;

/** Every project, deleted ones too, oldest first (the operator's list). */
export const listProjects = (db: Kysely<ReadModels>): Promise<ProjectRow[]> =>
  db.selectFrom('projects').selectAll().orderBy('created').orderBy('id').execute() as Promise<ProjectRow[]>;

/** When the project was deleted; null for a project that is not (or that the read model does not know). */
export const deletedAt = async (db: Kysely<ReadModels>, projectId: string): Promise<Date | null> => {
  const row = await db.selectFrom('projects').select('deleted').where('id', '=', projectId).executeTakeFirst();
  return row?.deleted ? new Date(row.deleted) : null;
};

/** The project's accounts that are not deleted (what deleting the project ends). */
export const liveAccountsOfProject = (db: Kysely<ReadModels>, projectId: string) =>
  db
    .selectFrom('accounts')
    .select(['id', 'account_status_id'])
    .where('project_id', '=', projectId)
    .where('account_status_id', '<>', AccountStatus.Deleted)
    .orderBy('id')
    .execute();

/** The project's keys that are not revoked (what deleting the project revokes). */
export const liveKeysOfProject = (db: Kysely<ReadModels>, projectId: string) =>
  db.selectFrom('api_keys').select('id').where('project_id', '=', projectId).where('revoked_at', 'is', null).orderBy('id').execute();

/** The investor program's traders of a project: live accounts with the trader role (feature FeatureTraderDTO), oldest role first. */
export const projectTraders = (db: Kysely<ReadModels>, projectId: string) =>
  db
    .selectFrom('features')
    .innerJoin('accounts', 'accounts.id', 'features.account_id')
    .select(['features.id as feature_id', 'features.created', 'accounts.id as account_id', 'accounts.alias'])
    .where('features.project_id', '=', projectId)
    .where('features.scope_kind', '=', 'account')
    .where('features.type', '=', TRADER_FEATURE)
    .where('accounts.project_id', '=', projectId)
    .where('accounts.account_status_id', '<>', AccountStatus.Deleted)
    .orderBy('features.created')
    .orderBy('features.id')
    .execute();
