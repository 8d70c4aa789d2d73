// Which accounts the per-second stop-out check must look at. An account's margin level moves only
// when its book changes (Book.version: every deal, swap, balance operation or modification raises it)
// or a quote its valuation reads moves: its positions' symbols and the pairs that convert their
// profit and margin currencies to the account currency (valuation.ts). An account whose book and
// those quotes are as they were at its last check, which found no stop-out, would find none again,
// so it is skipped: the outcome is the same, only cheaper where quotes stand still (a pinned quote,
// a closed market, a symbol nobody's account converts through).
import type { Book } from './book.js';
import type { Market } from './market.js';
import type { FeedQuote } from './prices.js';

/** Per market: which evaluation each symbol's quote last moved in. */
interface QuoteMoves {
  evaluation: number;
  readonly last: Map<string, FeedQuote>;
  readonly movedIn: Map<string, number>;
}

/** Per book: its last check that found no stop-out. */
interface Checked {
  readonly version: number;
  readonly evaluation: number;
  readonly symbols: readonly string[];
}

const movesOf = new WeakMap<Market, QuoteMoves>();
const checkedOf = new WeakMap<Book, Checked>();

/** Notes which quotes moved since the last evaluation; called once per evaluation, before its accounts. */
export const observeQuotes = (market: Market, time: number): void => {
  let moves = movesOf.get(market);
  if (!moves) {
    moves = { evaluation: 0, last: new Map(), movedIn: new Map() };
    movesOf.set(market, moves);
  }
  moves.evaluation += 1;
  for (const { info } of market.catalogue()) {
    const quote = market.quoteAt(info.symbol, time);
    const last = moves.last.get(info.symbol);
    if (!last || last.bid !== quote.bid || last.ask !== quote.ask) {
      moves.last.set(info.symbol, quote);
      moves.movedIn.set(info.symbol, moves.evaluation);
    }
  }
};

/** Whether the book and every quote its valuation reads are as at its last check that found no stop-out. */
export const unchangedSinceChecked = (market: Market, book: Book): boolean => {
  const checked = checkedOf.get(book);
  const moves = movesOf.get(market);
  if (!checked || !moves || checked.version !== book.version) return false;
  for (const symbol of checked.symbols) if ((moves.movedIn.get(symbol) ?? Infinity) > checked.evaluation) return false;
  return true;
};

/** The book's check found no stop-out: remember what it depended on. */
export const noteChecked = (market: Market, book: Book): void => {
  const moves = movesOf.get(market);
  if (!moves) return;
  const symbols = new Set<string>();
  for (const position of book.positions.values()) {
    symbols.add(position.symbol);
    const { info } = market.spec(position.symbol);
    for (const currency of [info.profitCurrency, info.marginCurrency, book.settings.currency]) {
      const pair = market.conversionSymbol(currency);
      if (pair) symbols.add(pair.symbol);
    }
  }
  checkedOf.set(book, { version: book.version, evaluation: moves.evaluation, symbols: [...symbols] });
};
