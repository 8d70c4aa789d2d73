// Deals: what a fill does to an account's positions and balance (venues.md §5.3), for market
// orders and triggered pending orders alike.
import type { BalanceOperation, CancelReason, ClosedTrade, CloseReason, PendingOrder, Side } from '../port.js';
import { approx, commissionFor, exact, money, Money, type Numbers } from './arithmetic.js';
import type { Book } from './book.js';
import type { Desk } from './desk.js';
import type { Market } from './market.js';
import type { FeedQuote } from './prices.js';
import type { OrderRecord, PositionRecord } from './state.js';
import { iso, lotsOf, volumeUnits } from './validation.js';
import { type Exposure, usedMargin, valuation } from './valuation.js';
import { orderView, positionView, profitNow } from './views.js';

/** Averaged netting open prices keep this many decimals beyond the symbol's digits. */
const AVERAGE_PRICE_EXTRA_DIGITS = 5;

/** What a deal does to the one position of its symbol (netting) or to none (hedging). */
export type DealPlan =
  | { readonly kind: 'open'; readonly position: PositionRecord }
  | { readonly kind: 'increase'; readonly position: PositionRecord; readonly volume: number; readonly price: number; readonly commission: number }
  | { readonly kind: 'reduce'; readonly target: PositionRecord; readonly volume: number }
  | { readonly kind: 'reverse'; readonly target: PositionRecord; readonly position: PositionRecord };

export interface DealRequest {
  readonly ticket: string;
  readonly symbol: string;
  readonly side: Side;
  readonly volume: number;
  readonly price: number;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  readonly clientOrderId: string | null;
}

/** Hedging: every deal opens its own position. Netting: it adds to, reduces or reverses the symbol's one position. */
export const planDeal = (market: Market, book: Book, deal: DealRequest, now: number): DealPlan => {
  const { info } = market.spec(deal.symbol);
  const fresh = (volume: number): PositionRecord => ({
    id: deal.ticket,
    symbol: deal.symbol,
    side: deal.side,
    volume,
    openPrice: deal.price,
    openTime: iso(now),
    stopLoss: deal.stopLoss,
    takeProfit: deal.takeProfit,
    swap: 0,
    commission: commissionFor(info, volume),
    comment: deal.comment,
    magicNumber: deal.magicNumber,
    clientOrderId: deal.clientOrderId,
  });
  const existing = book.settings.marginMode === 'netting' ? [...book.positions.values()].find((p) => p.symbol === deal.symbol) : undefined;
  if (!existing) return { kind: 'open', position: fresh(deal.volume) };
  const held = volumeUnits(existing.volume);
  const dealt = volumeUnits(deal.volume);
  if (existing.side === deal.side) {
    const volume = new Money(existing.volume).plus(deal.volume);
    const average = new Money(existing.openPrice).times(existing.volume).plus(new Money(deal.price).times(deal.volume)).dividedBy(volume);
    const commission = commissionFor(info, deal.volume);
    const position: PositionRecord = {
      ...existing,
      volume: lotsOf(held + dealt),
      openPrice: average.toDecimalPlaces(info.digits + AVERAGE_PRICE_EXTRA_DIGITS).toNumber(),
      stopLoss: deal.stopLoss ?? existing.stopLoss,
      takeProfit: deal.takeProfit ?? existing.takeProfit,
      commission: money(existing.commission, commission),
    };
    return { kind: 'increase', position, volume: deal.volume, price: deal.price, commission };
  }
  if (dealt <= held) return { kind: 'reduce', target: existing, volume: deal.volume };
  return { kind: 'reverse', target: existing, position: fresh(lotsOf(dealt - held)) };
};

/**
 * A deal that raises the used margin needs equity, less its commission, to cover the margin
 * after it. Deals that do not raise it (closing, hedging the larger leg) always pass.
 */
export const affordable = (market: Market, book: Book, plan: DealPlan, now: number): boolean => {
  const before = [...book.positions.values()];
  let after: Exposure[];
  let commission = 0;
  switch (plan.kind) {
    case 'open':
      after = [...before, plan.position];
      commission = plan.position.commission;
      break;
    case 'increase':
      after = before.map((p) => (p.id === plan.position.id ? plan.position : p));
      commission = plan.commission;
      break;
    case 'reduce':
      after = before.map((p) => (p.id === plan.target.id ? { ...p, volume: lotsOf(volumeUnits(p.volume) - volumeUnits(plan.volume)) } : p));
      break;
    case 'reverse':
      after = [...before.filter((p) => p.id !== plan.target.id), plan.position];
      commission = plan.position.commission;
      break;
  }
  // In floats first: when both sides are clear of the tolerance, the exact answer is the same.
  const screened = affordableIn(approx, market, book, after, commission, now);
  const [raised, short] = [screened.marginAfter - screened.margin, screened.marginAfter - screened.equity - commission];
  const tolerance = screenTolerance(book.positions.size + after.length, screened);
  if (raised <= -tolerance || short <= -tolerance) return true;
  if (raised >= tolerance && short >= tolerance) return false;
  const { equity, margin, marginAfter } = affordableIn(exact, market, book, after, commission, now);
  return marginAfter.lessThanOrEqualTo(margin) || equity.plus(commission).greaterThanOrEqualTo(marginAfter);
};

const affordableIn = <T>(n: Numbers<T>, market: Market, book: Book, after: readonly Exposure[], commission: number, now: number) => {
  const { equity, margin } = valuation(n, market, book, now);
  return { equity, margin, marginAfter: usedMargin(n, market, book, after, now), commission };
};

/**
 * How far the float screen may be from the exact figures: the exact ones round each position's result
 * and each margin total to cents (half a cent each, a cent per position to be safe), and a float sum
 * of these sizes is off by far less than a millionth of its magnitude.
 */
const screenTolerance = (positions: number, figures: { equity: number; margin: number; marginAfter: number; commission: number }): number =>
  0.01 * (positions + 2) + 1e-6 * (Math.abs(figures.equity) + Math.abs(figures.margin) + Math.abs(figures.marginAfter) + Math.abs(figures.commission) + 1);

/** Returns the id of the position the deal left open on the symbol, or null. */
export const applyDeal = (desk: Desk, book: Book, plan: DealPlan, now: number): string | null => {
  const { market } = desk;
  switch (plan.kind) {
    case 'open':
      return openPosition(desk, book, plan.position, now);
    case 'increase': {
      book.balance = money(book.balance, plan.commission);
      book.positions.set(plan.position.id, plan.position);
      const position = positionView(market, book, plan.position, now);
      desk.emit(book, { type: 'positionIncreased', position, volume: plan.volume, price: plan.price }, now);
      return plan.position.id;
    }
    case 'reduce': {
      closeVolume(desk, book, plan.target, plan.volume, 'manual', market.quoteAt(plan.target.symbol, now), now);
      return book.positions.has(plan.target.id) ? plan.target.id : null;
    }
    case 'reverse':
      closeVolume(desk, book, plan.target, plan.target.volume, 'manual', market.quoteAt(plan.target.symbol, now), now);
      return openPosition(desk, book, plan.position, now);
  }
};

/** Commission is charged in full when volume opens (the round turn), from the balance. */
const openPosition = (desk: Desk, book: Book, position: PositionRecord, now: number): string => {
  book.balance = money(book.balance, position.commission);
  book.positions.set(position.id, position);
  desk.emit(book, { type: 'positionOpened', position: positionView(desk.market, book, position, now) }, now);
  return position.id;
};

/**
 * Closes `lots` of a position at the market's close side. A partial close keeps the id and
 * takes its share of the swap and the commission; the balance receives profit plus swap.
 */
export const closeVolume = (
  desk: Desk,
  book: Book,
  position: PositionRecord,
  lots: number,
  reason: CloseReason,
  quote: FeedQuote,
  now: number,
): ClosedTrade => {
  const full = volumeUnits(lots) === volumeUnits(position.volume);
  const share = (amount: number): number => (full ? amount : new Money(amount).times(lots).dividedBy(position.volume).toDecimalPlaces(2).toNumber());
  const swap = share(position.swap);
  const commission = share(position.commission);
  const closed = full ? position : { symbol: position.symbol, side: position.side, volume: lots, openPrice: position.openPrice };
  const closedProfit = profitNow(desk.market, book.settings.currency, closed, quote, now);
  const trade: ClosedTrade = {
    kind: 'trade',
    id: desk.ticket(),
    positionId: position.id,
    symbol: position.symbol,
    orderType: position.side,
    volume: lots,
    openPrice: position.openPrice,
    openTime: position.openTime,
    closePrice: position.side === 'buy' ? quote.bid : quote.ask,
    closeTime: iso(now),
    profit: closedProfit,
    swap,
    commission,
    reason,
    stopLoss: position.stopLoss,
    takeProfit: position.takeProfit,
    comment: position.comment,
    magicNumber: position.magicNumber,
    clientOrderId: position.clientOrderId,
  };
  book.balance = money(book.balance, closedProfit, swap);
  book.history.push(trade);
  if (full) {
    book.positions.delete(position.id);
    desk.emit(book, { type: 'positionClosed', trade }, now);
  } else {
    const rest: PositionRecord = {
      ...position,
      volume: lotsOf(volumeUnits(position.volume) - volumeUnits(lots)),
      swap: money(position.swap, -swap),
      commission: money(position.commission, -commission),
    };
    book.positions.set(rest.id, rest);
    desk.emit(book, { type: 'positionPartiallyClosed', position: positionView(desk.market, book, rest, now), trade }, now);
  }
  return trade;
};

export const cancelOrder = (desk: Desk, book: Book, order: OrderRecord, reason: CancelReason, now: number): PendingOrder => {
  book.orders.delete(order.id);
  const view = orderView(desk.market, order, now);
  desk.emit(book, { type: 'orderCancelled', order: view, reason }, now);
  return view;
};

export const balanceOperation = (desk: Desk, book: Book, amount: number, comment: string | null): BalanceOperation => {
  const now = desk.now();
  const operation: BalanceOperation = { kind: 'balance', id: desk.ticket(), time: iso(now), amount: money(amount), comment };
  book.balance = money(book.balance, operation.amount);
  book.history.push(operation);
  desk.emit(book, { type: 'balanceChanged', operation }, now);
  return operation;
};
