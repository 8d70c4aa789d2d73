// Queries of GET /accounts and GET /accounts/{accountId}.
import { type Kysely, sql } from 'kysely';
import { AccountStatus } from '../../domain/account/enums.js';
import type { ReadModels } from '../schema.js';

export interface AccountFilter {
  readonly accountTypeId?: number;
  readonly loginServer?: string;
  readonly loginAccountNumber?: string;
  readonly alias?: string;
  readonly regionId?: number;
  readonly accountStatusId?: number;
  readonly limit?: number;
  readonly offset?: number;
  /** An account-level API key sees its own account only. */
  readonly onlyAccountId?: string | null;
}

/** A LIKE pattern that matches `text` anywhere, with its own wildcards taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The query of listAccounts, to run or to build on (withState.ts). */
export const accountsQuery = (db: Kysely<ReadModels>, projectId: string, filter: AccountFilter) => {
  let q = db.selectFrom('accounts').selectAll().where('project_id', '=', projectId);
  if (filter.onlyAccountId) q = q.where('id', '=', filter.onlyAccountId);
  if (filter.accountTypeId !== undefined) q = q.where('account_type_id', '=', filter.accountTypeId);
  if (filter.regionId !== undefined) q = q.where('region_id', '=', filter.regionId);
  // Deleted accounts are listed only when asked for by status.
  q =
    filter.accountStatusId !== undefined
      ? q.where('account_status_id', '=', filter.accountStatusId)
      : q.where('account_status_id', '<>', AccountStatus.Deleted);
  if (filter.loginServer) q = q.where('login_server', 'ilike', containsPattern(filter.loginServer));
  if (filter.loginAccountNumber) {
    q = q.where('login_account_number', 'ilike', containsPattern(filter.loginAccountNumber));
  }
  if (filter.alias) q = q.where('alias', 'ilike', containsPattern(filter.alias));
  q = q.orderBy('created').orderBy('id');
  if (filter.limit !== undefined) q = q.limit(filter.limit);
  if (filter.offset !== undefined) q = q.offset(filter.offset);
  return q;
};

export const listAccounts = (db: Kysely<ReadModels>, projectId: string, filter: AccountFilter) => accountsQuery(db, projectId, filter).execute();

export const findAccount = (db: Kysely<ReadModels>, projectId: string, accountId: string) =>
  db.selectFrom('accounts').selectAll().where('project_id', '=', projectId).where('id', '=', accountId).executeTakeFirst();

/** Accounts of the project with the same login at the same server and platform (failIfAccountExistsInProject). */
export const findSameLogin = (db: Kysely<ReadModels>, projectId: string, login: { loginServer: string; loginAccountNumber: string; accountTypeId: number }) =>
  db
    .selectFrom('accounts')
    .select('id')
    .where('project_id', '=', projectId)
    .where('account_status_id', '<>', AccountStatus.Deleted)
    .where('account_type_id', '=', login.accountTypeId)
    .where((eb) => eb(eb.fn('lower', ['login_server']), '=', login.loginServer.toLowerCase()))
    .where('login_account_number', '=', login.loginAccountNumber)
    .executeTakeFirst();

/** The project's accounts among `ids` that are not deleted, oldest first. */
export const liveAccountsAmong = async (db: Kysely<ReadModels>, projectId: string, ids: readonly string[]) => {
  if (ids.length === 0) return [];
  return db
    .selectFrom('accounts')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', 'in', [...ids])
    .where('account_status_id', '<>', AccountStatus.Deleted)
    .orderBy('created')
    .orderBy('id')
    .execute();
};

/** The labels the project's accounts (not deleted) carry, each once, in alphabetical order. */
export const projectLabels = async (db: Kysely<ReadModels>, projectId: string, onlyAccountId?: string | null): Promise<string[]> => {
  let q = db
    .selectFrom('accounts')
    .select(sql<string>`jsonb_array_elements_text(labels)`.as('label'))
    .where('project_id', '=', projectId)
    .where('account_status_id', '<>', AccountStatus.Deleted);
  if (onlyAccountId) q = q.where('id', '=', onlyAccountId);
  const rows = await q.execute();
  return [...new Set(rows.map((r) => r.label))].sort();
};
