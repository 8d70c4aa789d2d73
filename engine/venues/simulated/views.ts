// Views: what the port answers, built from the records and the market at a time.
import { type AccountInformation, type HistoryEntry, type OpenPosition, type PendingOrder, type Quote, sideOf, type VenuePosition } from '../port.js';
import { approx, centsNear, centsOf, exact } from './arithmetic.js';
import { type Book, historyEntryTime } from './book.js';
import type { Market } from './market.js';
import type { OrderRecord, PositionRecord } from './state.js';
import { checkedTime, iso } from './validation.js';
import type { FeedQuote } from './prices.js';
import { profit, rate, usedMargin, valuation } from './valuation.js';

/** What a position's profit depends on. */
type Priced = Pick<PositionRecord, 'symbol' | 'side' | 'volume' | 'openPrice'>;

/** An account's money figures as AccountInformation spells them. */
export interface Figures {
  readonly equity: number;
  readonly margin: number;
  readonly freeMargin: number;
  readonly marginLevel: number | null;
  readonly floating: number;
}

/**
 * How far a float figure here may be from its exact decimal, relative to the size of what went into it:
 * thousands of times the worst case (each input within half an ulp of its decimal, a few roundings of
 * 2^-53 each). Within it of a half cent, the exact decimals decide.
 */
const FLOAT_ERROR = 2 ** -40;

/** A position's profit in whole cents as profit(exact, ...) rounds it, from floats; null when only decimals can tell. */
const profitCents = (market: Market, currency: string, position: Priced, quote: FeedQuote, now: number): number | null => {
  const { info } = market.spec(position.symbol);
  const close = position.side === 'buy' ? quote.bid : quote.ask;
  const size = info.contractSize * position.volume * rate(approx, market, info.profitCurrency, currency, now);
  const value = (position.side === 'buy' ? close - position.openPrice : position.openPrice - close) * size;
  return centsNear(value, (Math.abs(close) + Math.abs(position.openPrice)) * Math.abs(size) * FLOAT_ERROR);
};

/** What profit(exact, ...).toNumber() answers: in floats when they are clear of a half cent. */
export const profitNow = (market: Market, currency: string, position: Priced, quote: FeedQuote, now: number): number => {
  const cents = profitCents(market, currency, position, quote, now);
  return cents === null ? profit(exact, market, currency, position, quote, now).toNumber() : cents / 100;
};

/** Every figure of information() from the decimals: what the float path must agree with (simulatedViews.unit). */
export const exactFigures = (market: Market, book: Book, now: number): Figures => {
  const { equity, margin, floating } = valuation(exact, market, book, now);
  return {
    equity: equity.toNumber(),
    margin: margin.toNumber(),
    freeMargin: equity.minus(margin).toNumber(),
    marginLevel: margin.isZero() ? null : equity.dividedBy(margin).times(100).toDecimalPlaces(2).toNumber(),
    floating: floating.toNumber(),
  };
};

/**
 * exactFigures' answer in whole cents, from floats: every profit and the margin clear of a half cent,
 * balance, credit and swaps cents already, so the sums are sums of integers. Null when it cannot tell.
 * (+ 0: the decimal sums start from 0 and never answer -0.)
 */
const centsFigures = (market: Market, book: Book, now: number): Figures | null => {
  const { currency } = book.settings;
  let floating = 0;
  for (const position of book.positions.values()) {
    const gain = profitCents(market, currency, position, market.quoteAt(position.symbol, now), now);
    const swap = centsOf(position.swap);
    if (gain === null || swap === null) return null;
    floating += gain + swap;
  }
  const balance = centsOf(book.balance);
  const credit = centsOf(book.settings.credit);
  if (balance === null || credit === null) return null;
  const equity = balance + credit + floating;
  let margin = 0;
  if (book.positions.size > 0) {
    const used = usedMargin(approx, market, book, book.positions.values(), now);
    const cents = centsNear(used, Math.abs(used) * FLOAT_ERROR);
    if (cents === null) return null;
    margin = cents;
  }
  let marginLevel: number | null = null;
  if (margin !== 0) {
    // equity / margin × 100 to two places: E × 10,000 / M to whole hundredths, exact while E × 10,000 is.
    if (!(Math.abs(equity) * 10_000 <= Number.MAX_SAFE_INTEGER)) return null;
    const level = (equity * 100) / margin;
    const hundredths = centsNear(level, Math.abs(level) * FLOAT_ERROR);
    if (hundredths === null) return null;
    marginLevel = hundredths / 100;
  }
  return { equity: equity / 100 + 0, margin: margin / 100, freeMargin: (equity - margin) / 100 + 0, marginLevel, floating: floating / 100 + 0 };
};

export const information = (market: Market, book: Book, now: number): AccountInformation => {
  const { equity, margin, freeMargin, marginLevel, floating } = centsFigures(market, book, now) ?? exactFigures(market, book, now);
  return {
    login: book.login,
    currency: book.settings.currency,
    leverage: book.settings.leverage,
    marginMode: book.settings.marginMode,
    balance: book.balance,
    credit: book.settings.credit,
    equity,
    margin,
    freeMargin,
    marginLevel,
    stopOutLevel: book.settings.stopOutLevel,
    unrealizedProfit: floating,
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
    profit: profitNow(market, book.settings.currency, position, quote, now),
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

/** The entries from `from` to `to` (ISO times, both included). */
export const inHistoryRange = (entries: readonly HistoryEntry[], from: string, to: string): readonly HistoryEntry[] => {
  const start = checkedTime(from, 'from', '[INVALID_REQUEST]');
  const end = checkedTime(to, 'to', '[INVALID_REQUEST]');
  return entries.filter((entry) => {
    const at = historyEntryTime(entry);
    return at >= start && at <= end;
  });
};

/** The book's entries in memory from `from` to `to` (the older ones of a venue with a store are read apart). */
export const historyOf = (book: Book, from: string, to: string): readonly HistoryEntry[] => inHistoryRange(book.history, from, to);

/** Whether entries the book no longer keeps in memory (Book.historyForgottenUntil) may be at or after `from`. */
export const historyReachesBack = (book: Book, from: string): boolean => book.historyKeptFrom > 0 && !(Date.parse(from) > book.historyForgottenUntil);

/** Market data, no account needed; [SYMBOL_NOT_FOUND] for a symbol the venue does not list. */
export const quoteView = (market: Market, symbol: string, time: number): Quote => {
  market.spec(symbol);
  const quote = market.quoteAt(symbol, time);
  return { symbol, bid: quote.bid, ask: quote.ask, time: iso(quote.time) };
};
