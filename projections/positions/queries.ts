// Queries of the positions read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

export const openPositionsOf = (db: Kysely<ReadModels>, accountId: string) =>
  db.selectFrom('positions').selectAll().where('account_id', '=', accountId).orderBy('open_time').orderBy('id').execute();

export const venueActivityOf = (db: Kysely<ReadModels>, accountId: string) =>
  db.selectFrom('venue_activity').selectAll().where('account_id', '=', accountId).executeTakeFirst();
