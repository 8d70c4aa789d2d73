// The copies read model's batch (batch.ts), written back: deletes first (in the batch's order they may
// only remove what was there before), then the rows as the batch leaves them, in a few multi-row
// statements per table.
import { sql } from 'kysely';
import { type ColumnTypes, insertFirstOfKey, statementChunks, upsertRows } from '../projection.js';
import type { Batch, Db, Key } from './batch.js';
import type { CopyRow, DeferralRow, RetryRow } from './changes.js';

// The columns of each table, as its rows are written (insertFirstOfKey's arrays).
const CLOSURE_TYPES: ColumnTypes<'slave_closures'> = {
  slave_account_id: 'uuid',
  slave_position_id: 'text',
  closed_at: 'timestamptz',
  result: 'float8',
  close_price: 'float8',
};

const RETRY_TYPES: ColumnTypes<'copy_retries'> = {
  client_order_id: 'text',
  copier_id: 'uuid',
  master_account_id: 'uuid',
  slave_account_id: 'uuid',
  action: 'jsonb',
  source: 'jsonb',
  retry_until: 'timestamptz',
};

const DEFERRAL_TYPES: ColumnTypes<'copy_deferrals'> = {
  id: 'uuid',
  copier_id: 'uuid',
  master_account_id: 'uuid',
  due_at: 'timestamptz',
  master_event: 'jsonb',
  deferred_by: 'jsonb',
  master_event_at: 'timestamptz',
};

const PARTIALS_TYPES: ColumnTypes<'slave_partials'> = {
  slave_account_id: 'uuid',
  slave_position_id: 'text',
  volume: 'float8',
  partials: 'jsonb',
  at: 'timestamptz',
};

const MARTINGALE_TYPES: ColumnTypes<'copier_martingale'> = { copier_id: 'uuid', consecutive_losses: 'int' };

export const writeBack = async (db: Db, batch: Batch): Promise<void> => {
  await writeClosures(db, batch);
  await writePartials(db, batch);
  await writeRetries(db, batch);
  await writeDeferrals(db, batch);
  await writeCopies(db, batch);
  await writeMartingale(db, batch);
};

/** Deletes the rows kept per slave position (closures, buffered partials) by their keys. */
const deleteSlaveRows = async (db: Db, table: 'slave_closures' | 'slave_partials', keys: Iterable<Key>): Promise<void> => {
  for (const chunk of statementChunks([...keys])) {
    await db
      .deleteFrom(table)
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('slave_account_id', 'slave_position_id'),
          'in',
          chunk.map((k) => tuple(k[0], k[1])),
        ),
      )
      .execute();
  }
};

const writeClosures = async (db: Db, batch: Batch): Promise<void> => {
  for (const chunk of statementChunks([...batch.cleanups])) {
    await db
      .deleteFrom('slave_closures')
      .where(({ eb, or, and }) => or(chunk.map(([accountId, cutoff]) => and([eb('slave_account_id', '=', accountId), eb('closed_at', '<', new Date(cutoff))]))))
      .execute();
  }
  await deleteSlaveRows(db, 'slave_closures', batch.deletedClosures.values());
  const closures = [...batch.insertedClosures].map((k) => batch.closures.get(k)!);
  await insertFirstOfKey(db, 'slave_closures', closures, ['slave_account_id', 'slave_position_id'], CLOSURE_TYPES);
};

const writePartials = async (db: Db, batch: Batch): Promise<void> => {
  for (const chunk of statementChunks([...batch.partialCleanups])) {
    await db
      .deleteFrom('slave_partials')
      .where(({ eb, or, and }) => or(chunk.map(([accountId, cutoff]) => and([eb('slave_account_id', '=', accountId), eb('at', '<', new Date(cutoff))]))))
      .execute();
  }
  await deleteSlaveRows(db, 'slave_partials', batch.deletedPartials.values());
  // The rows as the batch leaves them (it read every row it appended to).
  const rows = [...batch.insertedPartials].map((k) => batch.partials.get(k)!);
  await upsertRows(db, 'slave_partials', rows, ['slave_account_id', 'slave_position_id'], PARTIALS_TYPES);
};

const writeRetries = async (db: Db, batch: Batch): Promise<void> => {
  for (const op of batch.retryDeletes) {
    if (op.kind === 'id') continue;
    await db
      .deleteFrom('copy_retries')
      .where('copier_id', '=', op.copierId)
      .where(sql<string>`action->>'masterPositionId'`, '=', op.masterPositionId)
      .execute();
  }
  const retryIds = batch.retryDeletes.flatMap((op) => (op.kind === 'id' ? [op.id] : []));
  for (const chunk of statementChunks(retryIds)) await db.deleteFrom('copy_retries').where('client_order_id', 'in', chunk).execute();
  const retries = [...batch.retries.values()].filter((r): r is RetryRow => r !== null);
  await insertFirstOfKey(db, 'copy_retries', retries, ['client_order_id'], RETRY_TYPES);
};

const writeDeferrals = async (db: Db, batch: Batch): Promise<void> => {
  for (const chunk of statementChunks(batch.deferralDeletes)) await db.deleteFrom('copy_deferrals').where('id', 'in', chunk).execute();
  const deferrals = [...batch.deferrals.values()].filter((r): r is DeferralRow => r !== null);
  await insertFirstOfKey(db, 'copy_deferrals', deferrals, ['id'], DEFERRAL_TYPES);
};

const COPY_TYPES: ColumnTypes<'copies'> = {
  copier_id: 'uuid',
  master_position_id: 'text',
  part: 'int',
  master_account_id: 'uuid',
  slave_account_id: 'uuid',
  slave_position_id: 'text',
  kind: 'text',
  symbol: 'text',
  order_type: 'text',
  volume: 'float8',
  client_order_id: 'text',
  status: 'text',
  opened_at: 'timestamptz',
  closed_at: 'timestamptz',
  closed_by: 'text',
  result: 'float8',
  close_price: 'float8',
  partials: 'jsonb',
};

const writeCopies = (db: Db, batch: Batch): Promise<void> =>
  writeCopyRows(
    db,
    [...batch.changedCopies].map((k) => batch.copies.get(k)!),
  );

/** Rows of distinct keys, each replacing any row of its key. */
export const writeCopyRows = (db: Db, rows: readonly CopyRow[]): Promise<void> =>
  upsertRows(db, 'copies', rows, ['copier_id', 'master_position_id', 'part'], COPY_TYPES);

const writeMartingale = (db: Db, batch: Batch): Promise<void> =>
  upsertRows(
    db,
    'copier_martingale',
    [...batch.changedMartingale].map((id) => ({ copier_id: id, consecutive_losses: batch.martingale.get(id)! })),
    ['copier_id'],
    MARTINGALE_TYPES,
  );
