// The market the dealer quotes: the symbol catalogue and the seeded price feed, looked up by
// symbol, with the pairs that convert other currencies to the account currency.
import type { SymbolInfo } from '../port.js';
import { type FeedQuote, PriceFeed, type PriceFeedState } from './prices.js';
import { isMarketOpen, type SimulatedSymbol } from './symbols.js';
import { fail, iso } from './validation.js';

export const ACCOUNT_CURRENCY = 'USD';

export class Market {
  readonly feed: PriceFeed;
  private readonly specs = new Map<string, SimulatedSymbol>();
  /** conversionSymbol's answers: asked for every position's money, every second. */
  private readonly conversions = new Map<string, { readonly symbol: string; readonly inverse: boolean } | null>();

  /** Refuses a catalogue with a margin or profit currency no symbol converts to the account currency. */
  constructor(symbols: readonly SimulatedSymbol[], prices: PriceFeedState) {
    for (const symbol of symbols) this.specs.set(symbol.info.symbol, symbol);
    for (const symbol of symbols) {
      for (const currency of [symbol.info.marginCurrency, symbol.info.profitCurrency]) {
        if (currency !== ACCOUNT_CURRENCY && !this.conversionSymbol(currency)) {
          throw new Error(`${symbol.info.symbol}: no symbol converts ${currency} to ${ACCOUNT_CURRENCY}`);
        }
      }
    }
    this.feed = new PriceFeed(symbols, prices);
  }

  /** The symbol catalogue with its price-path parameters. */
  catalogue(): readonly SimulatedSymbol[] {
    return [...this.specs.values()];
  }

  symbols(): readonly SymbolInfo[] {
    return this.catalogue().map((symbol) => symbol.info);
  }

  spec(symbol: string): SimulatedSymbol {
    return this.specs.get(symbol) ?? fail('[SYMBOL_NOT_FOUND]', `no symbol ${String(symbol)}`);
  }

  requireOpen(spec: SimulatedSymbol, time: number): void {
    if (!isMarketOpen(spec.schedule, time)) fail('[MARKET_CLOSED]', `${spec.info.symbol} is closed at ${iso(time)}`);
  }

  quoteAt(symbol: string, time: number): FeedQuote {
    return this.feed.quoteAt(symbol, time);
  }

  conversionSymbol(currency: string): { readonly symbol: string; readonly inverse: boolean } | null {
    let known = this.conversions.get(currency);
    if (known === undefined) {
      known = this.findConversion(currency);
      this.conversions.set(currency, known);
    }
    return known;
  }

  private findConversion(currency: string): { readonly symbol: string; readonly inverse: boolean } | null {
    if (currency === ACCOUNT_CURRENCY) return null;
    if (this.specs.has(`${currency}${ACCOUNT_CURRENCY}`)) return { symbol: `${currency}${ACCOUNT_CURRENCY}`, inverse: false };
    if (this.specs.has(`${ACCOUNT_CURRENCY}${currency}`)) return { symbol: `${ACCOUNT_CURRENCY}${currency}`, inverse: true };
    return null;
  }
}
