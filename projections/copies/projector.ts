// The copies read model: which slave position or pending order copies which master position, per
// copier, and whether it is still open; the martingale state of each copier; and the failed opens
// whose open-retry window is still running. It follows the engine's own events (copies-*) and what
// the slaves' venues report about those positions (positions-*): a slave position closed by its own
// stop loss is no longer a live copy.
import { type Insertable, type QueryCreator, sql } from 'kysely';
import { copyEventTypes, type CopyEvent, DEFERRAL_SOURCE } from '../../domain/copy/events.js';
import { isStandaloneTrade } from '../../domain/copy/features/rules.js';
import { initialMartingaleState, nextMartingaleState } from '../../domain/copy/martingale.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import type { Projection } from '../projection.js';
import { applyCopiesBatch, martingaleStep } from './batch.js';
import type { CopiesTable, ReadModels } from '../schema.js';

const slaveEvents = ['PositionClosed', 'PositionPartiallyClosed', 'PendingOrderFilled', 'PendingOrderCancelled'] as const;

export const copiesProjection: Projection = {
  name: 'copies',
  version: 4,
  handles: [...copyEventTypes, ...slaveEvents],
  tables: ['copies', 'copier_martingale', 'copy_retries', 'copy_deferrals', 'slave_closures'],
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
      PRIMARY KEY (copier_id, master_position_id))`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copies')} (copier_id, opened_at DESC)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copies')} (slave_account_id, slave_position_id)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copies')} (master_account_id, master_position_id)`.execute(db);
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
    await sql`CREATE TABLE ${sql.id(schema, 'copy_deferrals')} (
      id uuid PRIMARY KEY,
      copier_id uuid NOT NULL,
      master_account_id uuid NOT NULL,
      due_at timestamptz NOT NULL,
      master_event jsonb NOT NULL,
      deferred_by jsonb NOT NULL,
      master_event_at timestamptz)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'copy_deferrals')} (due_at)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'copy_retries')} (
      client_order_id text PRIMARY KEY,
      copier_id uuid NOT NULL,
      master_account_id uuid NOT NULL,
      slave_account_id uuid NOT NULL,
      action jsonb NOT NULL,
      source jsonb NOT NULL,
      retry_until timestamptz NOT NULL)`.execute(db);
  },
  // A batch at a time (batch.ts) with the effect of apply below on each event in turn.
  applyBatch: applyCopiesBatch,
  async apply(db, recorded) {
    const event = recorded as unknown as CopyEvent | PositionsEvent;
    /** A live copy ended: closed rows fold their result into the copier's martingale state. */
    const ended = async (
      where: { copierId?: string; masterPositionId?: string; slaveAccountId?: string; slavePositionId?: string; kind?: CopiesTable['kind'] },
      at: string,
      by: string,
      result: number | null,
      closePrice: number | null = null,
      alsoAfterVenue = false,
    ) => {
      // The slave's venue may have reported the close first (the copy is closed by SLAVE_VENUE): then it
      // was this close all the same. Both updates in one statement: they match different rows (open, closed).
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
      let q = creator
        .updateTable('copies')
        .set({ status: 'closed', closed_at: at, closed_by: by, result, close_price: closePrice })
        .where('status', '=', 'open');
      if (where.copierId) q = q.where('copier_id', '=', where.copierId);
      if (where.masterPositionId) q = q.where('master_position_id', '=', where.masterPositionId);
      if (where.slaveAccountId) q = q.where('slave_account_id', '=', where.slaveAccountId);
      if (where.slavePositionId) q = q.where('slave_position_id', '=', where.slavePositionId);
      if (where.kind) q = q.where('kind', '=', where.kind);
      const closed = await q.returning(['copier_id', 'kind', 'master_position_id']).execute();
      if (closed.length === 0 && where.slaveAccountId && where.slavePositionId) {
        // No live copy yet: its CopyExecuted may still come (see slave_closures).
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
      }
      if (result === null) return;
      for (const row of closed) {
        // A feature's own trade (a keep-alive trade) is no copy: it is no step of a martingale.
        if (row.kind !== 'position' || isStandaloneTrade(row.master_position_id)) continue;
        // The rule folds a result into a count as a step up, a reset or nothing; one upsert takes that step.
        const step = martingaleStep(result);
        if (step === 'none') continue;
        const first = nextMartingaleState(initialMartingaleState, result).consecutiveLosses;
        await db
          .insertInto('copier_martingale')
          .values({ copier_id: row.copier_id, consecutive_losses: first })
          .onConflict((oc) =>
            oc.column('copier_id').doUpdateSet({
              consecutive_losses: step === 'up' ? sql<number>`copier_martingale.consecutive_losses + 1` : first,
            }),
          )
          .execute();
      }
    };
    // The outcome of a deferral ends it, whatever it was.
    if (
      (event.type === 'CopyExecuted' || event.type === 'CopyFailed' || event.type === 'TradeSkipped' || event.type === 'CopyDeferred') &&
      event.data.source.type === DEFERRAL_SOURCE
    ) {
      await db.deleteFrom('copy_deferrals').where('id', '=', event.data.source.eventId).execute();
    }
    switch (event.type) {
      case 'CopyDeferred': {
        const d = event.data;
        await db
          .insertInto('copy_deferrals')
          .values({
            id: recorded.id,
            copier_id: d.copierId,
            master_account_id: d.masterAccountId,
            due_at: d.until,
            master_event: JSON.stringify(d.masterEvent),
            deferred_by: JSON.stringify(d.deferredBy),
            master_event_at: d.masterEventAt,
          })
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        return;
      }
      case 'CopyExecuted': {
        const { action, result, copierId, masterAccountId, slaveAccountId, at } = event.data;
        // Only opens are retried (CopyFailed below): any other action has no retry to end.
        const endRetry = (qb: QueryCreator<ReadModels>) => qb.deleteFrom('copy_retries').where('client_order_id', '=', action.clientOrderId);
        if (action.type === 'open' && result.type !== 'opened') await endRetry(db).execute();
        if (action.type === 'open' && result.type === 'opened') {
          const row: Insertable<CopiesTable> = {
            copier_id: copierId,
            master_position_id: action.masterPositionId,
            master_account_id: masterAccountId,
            slave_account_id: slaveAccountId,
            slave_position_id: result.slavePositionId,
            kind: result.kind,
            symbol: action.symbol,
            order_type: action.orderType,
            volume: result.volume,
            client_order_id: action.clientOrderId,
            status: 'open',
            opened_at: at,
            closed_at: null,
            closed_by: null,
            result: null,
            close_price: null,
          };
          // One round trip: the retry ends, the copy is recorded, and a close its venue reported first is found.
          const gone = await db
            .with('ended_retry', (qb) => endRetry(qb))
            .with('recorded', (qb) =>
              qb
                .insertInto('copies')
                .values(row)
                .onConflict((oc) => oc.columns(['copier_id', 'master_position_id']).doUpdateSet(row)),
            )
            .selectFrom('slave_closures')
            .selectAll()
            .where('slave_account_id', '=', slaveAccountId)
            .where('slave_position_id', '=', result.slavePositionId)
            .executeTakeFirst();
          if (gone) {
            await db
              .deleteFrom('slave_closures')
              .where('slave_account_id', '=', slaveAccountId)
              .where('slave_position_id', '=', result.slavePositionId)
              .execute();
            await ended(
              { copierId, masterPositionId: action.masterPositionId },
              new Date(gone.closed_at).toISOString(),
              'SLAVE_VENUE',
              gone.result,
              gone.close_price,
            );
          }
        } else if (action.type === 'partialClose' && result.type === 'closed') {
          await db
            .updateTable('copies')
            .set({ volume: action.remainingVolume })
            .where('copier_id', '=', copierId)
            .where('master_position_id', '=', action.masterPositionId)
            .where('status', '=', 'open')
            .execute();
        } else if (action.type === 'close' && result.type === 'closed') {
          await ended(
            { copierId, masterPositionId: action.masterPositionId, slavePositionId: action.slavePositionId },
            at,
            event.data.by ?? 'COPIER',
            result.result,
            result.closePrice,
            true,
          );
        } else if (action.type === 'cancel') {
          await ended({ copierId, masterPositionId: action.masterPositionId, slavePositionId: action.slavePositionId }, at, 'COPIER', null);
        }
        return;
      }
      case 'CopyFailed': {
        const { action, retryUntil, copierId, masterAccountId, slaveAccountId, source } = event.data;
        if (retryUntil === null || action.type !== 'open') return;
        const row = {
          client_order_id: action.clientOrderId,
          copier_id: copierId,
          master_account_id: masterAccountId,
          slave_account_id: slaveAccountId,
          action: JSON.stringify(action),
          source: JSON.stringify(source),
          retry_until: retryUntil,
        };
        await db
          .insertInto('copy_retries')
          .values(row)
          .onConflict((oc) => oc.column('client_order_id').doNothing())
          .execute();
        return;
      }
      case 'TradeSkipped':
        if (event.data.reason === 'OPEN_RETRY_EXPIRED') {
          await db
            .deleteFrom('copy_retries')
            .where('copier_id', '=', event.data.copierId)
            .where(sql<string>`action->>'masterPositionId'`, '=', event.data.masterPositionId)
            .execute();
        }
        return;
      case 'PositionClosed': {
        const { trade } = event.data;
        const result = trade.profit + trade.swap + trade.commission;
        await ended(
          { slaveAccountId: event.data.accountId, slavePositionId: trade.positionId, kind: 'position' },
          trade.closeTime,
          'SLAVE_VENUE',
          result,
          trade.closePrice,
        );
        return;
      }
      case 'PositionPartiallyClosed':
        await db
          .updateTable('copies')
          .set({ volume: event.data.position.volume })
          .where('slave_account_id', '=', event.data.accountId)
          .where('slave_position_id', '=', event.data.position.positionId)
          .where('status', '=', 'open')
          .where('kind', '=', 'position')
          .execute();
        return;
      case 'PendingOrderFilled':
        await db
          .updateTable('copies')
          .set({ kind: 'position' })
          .where('slave_account_id', '=', event.data.accountId)
          .where('slave_position_id', '=', event.data.order.orderId)
          .where('status', '=', 'open')
          .where('kind', '=', 'pendingOrder')
          .execute();
        return;
      case 'PendingOrderCancelled':
        await ended(
          { slaveAccountId: event.data.accountId, slavePositionId: event.data.order.orderId, kind: 'pendingOrder' },
          event.data.at,
          'SLAVE_VENUE',
          null,
        );
        return;
      default:
        return;
    }
  },
};
