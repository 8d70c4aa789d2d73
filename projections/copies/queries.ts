// Queries of the copies read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

/**
 * The accounts among `slaveAccountIds` with a position mismatch, as a slave: a live copy whose master
 * position is no longer open, or a master position still open whose copy was closed at the slave by
 * something other than the copier. One query for any number of accounts.
 */
export const accountsWithPositionMismatch = async (db: Kysely<ReadModels>, slaveAccountIds: readonly string[]): Promise<Set<string>> => {
  if (slaveAccountIds.length === 0) return new Set();
  const ids = [...slaveAccountIds];
  const orphans = db
    .selectFrom('copies')
    .select('copies.slave_account_id')
    .where('copies.slave_account_id', 'in', ids)
    .where('copies.status', '=', 'open')
    // A feature's own trade (keep-alive: `feature:<featureId>:<key>`) copies no master position.
    .where('copies.master_position_id', 'not like', 'feature:%')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('positions')
            .select('positions.id')
            .whereRef('positions.account_id', '=', 'copies.master_account_id')
            .whereRef('positions.id', '=', 'copies.master_position_id'),
        ),
      ),
    );
  const lost = db
    .selectFrom('copies')
    .select('copies.slave_account_id')
    .where('copies.slave_account_id', 'in', ids)
    .where('copies.status', '=', 'closed')
    .where('copies.closed_by', '=', 'SLAVE_VENUE')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('positions')
          .select('positions.id')
          .whereRef('positions.account_id', '=', 'copies.master_account_id')
          .whereRef('positions.id', '=', 'copies.master_position_id'),
      ),
    );
  const rows = await orphans.union(lost).execute();
  return new Set(rows.map((r) => r.slave_account_id));
};
