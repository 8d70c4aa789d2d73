// Which accounts the per-second stop-out check must value. An account's margin level moves only when
// its book changes (Book.version: every deal, swap, balance operation or modification raises it) or a
// quote its valuation reads moves: its positions' symbols and the pairs that convert their profit and
// margin currencies to the account currency (valuation.ts).
//
// A check that finds no stop-out also works out how far those quotes may move before the float screen
// (catchUp.ts: stopOut) could fail: its band, a relative move ε of every bid and ask it reads. Until the
// book changes or one of those quotes leaves the band, the screen would pass again, so the account is
// not valued: with quotes moving every second, only the accounts whose quotes moved far enough are.
//
// The band, for a move of at most ε in every quote read (bid' within bid·(1 ± ε), ask' likewise):
//   - a mid moves by at most ε, so a currency's USD value stays within a factor (1 − ε)..1/(1 − ε), and
//     a rate between two currencies (two such values) moves by at most f = 1/(1 − ε)² − 1 relative;
//   - a position's profit c·v·x·r (x = bid − open for a buy, open − ask for a sell) moves by at most
//     c·v·r·(ε·q·(1 + f) + |x|·f), q the quote it closes at: the equity falls by at most D, their sum;
//   - a margin (a nominal, maybe times the price, times a rate) grows by at most (1 + ε)(1 + f), and so
//     do the legs' larger sums.
// The account is inside its band while (E − D)·100 ≥ M·(1 + ε)(1 + f)·level·SCREEN_MARGIN, E and M its
// equity and margin at the check: the screen passes then, whatever the quotes did inside the band.
import { approx } from './arithmetic.js';
import type { Book } from './book.js';
import type { Market } from './market.js';
import { rate, type Valuation, valuation } from './valuation.js';

/** The per-second stop-out screen runs in floats; within this factor of the level it rechecks exactly. */
export const STOP_OUT_SCREEN_MARGIN = 1.02;
/** The widest band worked out: a relative move of 50 %. */
const WIDEST_BAND = 0.5;
/** Halvings of the band's search: the band is found to within 2^-20 of WIDEST_BAND. */
const BAND_SEARCH_STEPS = 20;
/** Slack for float rounding in the band's own arithmetic. */
const FLOAT_SLACK = 1e-9;

/** A quote the book's valuation reads, as it was at the check. */
interface QuoteRead {
  readonly symbol: string;
  readonly bid: number;
  readonly ask: number;
}

/** Per book: its last check that found no stop-out. */
interface Checked {
  readonly version: number;
  readonly quotes: readonly QuoteRead[];
  /** The relative move of every quote read within which the screen passes; negative: only none. */
  readonly band: number;
}

const checkedOf = new WeakMap<Book, Checked>();

/** Whether the book is as at its last check that found no stop-out, and every quote it reads inside that check's band. */
export const unchangedSinceChecked = (market: Market, book: Book, time: number): boolean => {
  const checked = checkedOf.get(book);
  if (!checked || checked.version !== book.version) return false;
  const { band } = checked;
  for (const read of checked.quotes) {
    const quote = market.quoteAt(read.symbol, time);
    if (quote.bid === read.bid && quote.ask === read.ask) continue;
    if (Math.abs(quote.bid - read.bid) > band * read.bid || Math.abs(quote.ask - read.ask) > band * read.ask) return false;
  }
  return true;
};

/** The book's check found no stop-out: remember what it read and how far that may move. `screen`: its float valuation at `time`, if made. */
export const noteChecked = (market: Market, book: Book, time: number, screen?: Valuation<number>): void => {
  const { equity, margin } = screen ?? valuation(approx, market, book, time);
  const { currency, stopOutLevel } = book.settings;
  const symbols = new Set<string>();
  /** Σ c·v·r·q and Σ c·v·r·|x| over the positions. */
  let exposure = 0;
  let result = 0;
  for (const position of book.positions.values()) {
    const { info } = market.spec(position.symbol);
    symbols.add(position.symbol);
    for (const c of [info.profitCurrency, info.marginCurrency, currency]) {
      const pair = market.conversionSymbol(c);
      if (pair) symbols.add(pair.symbol);
    }
    const quote = market.quoteAt(position.symbol, time);
    const closesAt = position.side === 'buy' ? quote.bid : quote.ask;
    const size = info.contractSize * position.volume * rate(approx, market, info.profitCurrency, currency, time);
    exposure += size * closesAt;
    result += size * Math.abs(position.side === 'buy' ? closesAt - position.openPrice : position.openPrice - closesAt);
  }
  const inside = (epsilon: number): boolean => {
    const f = 1 / (1 - epsilon) ** 2 - 1;
    const fall = exposure * epsilon * (1 + f) + result * f;
    const worstMargin = margin * (1 + epsilon) * (1 + f) * (1 + FLOAT_SLACK) + FLOAT_SLACK;
    return (equity - fall) * 100 >= worstMargin * stopOutLevel * STOP_OUT_SCREEN_MARGIN;
  };
  const quotes = [...symbols].map((symbol) => {
    const { bid, ask } = market.quoteAt(symbol, time);
    return { symbol, bid, ask };
  });
  checkedOf.set(book, { version: book.version, quotes, band: widestBand(inside) });
};

/** The largest ε (within WIDEST_BAND) for which `inside` holds, `inside` holding for every smaller one; −1 when not even 0 does. */
const widestBand = (inside: (epsilon: number) => boolean): number => {
  if (!inside(0)) return -1;
  if (inside(WIDEST_BAND)) return WIDEST_BAND;
  let low = 0;
  let high = WIDEST_BAND;
  for (let i = 0; i < BAND_SEARCH_STEPS; i++) {
    const middle = (low + high) / 2;
    if (inside(middle)) low = middle;
    else high = middle;
  }
  return low;
};
