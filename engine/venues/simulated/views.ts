// Views: what the port answers, built from the records and the market at a time.
import { type AccountInformation, type HistoryEntry, type OpenPosition, type PendingOrder, type Quote, sideOf, type VenuePosition } from '../port.js';
import { exact } from './arithmetic.js';
import type { Book } from './book.js';
import type { Market } from './market.js';
import type { OrderRecord, PositionRecord } from './state.js';
import { checkedTime, iso } from './validation.js';
import { profit, valuation } from './valuation.js';

export const information = (market: Market, book: Book, now: number): AccountInformation => {
  const { equity, margin, floating } = valuation(exact, market, book, now);
  return {
    login: book.login,
    currency: book.settings.currency,
    leverage: book.settings.leverage,
    marginMode: book.settings.marginMode,
    balance: book.balance,
    credit: book.settings.credit,
    equity: equity.toNumber(),
    margin: margin.toNumber(),
    freeMargin: equity.minus(margin).toNumber(),
    marginLevel: margin.isZero() ? null : equity.dividedBy(margin).times(100).toDecimalPlaces(2).toNumber(),
    stopOutLevel: book.settings.stopOutLevel,
    unrealizedProfit: floating.toNumber(),
    openPositionsCount: book.positions.size,
    pendingOrdersCount: book.orders.size,
    connected: book.sessions.size > 0,
    environment: 'DEMO',
  };
};

export const positionView = (market: Market, book: Book, position: PositionRecord, now: number): OpenPosition => {
  const quote = market.quoteAt(position.symbol, now);
  return {
    kind: 'position',
    id: position.id,
    symbol: position.symbol,
    orderType: position.side,
    volume: position.volume,
    openPrice: position.openPrice,
    openTime: position.openTime,
    stopLoss: position.stopLoss,
    takeProfit: position.takeProfit,
    currentPrice: position.side === 'buy' ? quote.bid : quote.ask,
    profit: profit(exact, market, book.settings.currency, position, quote, now).toNumber(),
    swap: position.swap,
    commission: position.commission,
    comment: position.comment,
    magicNumber: position.magicNumber,
    clientOrderId: position.clientOrderId,
  };
};

export const orderView = (market: Market, order: OrderRecord, now: number): PendingOrder => {
  const quote = market.quoteAt(order.symbol, now);
  return {
    kind: 'order',
    id: order.id,
    symbol: order.symbol,
    orderType: order.orderType,
    volume: order.volume,
    openPrice: order.openPrice,
    openTime: order.openTime,
    stopLoss: order.stopLoss,
    takeProfit: order.takeProfit,
    expiry: order.expiry,
    currentPrice: sideOf(order.orderType) === 'buy' ? quote.ask : quote.bid,
    comment: order.comment,
    magicNumber: order.magicNumber,
    clientOrderId: order.clientOrderId,
  };
};

/** Open positions, then pending orders. */
export const openItems = (market: Market, book: Book, now: number): VenuePosition[] => [
  ...[...book.positions.values()].map((position) => positionView(market, book, position, now)),
  ...[...book.orders.values()].map((order) => orderView(market, order, now)),
];

export const historyOf = (book: Book, from: string, to: string): readonly HistoryEntry[] => {
  const start = checkedTime(from, 'from', '[INVALID_REQUEST]');
  const end = checkedTime(to, 'to', '[INVALID_REQUEST]');
  return book.history.filter((entry) => {
    const at = Date.parse(entry.kind === 'trade' ? entry.closeTime : entry.time);
    return at >= start && at <= end;
  });
};

/** Market data, no account needed; [SYMBOL_NOT_FOUND] for a symbol the venue does not list. */
export const quoteView = (market: Market, symbol: string, time: number): Quote => {
  market.spec(symbol);
  const quote = market.quoteAt(symbol, time);
  return { symbol, bid: quote.bid, ask: quote.ask, time: iso(quote.time) };
};
