// Queries of the accounts a performance report covers (POST /reports/performance): by account, by
// project, or by feature (the account it is attached to, a copier's slave account, or every account of
// the project for a project-wide feature). Deleted accounts are included: the report says so.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export type ReportAccountRow = Awaited<ReturnType<typeof accountsAmong>>[number];

/** The project's accounts among `ids` (deleted ones too), in no particular order. */
export const accountsAmong = async (db: Kysely<ReadModels>, projectId: string, ids: readonly string[]) =>
  ids.length === 0
    ? []
    : db
        .selectFrom('accounts')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', 'in', [...ids])
        .execute();

/** Every account of the project (deleted ones too), oldest first. */
export const accountsOfProject = (db: Kysely<ReadModels>, projectId: string) =>
  db.selectFrom('accounts').selectAll().where('project_id', '=', projectId).orderBy('created').orderBy('id').execute();

/** The features of the project among `ids`, with the slave account of a copier's feature. */
export const featureTargets = async (db: Kysely<ReadModels>, projectId: string, ids: readonly string[]) =>
  ids.length === 0
    ? []
    : db
        .selectFrom('features')
        .leftJoin('copiers', 'copiers.id', 'features.copier_id')
        .select(['features.id as id', 'features.scope_kind as scope', 'features.account_id as accountId', 'copiers.to_account_id as slaveAccountId'])
        .where('features.project_id', '=', projectId)
        .where('features.id', 'in', [...ids])
        .execute();
