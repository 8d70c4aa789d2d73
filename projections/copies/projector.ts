// The copies read model: which slave position or pending order copies which master position, per
// copier, and whether it is still open; the martingale state of each copier; and the failed opens
// whose open-retry window is still running. It follows the engine's own events (copies-*) and what
// the slaves' venues report about those positions (positions-*): a slave position closed by its own
// stop loss is no longer a live copy.
import { type Kysely, type QueryCreator, sql, type Updateable } from 'kysely';
import { copyEventTypes } from '../../domain/copy/events.js';
import type { Projection } from '../projection.js';
import { applyCopiesBatch, copiesRebuildFold } from './batch.js';
import {
  changesOf,
  type CopiesChange,
  type CopyRow,
  type Ending,
  endingOfEarlierClosure,
  firstMartingaleCount,
  withEarlierPartials,
  isMartingaleStep,
  martingaleStep,
  type Where,
} from './changes.js';
import type { CopiesTable, ReadModels } from '../schema.js';

const slaveEvents = ['PositionClosed', 'PositionPartiallyClosed', 'PendingOrderFilled', 'PendingOrderCancelled'] as const;

type Db = Kysely<ReadModels>;

/** The live copies `where` names, to be changed by `set`. */
const liveCopies = (creator: QueryCreator<ReadModels>, where: Where, set: Updateable<CopiesTable>) => {
  let q = creator.updateTable('copies').set(set).where('status', '=', 'open');
  if (where.copierId) q = q.where('copier_id', '=', where.copierId);
  if (where.masterPositionId) q = q.where('master_position_id', '=', where.masterPositionId);
  if (where.slaveAccountId) q = q.where('slave_account_id', '=', where.slaveAccountId);
  if (where.slavePositionId) q = q.where('slave_position_id', '=', where.slavePositionId);
  if (where.kind) q = q.where('kind', '=', where.kind);
  return q;
};

/** No live copy yet: its CopyExecuted may still come (see slave_closures). */
const recordClosure = async (db: Db, { where, at, result, closePrice }: Ending & { where: { slaveAccountId: string; slavePositionId: string } }) => {
  await db
    .insertInto('slave_closures')
    .values({ slave_account_id: where.slaveAccountId, slave_position_id: where.slavePositionId, closed_at: at, result, close_price: closePrice })
    .onConflict((oc) => oc.columns(['slave_account_id', 'slave_position_id']).doNothing())
    .execute();
  // The account's closures older than a day go (per account, so accounts never touch each other's rows).
  await db
    .deleteFrom('slave_closures')
    .where('slave_account_id', '=', where.slaveAccountId)
    .where('closed_at', '<', new Date(Date.parse(at) - 86_400_000))
    .execute();
};

/** No live copy yet: its CopyExecuted may still come; the account's parts older than a day go. */
const bufferPartial = async (db: Db, change: Extract<CopiesChange, { type: 'copiesPartiallyClosed' }>) => {
  const { slaveAccountId, slavePositionId } = change.where;
  const part = JSON.stringify([change.part]);
  await db
    .insertInto('slave_partials')
    .values({ slave_account_id: slaveAccountId, slave_position_id: slavePositionId, volume: change.volume, partials: part, at: change.at })
    .onConflict((oc) =>
      oc.columns(['slave_account_id', 'slave_position_id']).doUpdateSet({
        volume: change.volume,
        partials: sql<string>`slave_partials.partials || ${part}::jsonb`,
        at: change.at,
      }),
    )
    .execute();
  await db
    .deleteFrom('slave_partials')
    .where('slave_account_id', '=', slaveAccountId)
    .where('at', '<', new Date(Date.parse(change.at) - 86_400_000))
    .execute();
};

/** The rule folds a result into a count as a step up, a reset or nothing; one upsert takes that step. */
const stepMartingale = async (db: Db, copierId: string, result: number) => {
  const step = martingaleStep(result);
  if (step === 'none') return;
  const first = firstMartingaleCount(result);
  await db
    .insertInto('copier_martingale')
    .values({ copier_id: copierId, consecutive_losses: first })
    .onConflict((oc) =>
      oc.column('copier_id').doUpdateSet({
        consecutive_losses: step === 'up' ? sql<number>`copier_martingale.consecutive_losses + 1` : first,
      }),
    )
    .execute();
};

const endCopies = async (db: Db, ending: Ending) => {
  const { where, at, by, result, closePrice, alsoAfterVenue } = ending;
  // A close after the venue's: both updates in one statement, they match different rows (open, closed).
  const creator =
    alsoAfterVenue && where.copierId && where.masterPositionId && where.slavePositionId
      ? (db.with('after_venue', (qb) =>
          qb
            .updateTable('copies')
            .set({ closed_by: by })
            .where('copier_id', '=', where.copierId!)
            .where('master_position_id', '=', where.masterPositionId!)
            .where('slave_position_id', '=', where.slavePositionId!)
            .where('status', '=', 'closed')
            .where('closed_by', '=', 'SLAVE_VENUE'),
        ) as unknown as QueryCreator<ReadModels>)
      : db;
  const closed = await liveCopies(creator, where, { status: 'closed', closed_at: at, closed_by: by, result, close_price: closePrice })
    .returning(['copier_id', 'kind', 'master_position_id', 'part'])
    .execute();
  if (closed.length === 0 && where.slaveAccountId && where.slavePositionId) {
    await recordClosure(db, { ...ending, where: { slaveAccountId: where.slaveAccountId, slavePositionId: where.slavePositionId } });
  }
  if (result === null) return;
  for (const row of closed) if (isMartingaleStep(row)) await stepMartingale(db, row.copier_id, result);
};

const recordCopy = async (db: Db, recorded: CopyRow) => {
  // Parts its venue closed before the copy was recorded are the copy's.
  const earlier = await db
    .deleteFrom('slave_partials')
    .where('slave_account_id', '=', recorded.slave_account_id)
    .where('slave_position_id', '=', recorded.slave_position_id)
    .returning(['volume', 'partials'])
    .executeTakeFirst();
  const row = earlier ? withEarlierPartials(recorded, earlier) : recorded;
  // One round trip: the retry ends, the copy is recorded, and a close its venue reported first is found.
  const gone = await db
    .with('ended_retry', (qb) => qb.deleteFrom('copy_retries').where('client_order_id', '=', row.client_order_id))
    .with('recorded', (qb) =>
      qb
        .insertInto('copies')
        .values(row)
        .onConflict((oc) => oc.columns(['copier_id', 'master_position_id', 'part']).doUpdateSet(row)),
    )
    .selectFrom('slave_closures')
    .selectAll()
    .where('slave_account_id', '=', row.slave_account_id)
    .where('slave_position_id', '=', row.slave_position_id)
    .executeTakeFirst();
  if (!gone) return;
  await db.deleteFrom('slave_closures').where('slave_account_id', '=', row.slave_account_id).where('slave_position_id', '=', row.slave_position_id).execute();
  await endCopies(db, endingOfEarlierClosure(row, gone));
};

const applyChange = async (db: Db, change: CopiesChange): Promise<void> => {
  switch (change.type) {
    case 'deferralEnded':
      await db.deleteFrom('copy_deferrals').where('id', '=', change.id).execute();
      return;
    case 'deferralRecorded':
      await db
        .insertInto('copy_deferrals')
        .values(change.row)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      return;
    case 'retryEnded':
      await db.deleteFrom('copy_retries').where('client_order_id', '=', change.clientOrderId).execute();
      return;
    case 'retryRecorded':
      await db
        .insertInto('copy_retries')
        .values(change.row)
        .onConflict((oc) => oc.column('client_order_id').doNothing())
        .execute();
      return;
    case 'retriesExpired':
      await db
        .deleteFrom('copy_retries')
        .where('copier_id', '=', change.copierId)
        .where(sql<string>`action->>'masterPositionId'`, '=', change.masterPositionId)
        .execute();
      return;
    case 'copyOpened':
      await recordCopy(db, change.row);
      return;
    case 'copiesChanged':
      await liveCopies(db, change.where, change.set).execute();
      return;
    case 'copiesEnded':
      await endCopies(db, change.ending);
      return;
    case 'copiesPartiallyClosed': {
      const changed = await liveCopies(db, change.where, { volume: change.volume })
        .set({ partials: sql<string>`partials || ${JSON.stringify([change.part])}::jsonb` })
        .returning('copier_id')
        .execute();
      if (changed.length === 0) await bufferPartial(db, change);
      return;
    }
    default: {
      const unhandled: never = change;
      throw new Error(`unhandled copies change ${JSON.stringify(unhandled)}`);
    }
  }
};

export const copiesProjection: Projection = {
  name: 'copies',
  // 5: a copy split into several orders by forcePositionLotSize has a row per part. 6: its partial closes.
  // 7: partial closes reported before the copy's CopyExecuted (slave_partials).
  version: 7,
  handles: [...copyEventTypes, ...slaveEvents],
  tables: ['copies', 'copier_martingale', 'copy_retries', 'copy_deferrals', 'slave_closures', 'slave_partials'],
  // Every row belongs to one slave account (a copier has one slave), and every event names it: the
  // engine's events their slave, a venue's events the account they happened on.
  partitionOf: (recorded) => {
    const data = recorded.data as { slaveAccountId?: string; accountId?: string };
    return data.slaveAccountId ?? data.accountId ?? '';
  },
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'copies')} (
      copier_id uuid NOT NULL,
      master_position_id text NOT NULL,
      part int NOT NULL DEFAULT 0,
      master_account_id uuid NOT NULL,
      slave_account_id uuid NOT NULL,
      slave_position_id text NOT NULL,
      kind text NOT NULL,
      symbol text NOT NULL,
      order_type text NOT NULL,
      volume double precision NOT NULL,
      client_order_id text NOT NULL,
      status text NOT NULL,
      opened_at timestamptz NOT NULL,
      closed_at timestamptz,
      closed_by text,
      result double precision,
      close_price double precision,
      partials jsonb NOT NULL DEFAULT '[]',
      PRIMARY KEY (copier_id, master_position_id, part))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'copier_martingale')} (
      copier_id uuid PRIMARY KEY,
      consecutive_losses int NOT NULL)`.execute(db);
    // Positions that closed (or orders cancelled) with no live copy matching them yet: a copy whose
    // CopyExecuted arrives after its slave position already closed is recorded as closed. Kept a day (until the
    // account's next closure after that).
    await sql`CREATE TABLE ${sql.id(schema, 'slave_closures')} (
      slave_account_id uuid NOT NULL,
      slave_position_id text NOT NULL,
      closed_at timestamptz NOT NULL,
      result double precision,
      close_price double precision,
      PRIMARY KEY (slave_account_id, slave_position_id))`.execute(db);
    // Partial closes of slave positions with no live copy matching them yet: a copy whose CopyExecuted
    // arrives after its slave position was partly closed gets them (its volume left, its parts). Kept
    // a day (until the account's next such part after that).
    await sql`CREATE TABLE ${sql.id(schema, 'slave_partials')} (
      slave_account_id uuid NOT NULL,
      slave_position_id text NOT NULL,
      volume double precision NOT NULL,
      partials jsonb NOT NULL,
      at timestamptz NOT NULL,
      PRIMARY KEY (slave_account_id, slave_position_id))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'copy_deferrals')} (
      id uuid PRIMARY KEY,
      copier_id uuid NOT NULL,
      master_account_id uuid NOT NULL,
      due_at timestamptz NOT NULL,
      master_event jsonb NOT NULL,
      deferred_by jsonb NOT NULL,
      master_event_at timestamptz)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'copy_retries')} (
      client_order_id text PRIMARY KEY,
      copier_id uuid NOT NULL,
      master_account_id uuid NOT NULL,
      slave_account_id uuid NOT NULL,
      action jsonb NOT NULL,
      source jsonb NOT NULL,
      retry_until timestamptz NOT NULL)`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'copies')} (copier_id, opened_at DESC)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copies')} (slave_account_id, slave_position_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copies')} (master_account_id, master_position_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copy_deferrals')} (due_at)`.execute(db);
  },
  // A batch at a time (batch.ts) with the effect of apply below on each event in turn.
  applyBatch: applyCopiesBatch,
  rebuildFold: copiesRebuildFold,
  async apply(db, recorded) {
    for (const change of changesOf(recorded)) await applyChange(db, change);
  },
};
