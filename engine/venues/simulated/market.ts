// The market the dealer quotes: the symbol catalogue and the seeded price feed, looked up by
// symbol, with the pairs that convert other currencies to the base currency (USD). An account keeps
// the base currency by default, or any currency such a pair converts (valuation.ts: rate).
import type { SymbolInfo } from '../port.js';
import { type FeedQuote, PriceFeed, type PriceFeedState } from './prices.js';
import { isMarketOpen, type SimulatedSymbol } from './symbols.js';
import { fail, iso } from './validation.js';

/** The currency every other converts through, and the accounts' default. */
export const BASE_CURRENCY = 'USD';
export const DEFAULT_ACCOUNT_CURRENCY = BASE_CURRENCY;

export class Market {
  readonly feed: PriceFeed;
  private readonly specs = new Map<string, SimulatedSymbol>();
  /** conversionSymbol's answers: asked for every position's money, every second. */
  private readonly conversions = new Map<string, { readonly symbol: string; readonly inverse: boolean } | null>();

  /** Refuses a catalogue with a margin or profit currency no symbol converts to the base currency. */
  constructor(symbols: readonly SimulatedSymbol[], prices: PriceFeedState) {
    for (const symbol of symbols) this.specs.set(symbol.info.symbol, symbol);
    for (const symbol of symbols) {
      for (const currency of [symbol.info.marginCurrency, symbol.info.profitCurrency]) {
        if (!this.values(currency)) {
          throw new Error(`${symbol.info.symbol}: no symbol converts ${currency} to ${BASE_CURRENCY}`);
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

  /** Whether money in `currency` can be valued here: the base currency, or one a pair converts to it. */
  values(currency: string): boolean {
    return currency === BASE_CURRENCY || this.conversionSymbol(currency) !== null;
  }

  /** The currencies an account may keep: the base one, then the catalogue's margin and profit currencies, in its order. */
  accountCurrencies(): readonly string[] {
    const all = new Set([BASE_CURRENCY]);
    for (const { info } of this.specs.values()) for (const c of [info.marginCurrency, info.profitCurrency]) all.add(c);
    return [...all];
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
    if (currency === BASE_CURRENCY) return null;
    if (this.specs.has(`${currency}${BASE_CURRENCY}`)) return { symbol: `${currency}${BASE_CURRENCY}`, inverse: false };
    if (this.specs.has(`${BASE_CURRENCY}${currency}`)) return { symbol: `${BASE_CURRENCY}${currency}`, inverse: true };
    return null;
  }
}
