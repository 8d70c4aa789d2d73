// The port's changes of a ccxt account: the difference between two replayed books (book.ts), told
// once each (the recorder's ids are deterministic, so a change told again after a restart is one).
import type { VenueChange } from '../port.js';
import type { ReplayedBook } from './book.js';

/** A change as the connection tells it, before it gets its login, sequence and time. */
export type ChangeBody = VenueChange extends infer C ? (C extends VenueChange ? Omit<C, 'login' | 'sequence' | 'at'> : never) : never;

/** What changed from `previous` to `next`, in the order the port tells it. */
export const differenceOf = (previous: ReplayedBook, next: ReplayedBook): ChangeBody[] => {
  const changes: ChangeBody[] = [];
  const emit = (change: ChangeBody) => changes.push(change);
  const before = new Map(previous.positions.map((p) => [p.id, p]));
  const pendingBefore = new Map(previous.pending.map((o) => [o.id, o]));
  const tradesBefore = new Set(previous.trades.map((t) => t.id));
  const pendingNow = new Set(next.pending.map((o) => o.id));
  for (const order of next.pending) {
    const old = pendingBefore.get(order.id);
    if (!old) emit({ type: 'orderPlaced', order });
    else if (old.openPrice !== order.openPrice || old.volume !== order.volume) emit({ type: 'orderModified', order });
  }
  for (const position of next.positions) {
    const old = before.get(position.id);
    if (!old) {
      const filled = pendingBefore.get(position.id);
      if (filled) emit({ type: 'orderFilled', order: filled, price: position.openPrice });
      emit({ type: 'positionOpened', position });
    } else if (position.volume > old.volume) emit({ type: 'positionIncreased', position, volume: position.volume - old.volume, price: position.openPrice });
    else if (position.volume === old.volume && (position.stopLoss !== old.stopLoss || position.takeProfit !== old.takeProfit)) {
      emit({ type: 'positionModified', position });
    }
  }
  const openNow = new Map(next.positions.map((p) => [p.id, p]));
  for (const trade of next.trades) {
    if (tradesBefore.has(trade.id)) continue;
    const remaining = openNow.get(trade.positionId);
    if (remaining) emit({ type: 'positionPartiallyClosed', position: remaining, trade });
    else emit({ type: 'positionClosed', trade });
  }
  for (const [id, order] of pendingBefore) {
    if (pendingNow.has(id) || openNow.has(id) || next.trades.some((t) => t.positionId === id)) continue;
    emit({ type: 'orderCancelled', order, reason: 'manual' });
  }
  return changes;
};
