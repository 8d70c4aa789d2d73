// Queries of the copies read model.
import type { Kysely } from 'kysely';
import type { ReadModels } from '../schema.js';

/**
 * As a slave: a live copy whose master position is no longer open, or a master position still open
 * whose copy was closed at the slave by something other than the copier.
 */
export const positionMismatchOf = async (db: Kysely<ReadModels>, slaveAccountId: string): Promise<boolean> => {
  const orphan = await db
    .selectFrom('copies')
    .select('copies.copier_id')
    .where('copies.slave_account_id', '=', slaveAccountId)
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
    )
    .executeTakeFirst();
  if (orphan) return true;
  const lost = await db
    .selectFrom('copies')
    .select('copies.copier_id')
    .where('copies.slave_account_id', '=', slaveAccountId)
    .where('copies.status', '=', 'closed')
    .where('copies.closed_by', '=', 'SLAVE_VENUE')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('positions')
          .select('positions.id')
          .whereRef('positions.account_id', '=', 'copies.master_account_id')
          .whereRef('positions.id', '=', 'copies.master_position_id'),
      ),
    )
    .executeTakeFirst();
  return lost !== undefined;
};
