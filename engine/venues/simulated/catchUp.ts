// What one second does to the accounts as the venue catches up to the clock (or a pinned quote
// moves the market): per account, in this order, swaps at rollover, pending-order expiry, pending
// triggers, SL/TP, stop-out.
import type { Decimal } from 'decimal.js';
import { type CloseReason, type PendingOrderType, sideOf } from '../port.js';
import { approx, exact, money, Money } from './arithmetic.js';
import type { Book } from './book.js';
import { affordable, applyDeal, cancelOrder, closeVolume, planDeal } from './deals.js';
import type { Desk } from './desk.js';
import type { FeedQuote } from './prices.js';
import type { OrderRecord, PositionRecord } from './state.js';
import { noteChecked, STOP_OUT_SCREEN_MARGIN, unchangedSinceChecked } from './stopOutWatch.js';
import { isMarketOpen, isRollover, swapDaysAt } from './symbols.js';
import { rate, valuation } from './valuation.js';
import { orderView } from './views.js';

export const evaluate = (desk: Desk, books: Iterable<Book>, time: number, withRollover: boolean): void => {
  const { market } = desk;
  for (const book of books) {
    if (!book.active) continue;
    if (withRollover) chargeSwaps(desk, book, time);
    // Copies of the maps only where an order or a position may go while walking them.
    if (book.orders.size > 0) {
      for (const order of [...book.orders.values()]) {
        if (order.expiry !== null && Date.parse(order.expiry) <= time) cancelOrder(desk, book, order, 'expired', time);
      }
      for (const order of [...book.orders.values()]) {
        const spec = market.spec(order.symbol);
        if (!isMarketOpen(spec.schedule, time)) continue;
        const quote = market.quoteAt(order.symbol, time);
        if (isTriggered(order.orderType, order.openPrice, quote)) fill(desk, book, order, quote, time);
      }
    }
    if (hasStops(book)) {
      for (const position of [...book.positions.values()]) {
        if (!isMarketOpen(market.spec(position.symbol).schedule, time)) continue;
        const quote = market.quoteAt(position.symbol, time);
        const reason = stopHit(position, quote);
        if (reason) closeVolume(desk, book, position, position.volume, reason, quote, time);
      }
    }
    stopOut(desk, book, time);
  }
};

const hasStops = (book: Book): boolean => {
  for (const position of book.positions.values()) if (position.stopLoss !== null || position.takeProfit !== null) return true;
  return false;
};

/** Buy limit: ask ≤ price; sell limit: bid ≥ price; buy stop: ask ≥ price; sell stop: bid ≤ price (venues.md §5.4). */
const isTriggered = (type: PendingOrderType, price: number, quote: FeedQuote): boolean => {
  switch (type) {
    case 'buyLimit':
      return quote.ask <= price;
    case 'sellLimit':
      return quote.bid >= price;
    case 'buyStop':
      return quote.ask >= price;
    case 'sellStop':
      return quote.bid <= price;
  }
};

/** A buy closes at the bid, a sell at the ask, so SL/TP watch that side (venues.md §5.4). */
const stopHit = (position: PositionRecord, quote: FeedQuote): CloseReason | null => {
  const { stopLoss, takeProfit } = position;
  if (position.side === 'buy') {
    if (stopLoss !== null && quote.bid <= stopLoss) return 'stopLoss';
    if (takeProfit !== null && quote.bid >= takeProfit) return 'takeProfit';
  } else {
    if (stopLoss !== null && quote.ask >= stopLoss) return 'stopLoss';
    if (takeProfit !== null && quote.ask <= takeProfit) return 'takeProfit';
  }
  return null;
};

/** A triggered pending order fills at the market; without the margin it is cancelled (MT5 "no money"). */
const fill = (desk: Desk, book: Book, order: OrderRecord, quote: FeedQuote, now: number): void => {
  const side = sideOf(order.orderType);
  const price = side === 'buy' ? quote.ask : quote.bid;
  const plan = planDeal(
    desk.market,
    book,
    {
      ticket: order.id,
      symbol: order.symbol,
      side,
      volume: order.volume,
      price,
      stopLoss: order.stopLoss,
      takeProfit: order.takeProfit,
      comment: order.comment,
      magicNumber: order.magicNumber,
      clientOrderId: order.clientOrderId,
    },
    now,
  );
  if (!affordable(desk.market, book, plan, now)) {
    cancelOrder(desk, book, order, 'notEnoughMoney', now);
    return;
  }
  book.orders.delete(order.id);
  desk.emit(book, { type: 'orderFilled', order: orderView(desk.market, order, now), price }, now);
  applyDeal(desk, book, plan, now);
};

/** Swap in points per lot per day, converted to the account currency, added to the position. */
const chargeSwaps = (desk: Desk, book: Book, time: number): void => {
  // Most seconds are no rollover: nothing to copy then.
  if (!isRollover(time)) return;
  for (const position of [...book.positions.values()]) {
    const spec = desk.market.spec(position.symbol);
    const days = swapDaysAt(spec, time);
    if (days === 0) continue;
    const { info } = spec;
    const points = position.side === 'buy' ? info.swapLong : info.swapShort;
    const amount = new Money(points)
      .times(info.point)
      .times(info.contractSize)
      .times(position.volume)
      .times(days)
      .times(rate(exact, desk.market, info.profitCurrency, book.settings.currency, time))
      .toDecimalPlaces(2)
      .toNumber();
    if (amount !== 0) {
      book.positions.set(position.id, { ...position, swap: money(position.swap, amount) });
      book.touch();
    }
  }
};

/**
 * While the margin level is under the stop-out level, close the position with the largest loss
 * first (venues.md §5.3). A float screen keeps the per-second check cheap, and an account whose book
 * is unchanged and whose quotes stayed inside the band of its last check that found none is skipped
 * (stopOutWatch.ts).
 */
const stopOut = (desk: Desk, book: Book, time: number): void => {
  if (book.positions.size === 0 || unchangedSinceChecked(desk.market, book, time)) return;
  const screen = valuation(approx, desk.market, book, time);
  if (screen.margin <= 0 || screen.equity * 100 >= screen.margin * book.settings.stopOutLevel * STOP_OUT_SCREEN_MARGIN) {
    noteChecked(desk.market, book, time, screen);
    return;
  }
  for (;;) {
    const { equity, margin, results } = valuation(exact, desk.market, book, time);
    if (margin.isZero() || equity.times(100).greaterThanOrEqualTo(margin.times(book.settings.stopOutLevel))) {
      noteChecked(desk.market, book, time);
      return;
    }
    let worst: PositionRecord | undefined;
    let worstResult: Decimal | undefined;
    for (const position of book.positions.values()) {
      const result = results.get(position.id);
      if (result && (!worstResult || result.lessThan(worstResult))) {
        worst = position;
        worstResult = result;
      }
    }
    if (!worst) return;
    closeVolume(desk, book, worst, worst.volume, 'stopOut', desk.market.quoteAt(worst.symbol, time), time);
  }
};
