// The positions read model: each account's open positions and pending orders as its venue last
// reported them (one row each, id shared when a pending order fills), and per account whether it is
// connected and its last balance operation. Reconciliation after a reconnect compares the venue
// with it.
import { type Insertable, sql } from 'kysely';
import { type PendingOrderData, type PositionData, positionsEventTypes, type PositionsEvent } from '../../domain/positions/events.js';
import type { Projection } from '../projection.js';
import type { PositionsTable } from '../schema.js';

type Row = Insertable<PositionsTable>;

const positionRow = (accountId: string, p: PositionData, at: string): Row => ({
  account_id: accountId,
  id: p.positionId,
  kind: 'position',
  symbol: p.symbol,
  order_type: p.orderType,
  volume: p.volume,
  open_price: p.openPrice,
  open_time: p.openTime,
  stop_loss: p.stopLoss,
  take_profit: p.takeProfit,
  expiry: null,
  comment: p.comment,
  magic_number: p.magicNumber,
  client_order_id: p.clientOrderId,
  updated: at,
});

const orderRow = (accountId: string, o: PendingOrderData, at: string): Row => ({
  account_id: accountId,
  id: o.orderId,
  kind: 'order',
  symbol: o.symbol,
  order_type: o.orderType,
  volume: o.volume,
  open_price: o.openPrice,
  open_time: o.openTime,
  stop_loss: o.stopLoss,
  take_profit: o.takeProfit,
  expiry: o.expiry,
  comment: o.comment,
  magic_number: o.magicNumber,
  client_order_id: o.clientOrderId,
  updated: at,
});

export const positionsProjection: Projection = {
  name: 'positions',
  version: 2,
  handles: positionsEventTypes,
  tables: ['positions', 'venue_activity'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'positions')} (
      account_id uuid NOT NULL,
      id text NOT NULL,
      kind text NOT NULL,
      symbol text NOT NULL,
      order_type text NOT NULL,
      volume double precision NOT NULL,
      open_price double precision NOT NULL,
      open_time timestamptz NOT NULL,
      stop_loss double precision,
      take_profit double precision,
      expiry timestamptz,
      comment text,
      magic_number bigint,
      client_order_id text,
      updated timestamptz NOT NULL,
      PRIMARY KEY (account_id, id))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'venue_activity')} (
      account_id uuid PRIMARY KEY,
      last_change_at timestamptz NOT NULL,
      connected boolean NOT NULL)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as PositionsEvent;
    const { accountId, at } = event.data;
    const upsert = (row: Row) =>
      db.insertInto('positions').values(row).onConflict((oc) => oc.columns(['account_id', 'id']).doUpdateSet(row)).execute();
    const remove = (id: string, kind: 'position' | 'order') =>
      db.deleteFrom('positions').where('account_id', '=', accountId).where('id', '=', id).where('kind', '=', kind).execute();
    const activity = (values: { last_change_at?: string; connected?: boolean }) =>
      db.insertInto('venue_activity')
        .values({ account_id: accountId, last_change_at: values.last_change_at ?? at, connected: values.connected ?? false })
        .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
        .execute();
    switch (event.type) {
      case 'PositionOpened':
      case 'PositionIncreased':
      case 'PositionModified':
      case 'PositionPartiallyClosed':
        await upsert(positionRow(accountId, event.data.position, at));
        break;
      case 'PositionClosed':
        await remove(event.data.trade.positionId, 'position');
        break;
      case 'PendingOrderPlaced':
      case 'PendingOrderModified':
        await upsert(orderRow(accountId, event.data.order, at));
        break;
      case 'PendingOrderFilled':
      case 'PendingOrderCancelled':
        await remove(event.data.order.orderId, 'order');
        break;
      case 'VenueConnected':
        await activity({ connected: true });
        return;
      case 'VenueConnectionFailed':
      case 'VenueDisconnected':
        await activity({ connected: false });
        return;
      case 'BalanceChanged':
        // Reconciliation looks for balance operations since the last one it knows.
        await activity({ last_change_at: at });
        return;
      case 'TradeRequested':
      case 'TradeRequestRejected':
        return;
    }
  },
};
