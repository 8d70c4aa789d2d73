// Money (venues.md §5.3): conversion rates, profit, margin and equity, each written once over
// Numbers so the same formula runs exactly for money and in floats for the stop-out screen.
import type { Side } from '../port.js';
import type { Numbers } from './arithmetic.js';
import type { Book } from './book.js';
import { BASE_CURRENCY, type Market } from './market.js';
import type { FeedQuote } from './prices.js';

/** What margin depends on. */
export interface Exposure {
  readonly symbol: string;
  readonly side: Side;
  readonly volume: number;
}

export interface Valuation<T> {
  readonly equity: T;
  readonly margin: T;
  readonly floating: T;
  /** Profit plus swap per position id. */
  readonly results: ReadonlyMap<string, T>;
}

/** Base-currency (USD) value of one unit of `currency`, at the mid of the pair that links them. */
const baseRate = <T>(n: Numbers<T>, market: Market, currency: string, time: number): T => {
  if (currency === BASE_CURRENCY) return n.of(1);
  const pair = market.conversionSymbol(currency);
  if (!pair) throw new Error(`no conversion for ${currency}`);
  const quote = market.quoteAt(pair.symbol, time);
  const mid = n.div(n.add(n.of(quote.bid), n.of(quote.ask)), n.of(2));
  return pair.inverse ? n.div(n.of(1), mid) : mid;
};

/**
 * `account`-currency value of one unit of `currency`: through the base currency, so an EUR account's
 * JPY profit is JPY→USD→EUR at the two pairs' mids (one pair when either is USD, none when the same).
 */
export const rate = <T>(n: Numbers<T>, market: Market, currency: string, account: string, time: number): T => {
  if (currency === account) return n.of(1);
  const inBase = baseRate(n, market, currency, time);
  return account === BASE_CURRENCY ? inBase : n.div(inBase, baseRate(n, market, account, time));
};

/** (close − open) × contract × lots for a buy, (open − close) × ... for a sell, in the profit currency, converted to `account`'s. */
export const profit = <T>(
  n: Numbers<T>,
  market: Market,
  account: string,
  position: Exposure & { readonly openPrice: number },
  quote: FeedQuote,
  time: number,
): T => {
  const { info } = market.spec(position.symbol);
  const difference = position.side === 'buy' ? n.sub(n.of(quote.bid), n.of(position.openPrice)) : n.sub(n.of(position.openPrice), n.of(quote.ask));
  const inProfitCurrency = n.mul(n.mul(difference, n.of(info.contractSize)), n.of(position.volume));
  return n.cents(n.mul(inProfitCurrency, rate(n, market, info.profitCurrency, account, time)));
};

/** One position's margin in the account currency, by the symbol's MQL5 calculation mode. */
export const positionMargin = <T>(n: Numbers<T>, market: Market, book: Book, exposure: Exposure, time: number): T => {
  const { info } = market.spec(exposure.symbol);
  const quote = market.quoteAt(exposure.symbol, time);
  const marketPrice = n.of(exposure.side === 'buy' ? quote.ask : quote.bid);
  const nominal = n.mul(n.of(exposure.volume), n.of(info.contractSize));
  const leverage = n.of(book.settings.leverage);
  let margin: T;
  switch (info.marginCalcMode) {
    case 'forex':
      margin = n.div(nominal, leverage);
      break;
    case 'forexNoLeverage':
      margin = nominal;
      break;
    case 'cfd':
      margin = n.mul(nominal, marketPrice);
      break;
    case 'cfdLeverage':
      margin = n.div(n.mul(nominal, marketPrice), leverage);
      break;
  }
  return n.mul(n.mul(margin, n.of(info.marginRate)), rate(n, market, info.marginCurrency, book.settings.currency, time));
};

/** Hedged legs of a symbol need only the margin of the larger leg (MT5's "larger leg" option, venues.md §5.3). */
export const usedMargin = <T>(n: Numbers<T>, market: Market, book: Book, exposures: Iterable<Exposure>, time: number): T => {
  const legs = new Map<string, { buy: T; sell: T }>();
  for (const exposure of exposures) {
    const leg = legs.get(exposure.symbol) ?? { buy: n.of(0), sell: n.of(0) };
    leg[exposure.side] = n.add(leg[exposure.side], positionMargin(n, market, book, exposure, time));
    legs.set(exposure.symbol, leg);
  }
  let total = n.of(0);
  for (const leg of legs.values()) total = n.add(total, n.max(leg.buy, leg.sell));
  return n.cents(total);
};

export const valuation = <T>(n: Numbers<T>, market: Market, book: Book, time: number): Valuation<T> => {
  const results = new Map<string, T>();
  let floating = n.of(0);
  for (const position of book.positions.values()) {
    const result = n.add(profit(n, market, book.settings.currency, position, market.quoteAt(position.symbol, time), time), n.of(position.swap));
    results.set(position.id, result);
    floating = n.add(floating, result);
  }
  const margin = usedMargin(n, market, book, book.positions.values(), time);
  const equity = n.add(n.add(n.of(book.balance), n.of(book.settings.credit)), floating);
  return { equity, margin, floating, results };
};
