// Queries of the positions read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export const openPositionsOf = (db: Kysely<ReadModels>, accountId: string) =>
  db.selectFrom('positions').selectAll().where('account_id', '=', accountId).orderBy('open_time').orderBy('id').execute();

/** How many open positions and pending orders the last known book of each account holds (accounts without any are left out). One query for any number of accounts. */
export const bookCounts = async (db: Kysely<ReadModels>, accountIds: readonly string[]) => {
  const counts = new Map<string, { positions: number; orders: number }>();
  if (accountIds.length === 0) return counts;
  const rows = await db
    .selectFrom('positions')
    .select((eb) => ['account_id', 'kind', eb.fn.countAll<string>().as('n')])
    .where('account_id', 'in', [...accountIds])
    .groupBy(['account_id', 'kind'])
    .execute();
  for (const r of rows) {
    const count = counts.get(r.account_id) ?? { positions: 0, orders: 0 };
    if (r.kind === 'position') count.positions = Number(r.n);
    else count.orders = Number(r.n);
    counts.set(r.account_id, count);
  }
  return counts;
};

export const venueActivityOf = (db: Kysely<ReadModels>, accountId: string) =>
  db.selectFrom('venue_activity').selectAll().where('account_id', '=', accountId).executeTakeFirst();
