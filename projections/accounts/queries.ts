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

export const listAccounts = (db: Kysely<ReadModels>, projectId: string, filter: AccountFilter) => {
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
  return q.execute();
};

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

type Login = {
  readonly id: string;
  readonly account_type_id: number;
  readonly login_server: string;
  readonly login_account_number: string;
  readonly account_status_id: number;
};

const loginKey = (type: number, server: string, login: string): string => JSON.stringify([type, server.toLowerCase(), login]);

/**
 * The accounts among `accounts` that share their login with another account of the project that is
 * not deleted: same platform, login server (case-insensitive) and login. One grouped pass over the
 * project's live accounts (and one more only when a deleted account is among them), whatever their number.
 */
export const accountsWithSameLoginAsAnother = async (db: Kysely<ReadModels>, projectId: string, accounts: readonly Login[]): Promise<Set<string>> => {
  if (accounts.length === 0) return new Set();
  const live = (atLeast: number, logins?: readonly string[]) => {
    let q = db
      .selectFrom('accounts')
      .select((eb) => ['account_type_id', 'login_account_number', eb.fn<string>('lower', ['login_server']).as('server'), eb.fn.countAll<string>().as('n')])
      .where('project_id', '=', projectId)
      .where('account_status_id', '<>', AccountStatus.Deleted);
    if (logins) q = q.where('login_account_number', 'in', [...logins]);
    return q
      .groupBy((eb) => ['account_type_id', 'login_account_number', eb.fn('lower', ['login_server'])])
      .having((eb) => eb.fn.countAll(), '>=', atLeast)
      .execute();
  };
  const keys = (rows: Awaited<ReturnType<typeof live>>) => new Set(rows.map((r) => loginKey(r.account_type_id, r.server, r.login_account_number)));
  // A live account shares its login when two live accounts have it; a deleted one when one does.
  const shared = keys(await live(2));
  const deleted = accounts.filter((a) => a.account_status_id === AccountStatus.Deleted);
  const taken = deleted.length > 0 ? keys(await live(1, [...new Set(deleted.map((a) => a.login_account_number))])) : new Set<string>();
  return new Set(
    accounts
      .filter((a) => (a.account_status_id === AccountStatus.Deleted ? taken : shared).has(loginKey(a.account_type_id, a.login_server, a.login_account_number)))
      .map((a) => a.id),
  );
};

/**
 * What the copiers of each account (as the slave) are: some active, some monitor-only, some
 * deactivated (AccountDTO.hasActiveCopiers, hasMonitorOnlyCopiers, hasDisabledCopiers).
 */
export const slaveCopierFlags = async (db: Kysely<ReadModels>, projectId: string, accountIds: readonly string[]) => {
  const flags = new Map<string, { active: boolean; monitorOnly: boolean; disabled: boolean }>();
  if (accountIds.length === 0) return flags;
  const rows = await db
    .selectFrom('copiers')
    .select(['to_account_id', 'active', 'monitor_only'])
    .where('project_id', '=', projectId)
    .where('to_account_id', 'in', accountIds)
    .execute();
  for (const r of rows) {
    const f = flags.get(r.to_account_id) ?? { active: false, monitorOnly: false, disabled: false };
    flags.set(r.to_account_id, { active: f.active || r.active, monitorOnly: f.monitorOnly || r.monitor_only, disabled: f.disabled || !r.active });
  }
  return flags;
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

/** The code of each account's last connection log line (VenueConnected has none; a refusal has its error code); accounts without one are left out. */
export const lastConnectionCodes = async (db: Kysely<ReadModels>, accountIds: readonly string[]): Promise<Map<string, string | null>> => {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('account_logs')
    .select(['account_id', 'code'])
    .distinctOn('account_id')
    .where('account_id', 'in', [...accountIds])
    .where('category', '=', 'CONNECTION')
    .orderBy('account_id')
    .orderBy('time', 'desc')
    .orderBy('position_commit', 'desc')
    .execute();
  return new Map(rows.map((r) => [r.account_id, r.code]));
};
