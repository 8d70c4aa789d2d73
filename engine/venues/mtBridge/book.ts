// The terminal's book as the venue port spells it, and the changes between two books. The EA reports
// snapshots (protocol.ts BookMessage) rather than deltas, the same in MT4 (which has no trade
// transactions) and MT5; the service derives the port's changes here, live and after a terminal comes
// back (then with the trades of its history since the last book the service saw).
import type { BalanceOperation, ClosedTrade, HistoryEntry, OpenPosition, PendingOrder, VenueChange, VenuePosition } from '../port.js';
import { clientOrderIdOf, TAG_PREFIX, type MtBalance, type MtOrder, type MtPosition, type MtTrade } from './protocol.js';

/** A tagged comment carries the client order id; the comment itself is then none of the user's. */
const labels = (comment: string | null, known: ReadonlyMap<string, string>): { comment: string | null; clientOrderId: string | null } =>
  comment?.startsWith(TAG_PREFIX) ? { comment: null, clientOrderId: known.get(comment) ?? clientOrderIdOf(comment) } : { comment, clientOrderId: null };

export const toPosition = (p: MtPosition, known: ReadonlyMap<string, string>): OpenPosition => ({
  kind: 'position',
  id: p.id,
  symbol: p.symbol,
  orderType: p.side,
  volume: p.volume,
  openPrice: p.openPrice,
  openTime: p.openTime,
  stopLoss: p.stopLoss,
  takeProfit: p.takeProfit,
  swap: p.swap,
  commission: p.commission,
  magicNumber: p.magic,
  currentPrice: p.currentPrice,
  profit: p.profit,
  ...labels(p.comment, known),
});

export const toOrder = (o: MtOrder, known: ReadonlyMap<string, string>): PendingOrder => ({
  kind: 'order',
  id: o.id,
  symbol: o.symbol,
  orderType: o.type,
  volume: o.volume,
  openPrice: o.openPrice,
  openTime: o.openTime,
  stopLoss: o.stopLoss,
  takeProfit: o.takeProfit,
  expiry: o.expiry,
  magicNumber: o.magic,
  currentPrice: o.currentPrice,
  ...labels(o.comment, known),
});

export const toTrade = (t: MtTrade, known: ReadonlyMap<string, string>): ClosedTrade => ({
  kind: 'trade',
  id: t.id,
  positionId: t.positionId,
  symbol: t.symbol,
  orderType: t.side,
  volume: t.volume,
  openPrice: t.openPrice,
  openTime: t.openTime,
  closePrice: t.closePrice,
  closeTime: t.closeTime,
  profit: t.profit,
  swap: t.swap,
  commission: t.commission,
  reason: t.reason,
  stopLoss: t.stopLoss,
  takeProfit: t.takeProfit,
  magicNumber: t.magic,
  ...labels(t.comment, known),
});

export const toBalance = (b: MtBalance): BalanceOperation => ({ kind: 'balance', id: b.id, time: b.time, amount: b.amount, comment: b.comment });

export const historyOf = (trades: readonly MtTrade[], balances: readonly MtBalance[], known: ReadonlyMap<string, string>): HistoryEntry[] => [
  ...trades.map((t) => toTrade(t, known)).sort((a, b) => a.closeTime.localeCompare(b.closeTime)),
  ...balances.map(toBalance).sort((a, b) => a.time.localeCompare(b.time)),
];

export interface Book {
  readonly positions: readonly OpenPosition[];
  readonly orders: readonly PendingOrder[];
}

export const bookItems = (book: Book): VenuePosition[] => [...book.positions, ...book.orders];

type Draft = VenueChange extends infer C ? (C extends VenueChange ? Omit<C, 'login' | 'sequence' | 'at'> & { at?: string } : never) : never;

/** What the diff needs besides the two books. */
export interface DiffInput {
  readonly before: Book;
  readonly after: Book;
  /** Closed volumes not seen before, oldest first. */
  readonly trades: readonly ClosedTrade[];
  readonly balances: readonly BalanceOperation[];
  readonly now: string;
  /** A position gone without a closing trade: logged, nothing recorded (reconcile.ts does the same). */
  readonly warn: (message: string) => void;
}

const sameStops = (a: { stopLoss: number | null; takeProfit: number | null }, b: { stopLoss: number | null; takeProfit: number | null }) =>
  a.stopLoss === b.stopLoss && a.takeProfit === b.takeProfit;

/** The changes that turn `before` into `after`, in the order the port delivers them. */
export const diffBooks = (input: DiffInput): Draft[] => {
  const { before, after, trades, now } = input;
  const out: Draft[] = [];
  const positionsBefore = new Map(before.positions.map((p) => [p.id, p]));
  const positionsAfter = new Map(after.positions.map((p) => [p.id, p]));
  const ordersBefore = new Map(before.orders.map((o) => [o.id, o]));
  const ordersAfter = new Map(after.orders.map((o) => [o.id, o]));
  const tradesOf = (positionId: string) => trades.filter((t) => t.positionId === positionId);

  for (const op of input.balances) out.push({ type: 'balanceChanged', operation: op, at: op.time });

  for (const order of after.orders) {
    const was = ordersBefore.get(order.id);
    if (!was) out.push({ type: 'orderPlaced', order, at: order.openTime });
    else if (was.openPrice !== order.openPrice || was.volume !== order.volume || !sameStops(was, order) || was.expiry !== order.expiry)
      out.push({ type: 'orderModified', order, at: now });
  }

  for (const position of after.positions) {
    const was = positionsBefore.get(position.id);
    const order = ordersBefore.get(position.id);
    if (!was) {
      if (order && !ordersAfter.has(order.id)) out.push({ type: 'orderFilled', order, price: position.openPrice, at: position.openTime });
      // A position opened and partly closed between two books opens with what remains (its partial trades are history).
      out.push({ type: 'positionOpened', position, at: position.openTime });
      continue;
    }
    if (position.volume < was.volume) {
      for (const trade of tradesOf(position.id)) out.push({ type: 'positionPartiallyClosed', position, trade, at: trade.closeTime });
    } else if (position.volume > was.volume) {
      out.push({ type: 'positionIncreased', position, volume: Number((position.volume - was.volume).toFixed(8)), price: position.openPrice, at: now });
    }
    if (!sameStops(was, position)) out.push({ type: 'positionModified', position, at: now });
  }

  for (const was of before.positions) {
    if (positionsAfter.has(was.id)) continue;
    const closes = tradesOf(was.id);
    const last = closes[closes.length - 1];
    if (!last) {
      input.warn(`position ${was.id} is gone from the terminal without a closing trade`);
      continue;
    }
    let volume = was.volume;
    for (const trade of closes.slice(0, -1)) {
      volume = Number((volume - trade.volume).toFixed(8));
      out.push({ type: 'positionPartiallyClosed', position: { ...was, volume }, trade, at: trade.closeTime });
    }
    out.push({ type: 'positionClosed', trade: last, at: last.closeTime });
  }

  for (const order of before.orders) {
    if (ordersAfter.has(order.id) || positionsAfter.has(order.id)) continue;
    const closes = tradesOf(order.id);
    const last = closes[closes.length - 1];
    if (last) {
      // Filled and closed between two books.
      out.push({ type: 'orderFilled', order, price: last.openPrice, at: last.openTime });
      out.push({
        type: 'positionOpened',
        at: last.openTime,
        position: {
          kind: 'position',
          id: order.id,
          symbol: order.symbol,
          orderType: last.orderType,
          volume: order.volume,
          openPrice: last.openPrice,
          openTime: last.openTime,
          stopLoss: order.stopLoss,
          takeProfit: order.takeProfit,
          swap: 0,
          commission: 0,
          comment: order.comment,
          magicNumber: order.magicNumber,
          clientOrderId: order.clientOrderId,
          currentPrice: last.closePrice,
          profit: 0,
        },
      });
      out.push({ type: 'positionClosed', trade: last, at: last.closeTime });
    } else {
      const expired = order.expiry !== null && order.expiry <= now;
      out.push({ type: 'orderCancelled', order, reason: expired ? 'expired' : 'manual', at: now });
    }
  }
  return out;
};
