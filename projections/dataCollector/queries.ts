// Queries of the data-collector read model.
import { type Kysely, sql } from 'kysely';
import type { ReadModels } from '../schema.js';

/** The account's samples from `from` to `to` (inclusive; null = unbounded), oldest first. */
export const samplesOf = (db: Kysely<ReadModels>, accountId: string, from: string | null, to: string | null) => {
  let q = db.selectFrom('data_collector_samples').selectAll().where('account_id', '=', accountId);
  if (from) q = q.where('time', '>=', new Date(from));
  if (to) q = q.where('time', '<=', new Date(to));
  return q.orderBy('time').execute();
};

/** The last `limit` samples (-1 = all) of the account between the optional bounds (inclusive), oldest first. */
export const lastSamplesOf = async (
  db: Kysely<ReadModels>,
  accountId: string,
  range: { readonly startTime?: string; readonly endTime?: string; readonly limit: number },
) => {
  let q = db.selectFrom('data_collector_samples').selectAll().where('account_id', '=', accountId);
  if (range.startTime) q = q.where('time', '>=', new Date(range.startTime));
  if (range.endTime) q = q.where('time', '<=', new Date(range.endTime));
  q = q.orderBy('time', 'desc');
  if (range.limit !== -1) q = q.limit(range.limit);
  return (await q.execute()).reverse();
};

/** The oldest sample of the account at or after `from` (normalizeValues: its reference value). */
export const firstSampleOf = (db: Kysely<ReadModels>, accountId: string, from: Date) =>
  db.selectFrom('data_collector_samples').selectAll().where('account_id', '=', accountId).where('time', '>=', from).orderBy('time').limit(1).executeTakeFirst();

/**
 * Deletes the samples taken before `before` (the retention's boundary), `batch` rows per statement so
 * no statement holds many locks (by key: the table may be read through a view); answers how many were deleted.
 */
export const pruneSamples = async (db: Kysely<ReadModels>, before: Date, batch = 5000): Promise<number> => {
  let total = 0;
  for (;;) {
    const result = await db
      .deleteFrom('data_collector_samples')
      .where(
        sql<boolean>`(account_id, time) IN (${db.selectFrom('data_collector_samples').select(['account_id', 'time']).where('time', '<', before).limit(batch)})`,
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < batch) return total;
  }
};
