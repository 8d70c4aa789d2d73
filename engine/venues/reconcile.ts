// Reconciliation: whenever a session starts (start, reconnect, service restart) the venue's book is
// compared with the positions read model, and what was missed while nobody listened is recorded, in
// this order: positions and pending orders that appeared, changed, filled or were partially closed
// (the venue's book); those that are gone (closed, filled and closed, cancelled or expired; a position
// gone without a closing trade in the venue's history is told in the account's log); balance
// operations. Ids are deterministic (recorder.ts), so a change seen live and again here is stored once.
import type { Selectable } from 'kysely';
import type { MarketOrderType } from '../../domain/copy/types.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import { filledPosition, type PendingOrderData } from '../../domain/positions/position.js';
import type { PositionsTable } from '../../projections/schema.js';
import type { ClosedTrade, HistoryEntry, OpenPosition, PendingOrder, VenuePosition } from './port.js';
import { orderData, positionData, tradeData } from './recorder.js';

type Row = Selectable<PositionsTable>;

/** What a reconciliation compares, and how it records. */
export interface Reconciliation {
  readonly accountId: string;
  readonly now: string;
  /** Balance operations from this time on are recorded (the last change seen, less a minute). */
  readonly since: string;
  /** The positions read model's rows of the account, by id. */
  readonly known: ReadonlyMap<string, Row>;
  readonly venueBook: readonly VenuePosition[];
  readonly history: readonly HistoryEntry[];
  /** Records an event under a key its id derives from. */
  readonly record: (key: string, event: PositionsEvent) => Promise<void>;
  readonly warn: (message: string) => void;
}

/** Records what the venue did while the account had no session. */
export const reconcileAccount = async (r: Reconciliation): Promise<void> => {
  for (const item of r.venueBook) {
    const row = r.known.get(item.id);
    if (item.kind === 'position') await reconcilePosition(r, item, row);
    else await reconcileOrder(r, item, row);
  }
  const open = new Set(r.venueBook.map((item) => item.id));
  for (const row of r.known.values()) {
    if (open.has(row.id)) continue;
    if (row.kind === 'position') await recordGonePosition(r, row);
    else await recordGoneOrder(r, row);
  }
  for (const entry of r.history) {
    if (entry.kind !== 'balance' || entry.time < r.since) continue;
    await r.record(`balance/${entry.id}`, {
      type: 'BalanceChanged',
      data: { accountId: r.accountId, at: entry.time, operation: { operationId: entry.id, time: entry.time, amount: entry.amount, comment: entry.comment } },
    });
  }
};

const isTrade = (entry: HistoryEntry): entry is ClosedTrade => entry.kind === 'trade';

const tradesOf = (r: Reconciliation, positionId: string): ClosedTrade[] => r.history.filter(isTrade).filter((t) => t.positionId === positionId);

/** A pending order as the positions read model last saw it. */
const orderOfRow = (row: Row): PendingOrderData => ({
  orderId: row.id,
  symbol: row.symbol,
  orderType: row.order_type as PendingOrderData['orderType'],
  volume: row.volume,
  openPrice: row.open_price,
  openTime: new Date(row.open_time).toISOString(),
  stopLoss: row.stop_loss,
  takeProfit: row.take_profit,
  expiry: row.expiry ? new Date(row.expiry).toISOString() : null,
  comment: row.comment,
  magicNumber: row.magic_number === null ? null : Number(row.magic_number),
  clientOrderId: row.client_order_id,
});

/** The partial closes of a position in the venue's history (all of them, or all but the last: the close). */
const recordPartials = async (r: Reconciliation, positionId: string, remaining: number | null, excludeLast: boolean): Promise<void> => {
  const trades = tradesOf(r, positionId);
  const partial = excludeLast ? trades.slice(0, -1) : trades;
  for (const trade of partial) {
    const position = r.venueBook.find((p) => p.kind === 'position' && p.id === positionId);
    if (!position || position.kind !== 'position') continue;
    await r.record(`partial/${trade.id}`, {
      type: 'PositionPartiallyClosed',
      data: {
        accountId: r.accountId,
        at: trade.closeTime,
        position: { ...positionData(position), volume: remaining ?? position.volume },
        trade: tradeData(trade),
      },
    });
  }
};

/** A position of the venue's book: new (or a pending order that filled), resized, or with other stops. */
const reconcilePosition = async (r: Reconciliation, item: OpenPosition, row: Row | undefined): Promise<void> => {
  const { accountId, now } = r;
  const position = positionData(item);
  if (row?.kind === 'order') {
    await r.record(`filled/${item.id}`, { type: 'PendingOrderFilled', data: { accountId, at: item.openTime, price: item.openPrice, order: orderOfRow(row) } });
  }
  if (!row || row.kind === 'order') {
    const fromPendingOrder = row?.kind === 'order';
    await r.record(`opened/${item.id}`, { type: 'PositionOpened', data: { accountId, at: item.openTime, position, fromPendingOrder } });
    return;
  }
  if (row.volume !== item.volume) {
    if (item.volume < row.volume) await recordPartials(r, item.id, item.volume, false);
    else
      await r.record(`reconciled/${item.id}/${item.volume}/${now}`, {
        type: 'PositionIncreased',
        data: { accountId, at: now, position, volume: item.volume - row.volume, price: item.openPrice },
      });
  }
  if (row.stop_loss !== item.stopLoss || row.take_profit !== item.takeProfit) {
    await r.record(`reconciled/${item.id}/${item.stopLoss}/${item.takeProfit}/${now}`, { type: 'PositionModified', data: { accountId, at: now, position } });
  }
};

/** A pending order of the venue's book: new, or changed. */
const reconcileOrder = async (r: Reconciliation, item: PendingOrder, row: Row | undefined): Promise<void> => {
  const { accountId, now } = r;
  const order = orderData(item);
  if (!row) {
    await r.record(`placed/${item.id}`, { type: 'PendingOrderPlaced', data: { accountId, at: item.openTime, order } });
  } else if (row.open_price !== item.openPrice || row.stop_loss !== item.stopLoss || row.take_profit !== item.takeProfit || row.volume !== item.volume) {
    await r.record(`reconciled-order/${item.id}/${now}`, { type: 'PendingOrderModified', data: { accountId, at: now, order } });
  }
};

/** A known position the venue no longer holds: its partial closes, then its close. */
const recordGonePosition = async (r: Reconciliation, row: Row): Promise<void> => {
  const trades = tradesOf(r, row.id);
  const last = trades[trades.length - 1];
  if (!last) {
    // The account's log says so (a lost trade leaves a reason a user can read), once: the key is the
    // position's, so the same reconciliation run again records nothing new.
    r.warn(`account ${r.accountId}: position ${row.id} is gone at the venue without a closing trade`);
    await r.record(`gone/${row.id}`, {
      type: 'PositionGoneWithoutTrade',
      data: {
        accountId: r.accountId,
        at: r.now,
        positionId: row.id,
        symbol: row.symbol,
        orderType: row.order_type as MarketOrderType,
        volume: row.volume,
        openPrice: row.open_price,
      },
    });
    return;
  }
  await recordPartials(r, row.id, null, true);
  await r.record(`closed/${row.id}`, { type: 'PositionClosed', data: { accountId: r.accountId, at: last.closeTime, trade: tradeData(last) } });
};

/** A known pending order the venue no longer holds: filled and closed while away, or cancelled (expired). */
const recordGoneOrder = async (r: Reconciliation, row: Row): Promise<void> => {
  const { accountId, now } = r;
  const order = orderOfRow(row);
  const trades = tradesOf(r, row.id);
  const last = trades[trades.length - 1];
  if (!last) {
    const expired = row.expiry !== null && new Date(row.expiry).getTime() <= Date.parse(now);
    await r.record(`cancelled/${row.id}`, { type: 'PendingOrderCancelled', data: { accountId, at: now, order, reason: expired ? 'expired' : 'manual' } });
    return;
  }
  // Filled and closed while away: the fill, then the close.
  await r.record(`filled/${row.id}`, { type: 'PendingOrderFilled', data: { accountId, at: last.openTime, order, price: last.openPrice } });
  const trade = tradeData(last);
  await r.record(`opened/${row.id}`, {
    type: 'PositionOpened',
    data: { accountId, at: last.openTime, fromPendingOrder: true, position: filledPosition(order, trade) },
  });
  await r.record(`closed/${row.id}`, { type: 'PositionClosed', data: { accountId, at: last.closeTime, trade } });
};
