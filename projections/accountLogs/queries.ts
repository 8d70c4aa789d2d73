// Queries of the account logs read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export interface AccountLogPage {
  /** The highest log type to include (1 errors, 2 warnings, 3 everything). */
  readonly maxLogTypeId: number;
  readonly start?: string;
  readonly stop?: string;
  readonly limit: number;
  readonly offset: number;
}

/** A page of the account's log entries, newest first (entries of one instant in the order they happened, reversed). */
export const accountLogPage = (db: Kysely<ReadModels>, accountId: string, page: AccountLogPage) => {
  let q = db.selectFrom('account_logs').selectAll().where('account_id', '=', accountId).where('log_type_id', '<=', page.maxLogTypeId);
  if (page.start) q = q.where('time', '>=', new Date(page.start));
  if (page.stop) q = q.where('time', '<=', new Date(page.stop));
  return q.orderBy('time', 'desc').orderBy('position_commit', 'desc').orderBy('position_prepare', 'desc').limit(page.limit).offset(page.offset).execute();
};
