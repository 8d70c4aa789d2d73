// The history read model: every closed volume (full and partial closes) and every balance operation
// of every account, as its venue reported them; a closed volume keeps the labels of its position (stop
// loss and take profit at the close, comment, magic number, client order id) for the history answers. Performance metrics and account information's results
// are computed from it (domain/analytics/metrics.ts), so they can be explained from the events.
import { type Insertable, type Kysely, sql } from 'kysely';
import type { PositionsEvent } from '../../domain/positions/events.js';
import type { RecordedEvent } from '../../store/port.js';
import { type FirstOfKeyWriter, insertFirstOfKey, keylessFirstOfKey, type Projection, type RebuildFold } from '../projection.js';
import type { BalanceOperationsTable, ClosedTradesTable, ReadModels } from '../schema.js';

type ClosedTradeRow = Insertable<ClosedTradesTable>;
type BalanceOperationRow = Insertable<BalanceOperationsTable>;

const TRADE_TYPES: { readonly [K in keyof ClosedTradeRow]?: string } = {
  account_id: 'uuid',
  trade_id: 'text',
  position_id: 'text',
  symbol: 'text',
  side: 'text',
  volume: 'float8',
  open_price: 'float8',
  open_time: 'timestamptz',
  close_price: 'float8',
  close_time: 'timestamptz',
  profit: 'float8',
  swap: 'float8',
  commission: 'float8',
  reason: 'text',
  stop_loss: 'float8',
  take_profit: 'float8',
  comment: 'text',
  magic_number: 'bigint',
  client_order_id: 'text',
};

const OPERATION_TYPES: { readonly [K in keyof BalanceOperationRow]?: string } = {
  account_id: 'uuid',
  operation_id: 'text',
  time: 'timestamptz',
  amount: 'float8',
  comment: 'text',
};

/** Every closed volume and balance operation of a batch, in two multi-row INSERTs (`insert`); a replay adds nothing. */
const insertHistory = async (db: Kysely<ReadModels>, events: readonly RecordedEvent[], insert: FirstOfKeyWriter = insertFirstOfKey): Promise<void> => {
  const trades: ClosedTradeRow[] = [];
  const operations: BalanceOperationRow[] = [];
  for (const recorded of events) {
    const event = recorded as unknown as PositionsEvent;
    if (event.type === 'PositionPartiallyClosed' || event.type === 'PositionClosed') {
      const t = event.data.trade;
      trades.push({
        account_id: event.data.accountId,
        trade_id: t.tradeId,
        position_id: t.positionId,
        symbol: t.symbol,
        side: t.orderType,
        volume: t.volume,
        open_price: t.openPrice,
        open_time: t.openTime,
        close_price: t.closePrice,
        close_time: t.closeTime,
        profit: t.profit,
        swap: t.swap,
        commission: t.commission,
        reason: t.reason,
        stop_loss: t.stopLoss ?? null,
        take_profit: t.takeProfit ?? null,
        comment: t.comment,
        magic_number: t.magicNumber,
        client_order_id: t.clientOrderId,
      });
    } else if (event.type === 'BalanceChanged') {
      const o = event.data.operation;
      operations.push({ account_id: event.data.accountId, operation_id: o.operationId, time: o.time, amount: o.amount, comment: o.comment });
    }
  }
  await insert(db, 'closed_trades', trades, ['account_id', 'trade_id'], TRADE_TYPES);
  await insert(db, 'balance_operations', operations, ['account_id', 'operation_id'], OPERATION_TYPES);
};

/** The history for a rebuild (Projection.rebuildFold): the same rows, their primary keys made once at the end (keylessFirstOfKey). */
export const historyRebuildFold = (): RebuildFold => {
  const keyless = keylessFirstOfKey();
  return { apply: (db, events) => insertHistory(db, events, keyless.insert), finish: keyless.finish };
};

export const historyProjection: Projection = {
  name: 'history',
  // 2: the position's stop loss, take profit, comment, magic number and client order id with each closed volume.
  version: 2,
  handles: ['PositionPartiallyClosed', 'PositionClosed', 'BalanceChanged'],
  tables: ['closed_trades', 'balance_operations'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'closed_trades')} (
      account_id uuid NOT NULL,
      trade_id text NOT NULL,
      position_id text NOT NULL,
      symbol text NOT NULL,
      side text NOT NULL,
      volume double precision NOT NULL,
      open_price double precision NOT NULL,
      open_time timestamptz NOT NULL,
      close_price double precision NOT NULL,
      close_time timestamptz NOT NULL,
      profit double precision NOT NULL,
      swap double precision NOT NULL,
      commission double precision NOT NULL,
      reason text NOT NULL,
      stop_loss double precision,
      take_profit double precision,
      comment text,
      magic_number bigint,
      client_order_id text,
      PRIMARY KEY (account_id, trade_id))`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'balance_operations')} (
      account_id uuid NOT NULL,
      operation_id text NOT NULL,
      time timestamptz NOT NULL,
      amount double precision NOT NULL,
      comment text,
      PRIMARY KEY (account_id, operation_id))`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'closed_trades')} (account_id, close_time)`.execute(db);
  },
  async apply(db, recorded) {
    await insertHistory(db, [recorded]);
  },
  async applyBatch(db, events) {
    await insertHistory(db, events);
  },
  rebuildFold: historyRebuildFold,
};
