// Queries of the history read model, in the shapes domain/analytics/metrics.ts takes.
import type { Kysely } from 'kysely';
import type { BalanceRecord, TradeRecord } from '../../domain/analytics/metrics.js';
import type { ReadModels } from '../schema.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

/** Every closed volume of the account up to `to` (null = all), by close time. */
export const tradesOf = async (db: Kysely<ReadModels>, accountId: string, to: string | null = null): Promise<TradeRecord[]> => {
  let q = db.selectFrom('closed_trades').selectAll().where('account_id', '=', accountId);
  if (to) q = q.where('close_time', '<=', new Date(to));
  const rows = await q.orderBy('close_time').orderBy('trade_id').execute();
  return rows.map((r) => ({
    id: r.trade_id,
    positionId: r.position_id,
    symbol: r.symbol,
    side: r.side === 'Sell' ? 'Sell' : 'Buy',
    volume: r.volume,
    openTime: iso(r.open_time),
    closeTime: iso(r.close_time),
    profit: r.profit,
    swap: r.swap,
    commission: r.commission,
  }));
};

export const balanceOperationsOf = async (db: Kysely<ReadModels>, accountId: string, to: string | null = null): Promise<BalanceRecord[]> => {
  let q = db.selectFrom('balance_operations').selectAll().where('account_id', '=', accountId);
  if (to) q = q.where('time', '<=', new Date(to));
  const rows = await q.orderBy('time').orderBy('operation_id').execute();
  return rows.map((r) => ({ id: r.operation_id, time: iso(r.time), amount: r.amount }));
};

/** The account's closed volumes with their close in [start, stop] (ISO, inclusive), as stored, by close time. */
export const closedTradesBetween = (db: Kysely<ReadModels>, accountId: string, start: string, stop: string) =>
  db
    .selectFrom('closed_trades')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('close_time', '>=', new Date(start))
    .where('close_time', '<=', new Date(stop))
    .orderBy('close_time')
    .orderBy('trade_id')
    .execute();

/** The closed volumes (partial closes) of the account's positions `positionIds`, by close time. */
export const partialClosesOf = async (
  db: Kysely<ReadModels>,
  accountId: string,
  positionIds: readonly string[],
): Promise<{ masterPositionId: string; volume: number; at: string }[]> => {
  if (positionIds.length === 0) return [];
  const rows = await db
    .selectFrom('closed_trades')
    .select(['position_id', 'volume', 'close_time'])
    .where('account_id', '=', accountId)
    .where('position_id', 'in', positionIds)
    .orderBy('close_time')
    .orderBy('trade_id')
    .execute();
  return rows.map((r) => ({ masterPositionId: r.position_id, volume: r.volume, at: iso(r.close_time) }));
};
