// The positions read model: each account's open positions and pending orders as its venue last
// reported them (one row each, id shared when a pending order fills), and per account whether it is
// connected and its last balance operation. Reconciliation after a reconnect compares the venue
// with it.
import { type Insertable, type Kysely, sql } from 'kysely';
import { type PendingOrderData, type PositionData, positionsEventTypes, type PositionsEvent } from '../../domain/positions/events.js';
import type { RecordedEvent } from '../../store/port.js';
import { type ColumnTypes, type Projection, type RebuildFold, statementChunks, upsertRows } from '../projection.js';
import type { PositionsTable, ReadModels } from '../schema.js';

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

type Kind = Row['kind'];
/** What a batch leaves of one position row: its last state, or a delete of it if it is of one of these kinds. */
type RowChange = { readonly upsert: Row } | { readonly deleteKinds: ReadonlySet<Kind> };
interface ActivityValues {
  last_change_at?: string;
  connected?: boolean;
}
/** What a batch leaves of an account's venue activity: the row if it is new, and the members it sets. */
interface ActivityChange {
  readonly insert: Required<ActivityValues>;
  readonly set: ActivityValues;
}

export interface PositionsChanges {
  readonly rows: ReadonlyMap<string, { readonly accountId: string; readonly id: string; readonly change: RowChange }>;
  readonly activity: ReadonlyMap<string, ActivityChange>;
}

/**
 * Folds events, in order, into the changes they make, with the effect of applying them one by one: a
 * later upsert replaces what came before; a remove deletes the row only if it is of the removed kind
 * (a pending order that filled shares its id with the position it became).
 */
export const changesOf = (events: readonly RecordedEvent[]): PositionsChanges => {
  const rows = new Map<string, { accountId: string; id: string; change: RowChange }>();
  const activity = new Map<string, ActivityChange>();
  for (const recorded of events) {
    const event = recorded as unknown as PositionsEvent;
    const { accountId, at } = event.data;
    const upsert = (row: Row): void => {
      rows.set(`${accountId}/${row.id}`, { accountId, id: row.id, change: { upsert: row } });
    };
    const remove = (id: string, kind: Kind): void => {
      const key = `${accountId}/${id}`;
      const before = rows.get(key)?.change;
      if (before && 'upsert' in before) {
        if (before.upsert.kind === kind) rows.set(key, { accountId, id, change: { deleteKinds: new Set<Kind>(['position', 'order']) } });
        return;
      }
      rows.set(key, { accountId, id, change: { deleteKinds: new Set<Kind>([...(before?.deleteKinds ?? []), kind]) } });
    };
    const touch = (values: ActivityValues): void => {
      const before = activity.get(accountId);
      activity.set(
        accountId,
        before
          ? { insert: { ...before.insert, ...values }, set: { ...before.set, ...values } }
          : { insert: { last_change_at: values.last_change_at ?? at, connected: values.connected ?? false }, set: values },
      );
    };
    switch (event.type) {
      case 'PositionOpened':
      case 'PositionIncreased':
      case 'PositionModified':
      case 'PositionPartiallyClosed':
        upsert(positionRow(accountId, event.data.position, at));
        break;
      case 'PositionClosed':
        remove(event.data.trade.positionId, 'position');
        break;
      case 'PendingOrderPlaced':
      case 'PendingOrderModified':
        upsert(orderRow(accountId, event.data.order, at));
        break;
      case 'PendingOrderFilled':
      case 'PendingOrderCancelled':
        remove(event.data.order.orderId, 'order');
        break;
      case 'VenueConnected':
        touch({ connected: true });
        break;
      case 'VenueConnectionFailed':
      case 'VenueDisconnected':
        touch({ connected: false });
        break;
      case 'BalanceChanged':
        // Reconciliation looks for balance operations since the last one it knows.
        touch({ last_change_at: at });
        break;
      case 'TradeRequested':
      case 'TradeRequestRejected':
        break;
    }
  }
  return { rows, activity };
};

// The columns of each table, as its rows are written (upsertRows's arrays).
const POSITION_TYPES: ColumnTypes<'positions'> = {
  account_id: 'uuid',
  id: 'text',
  kind: 'text',
  symbol: 'text',
  order_type: 'text',
  volume: 'float8',
  open_price: 'float8',
  open_time: 'timestamptz',
  stop_loss: 'float8',
  take_profit: 'float8',
  expiry: 'timestamptz',
  comment: 'text',
  magic_number: 'bigint',
  client_order_id: 'text',
  updated: 'timestamptz',
};

const ACTIVITY_TYPES: ColumnTypes<'venue_activity'> = { account_id: 'uuid', last_change_at: 'timestamptz', connected: 'boolean' };

/** The changes in a few statements: deletes by the kinds they may remove, upserts, activity by the members it sets. */
const writeChanges = async (db: Kysely<ReadModels>, changes: PositionsChanges): Promise<void> => {
  const upserts: Row[] = [];
  const deletes = new Map<string, { kinds: Kind[]; keys: { accountId: string; id: string }[] }>();
  for (const { accountId, id, change } of changes.rows.values()) {
    if ('upsert' in change) {
      upserts.push(change.upsert);
      continue;
    }
    const kinds = [...change.deleteKinds].sort();
    const group = deletes.get(kinds.join()) ?? { kinds, keys: [] };
    group.keys.push({ accountId, id });
    deletes.set(kinds.join(), group);
  }
  for (const { kinds, keys } of deletes.values()) {
    for (const chunk of statementChunks(keys)) {
      await db
        .deleteFrom('positions')
        .where(({ eb, refTuple, tuple }) =>
          eb(
            refTuple('account_id', 'id'),
            'in',
            chunk.map((k) => tuple(k.accountId, k.id)),
          ),
        )
        .where('kind', 'in', kinds)
        .execute();
    }
  }
  await upsertRows(db, 'positions', upserts, ['account_id', 'id'], POSITION_TYPES);
  const activity = new Map<string, { members: (keyof ActivityValues)[]; rows: { account_id: string; last_change_at: string; connected: boolean }[] }>();
  for (const [accountId, change] of changes.activity) {
    const members = (Object.keys(change.set) as (keyof ActivityValues)[]).sort();
    const group = activity.get(members.join()) ?? { members, rows: [] };
    group.rows.push({ account_id: accountId, ...change.insert });
    activity.set(members.join(), group);
  }
  for (const { members, rows } of activity.values()) await upsertRows(db, 'venue_activity', rows, ['account_id'], ACTIVITY_TYPES, members);
};

/**
 * The positions read model for a rebuild (Projection.rebuildFold): from empty tables nobody else
 * writes, the whole history's changes (changesOf, as applyBatch folds them) are folded in memory and
 * only the rows still there at the end are written, once each. Most positions of a history are closed
 * by its end: applyBatch would have written and deleted each of them.
 */
export const positionsRebuildFold = (): RebuildFold => {
  const rows = new Map<string, { accountId: string; id: string; change: { upsert: Row } }>();
  const activity = new Map<string, ActivityChange>();
  return {
    async apply(_db, events) {
      const changes = changesOf(events);
      for (const [key, row] of changes.rows) {
        const { change } = row;
        if ('upsert' in change) rows.set(key, { accountId: row.accountId, id: row.id, change });
        else {
          // A remove deletes the row only if it is of a kind it removes (an order that filled shares its id with the position).
          const held = rows.get(key);
          if (held && change.deleteKinds.has(held.change.upsert.kind)) rows.delete(key);
        }
      }
      for (const [accountId, change] of changes.activity) {
        const before = activity.get(accountId);
        const values = before ? { ...before.insert, ...change.set } : change.insert;
        activity.set(accountId, { insert: values, set: values });
      }
    },
    async finish(db) {
      await writeChanges(db, { rows, activity });
      rows.clear();
      activity.clear();
    },
  };
};

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
    await writeChanges(db, changesOf([recorded]));
  },
  async applyBatch(db, events) {
    await writeChanges(db, changesOf(events));
  },
  rebuildFold: positionsRebuildFold,
};
