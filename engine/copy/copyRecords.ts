// The copy records the copy rules read (features/rules.ts): a copier's or a slave account's copies
// newest first, a slave's standalone trades, the master's orders on a symbol and when a slave last
// traded, from the copies, positions and history read models.
import { type Kysely, type Selectable, sql } from 'kysely';
import { type CopyRecord, type MasterOrderRecord, STANDALONE_PREFIX } from '../../domain/copy/features/rules.js';
import { partialsOf } from '../../projections/copies/queries.js';
import type { CopiesTable, ReadModels } from '../../projections/schema.js';

/** Per slave account, the copies of all its copiers newest first: every open one and the last HISTORY_DEPTH in all. */
export const accountCopyHistory = (db: Kysely<ReadModels>, accountIds: readonly string[]): Promise<Map<string, CopyRecord[]>> =>
  copiesBy(db, 'slave_account_id', accountIds);

/** Per `key` (a copier or a slave account), its copies newest first: every open one and the last HISTORY_DEPTH in all. */
const copiesBy = async (db: Kysely<ReadModels>, key: 'copier_id' | 'slave_account_id', ids: readonly string[]): Promise<Map<string, CopyRecord[]>> => {
  const out = new Map<string, CopyRecord[]>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('copies')
        .selectAll()
        .select(sql<number>`row_number() OVER (PARTITION BY ${sql.ref(key)} ORDER BY opened_at DESC)`.as('n'))
        .where(key, 'in', [...ids])
        .where('master_position_id', 'not like', STANDALONE_LIKE)
        .as('ranked'),
    )
    .selectAll()
    .where((eb) => eb.or([eb('n', '<=', HISTORY_DEPTH), eb('status', '=', 'open')]))
    .orderBy('opened_at', 'desc')
    .execute();
  for (const row of rows) {
    const list = out.get(row[key]) ?? [];
    list.push(recordOf(row));
    out.set(row[key], list);
  }
  return out;
};

/** Per copier, its copies newest first: every open one and the last HISTORY_DEPTH in all. */
export const HISTORY_DEPTH = 500;

/** Standalone trades (features/rules.ts standaloneTradeId) are no copies: every copy rule's view leaves them out. */
export const STANDALONE_LIKE = `${STANDALONE_PREFIX}%`;

/** A copy as the rules see it: with partial closes, `volume` is what the last close closed and `result` the net of every part. */
const recordOf = (row: Selectable<CopiesTable>): CopyRecord => {
  const partials = partialsOf(row);
  const partsResult = partials.reduce((sum, p) => sum + p.result, 0);
  return {
    masterPositionId: row.master_position_id,
    slavePositionId: row.slave_position_id,
    symbol: row.symbol,
    side: row.order_type.startsWith('Buy') ? 'Buy' : 'Sell',
    volume: row.volume,
    openedAt: new Date(row.opened_at).toISOString(),
    closedAt: row.closed_at ? new Date(row.closed_at).toISOString() : null,
    result: row.result === null || partials.length === 0 ? row.result : row.result + partsResult,
    closePrice: row.close_price,
    closedBy: row.closed_by,
    ...(partials.length > 0 ? { partials } : {}),
  };
};

export const copyHistory = (db: Kysely<ReadModels>, copierIds: readonly string[]): Promise<Map<string, CopyRecord[]>> => copiesBy(db, 'copier_id', copierIds);

/**
 * The standalone trades (a keep-alive's) on a slave account, whichever of its copiers placed them (each
 * feature sees its own, by its id: an account's keep-alive trade stays its own when its carrier changes):
 * every open one and the last HISTORY_DEPTH in all, newest first.
 */
export const standaloneTrades = async (db: Kysely<ReadModels>, slaveAccountId: string): Promise<CopyRecord[]> => {
  const rows = await db
    .selectFrom('copies')
    .selectAll()
    .where('slave_account_id', '=', slaveAccountId)
    .where('master_position_id', 'like', STANDALONE_LIKE)
    .orderBy('opened_at', 'desc')
    .limit(HISTORY_DEPTH)
    .execute();
  const open = await db
    .selectFrom('copies')
    .selectAll()
    .where('slave_account_id', '=', slaveAccountId)
    .where('master_position_id', 'like', STANDALONE_LIKE)
    .where('status', '=', 'open')
    .execute();
  const seen = new Set(rows.map((r) => r.master_position_id));
  return [...rows, ...open.filter((r) => !seen.has(r.master_position_id))].map(recordOf);
};

/** Closed positions a live delay looks back over at most: enough for any count it makes (LIVE_DELAY_MAX_ORDERS). */
const MASTER_ORDERS_DEPTH = 1000;

/**
 * The master's orders on a symbol, oldest first: its open positions and pending orders (positions read
 * model) and its positions closed since `since` (history read model; the newest MASTER_ORDERS_DEPTH).
 */
export const masterOrdersOf = async (db: Kysely<ReadModels>, masterAccountId: string, symbol: string, since: string | null): Promise<MasterOrderRecord[]> => {
  const open = await db
    .selectFrom('positions')
    .select(['id', 'kind', 'order_type', 'open_time'])
    .where('account_id', '=', masterAccountId)
    .where('symbol', '=', symbol)
    .execute();
  let closedQuery = db
    .selectFrom('closed_trades')
    .select(['position_id', 'side', sql<Date>`min(open_time)`.as('opened'), sql<Date>`max(close_time)`.as('closed')])
    .where('account_id', '=', masterAccountId)
    .where('symbol', '=', symbol);
  if (since !== null) closedQuery = closedQuery.where('close_time', '>=', new Date(since));
  const closed = await closedQuery
    .groupBy(['position_id', 'side'])
    .orderBy(sql`max(close_time)`, 'desc')
    .limit(MASTER_ORDERS_DEPTH)
    .execute();
  const openIds = new Set(open.map((o) => o.id));
  const records: MasterOrderRecord[] = [
    ...open.map((o): MasterOrderRecord => ({
      masterPositionId: o.id,
      side: o.order_type.startsWith('Buy') ? 'Buy' : 'Sell',
      kind: o.kind === 'order' ? 'pendingOrder' : 'position',
      openedAt: new Date(o.open_time).toISOString(),
      closedAt: null,
    })),
    // A partial close of a position still open is no close of it.
    ...closed
      .filter((c) => !openIds.has(c.position_id))
      .map((c): MasterOrderRecord => ({
        masterPositionId: c.position_id,
        side: c.side.startsWith('Buy') ? 'Buy' : 'Sell',
        kind: 'position',
        openedAt: new Date(c.opened).toISOString(),
        closedAt: new Date(c.closed).toISOString(),
      })),
  ];
  return records.sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.masterPositionId.localeCompare(b.masterPositionId));
};

/**
 * When the slave account last opened or closed a position (positions and history read models), its
 * standalone trades aside; null when never.
 */
export const slaveLastTradeAt = async (db: Kysely<ReadModels>, slaveAccountId: string): Promise<string | null> => {
  const standalone = db
    .selectFrom('copies')
    .select('slave_position_id')
    .where('slave_account_id', '=', slaveAccountId)
    .where('master_position_id', 'like', STANDALONE_LIKE);
  const open = await db
    .selectFrom('positions')
    .select(sql<Date | null>`max(open_time)`.as('at'))
    .where('account_id', '=', slaveAccountId)
    .where('kind', '=', 'position')
    .where('id', 'not in', standalone)
    .executeTakeFirst();
  const closed = await db
    .selectFrom('closed_trades')
    .select(sql<Date | null>`max(greatest(open_time, close_time))`.as('at'))
    .where('account_id', '=', slaveAccountId)
    .where('position_id', 'not in', standalone)
    .executeTakeFirst();
  const times = [open?.at, closed?.at].filter((t): t is Date => t !== null && t !== undefined).map((t) => new Date(t).getTime());
  return times.length === 0 ? null : new Date(Math.max(...times)).toISOString();
};
