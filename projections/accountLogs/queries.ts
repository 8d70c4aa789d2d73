// Queries of the account logs read model: an account's page, a project's page, and which ids a
// project's logs hold (acknowledgement).
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

const page = (db: Kysely<ReadModels>, where: { accountId: string } | { projectId: string }, p: AccountLogPage) => {
  let q = db.selectFrom('account_logs').selectAll();
  q = 'accountId' in where ? q.where('account_id', '=', where.accountId) : q.where('project_id', '=', where.projectId);
  q = q.where('log_type_id', '<=', p.maxLogTypeId);
  if (p.start) q = q.where('time', '>=', new Date(p.start));
  if (p.stop) q = q.where('time', '<=', new Date(p.stop));
  return q.orderBy('time', 'desc').orderBy('position_commit', 'desc').orderBy('position_prepare', 'desc').limit(p.limit).offset(p.offset).execute();
};

/** A page of the account's log entries, newest first (entries of one instant in the order they happened, reversed). */
export const accountLogPage = (db: Kysely<ReadModels>, accountId: string, p: AccountLogPage) => page(db, { accountId }, p);

/** A page of the log entries of every account of the project, newest first. */
export const projectLogPage = (db: Kysely<ReadModels>, projectId: string, p: AccountLogPage) => page(db, { projectId }, p);

/** Of `logIds`, those that name entries of the project's logs. */
export const projectLogIds = async (db: Kysely<ReadModels>, projectId: string, logIds: readonly number[]): Promise<Set<number>> => {
  if (logIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('account_logs')
    .select('position_prepare')
    .where('project_id', '=', projectId)
    .where(
      'position_prepare',
      'in',
      logIds.map((id) => String(id)),
    )
    .execute();
  return new Set(rows.map((r) => Number(r.position_prepare)));
};
