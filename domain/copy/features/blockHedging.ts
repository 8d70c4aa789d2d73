// FeatureBlockHedgingDTO (the spec names it only). Our reading: a master open is not copied when the
// copy would take the side opposite to a live copy of this copier on the same slave symbol, so the
// slave never holds a buy and a sell of one symbol at once (a hedge).
//   - Sides are the slave's (after the copier's reverse); a pending order has the side of its type
//     (BuyLimit and BuyStop buy).
//   - includePendingOrders (default true): the slave's pending copies count, and master pending orders
//     are checked too; false: only positions count and pending orders pass (one that fills later can
//     still hedge).
//   - symbols: the slave symbols the rule applies to (patterns as FeaturePermittedSymbolsDTO's);
//     empty = every symbol.
// Live copies of this copier only: positions of other copiers or opened by hand are not known here.
import { type Static, Type } from '@sinclair/typebox';
import { slaveOrderType } from '../reverse.js';
import type { OrderType } from '../types.js';
import { symbolMatcher, SymbolPattern, symbolPatternsProblem } from './permittedSymbols.js';
import { type CopierFeature, skip } from './rules.js';

const members = Type.Object({
  includePendingOrders: Type.Boolean({
    description: "true (default): the slave's pending copies count and master pending orders are checked; false: positions only",
  }),
  symbols: Type.Array(SymbolPattern, { maxItems: 500, description: 'slave symbols (patterns) the rule applies to; empty (default) = all' }),
});
export type BlockHedgingSettings = Static<typeof members>;

const sideOf = (type: OrderType): 'Buy' | 'Sell' => (type.startsWith('Buy') ? 'Buy' : 'Sell');
const isMarket = (type: OrderType): boolean => type === 'Buy' || type === 'Sell';

export const blockHedging: CopierFeature<BlockHedgingSettings> = {
  type: 'FeatureBlockHedgingDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { includePendingOrders: true, symbols: [] },
  description:
    "Does not copy a master open whose copy would be on the side opposite to a live copy of this copier on the same slave symbol (the slave would hedge). Sides are the slave's, after reverse; a pending order has the side of its type. includePendingOrders (default true): the slave's pending copies count and master pending orders are checked; false: positions only. symbols: the slave symbols it applies to (`*` and `?` patterns, without case); empty = all. Skip reason HEDGING_BLOCKED.",
  check: (s) => symbolPatternsProblem(s.symbols, 'symbols'),
  rules: {
    filterOpen: (s, { trade, slaveSymbol, copies, copier }) => {
      const type = slaveOrderType(trade.orderType, copier.reverse);
      if (!s.includePendingOrders && !isMarket(type)) return null;
      if (s.symbols.length > 0 && !symbolMatcher(s.symbols)(slaveSymbol)) return null;
      const side = sideOf(type);
      const opposite = copies.find(
        (c) => c.symbol.toLowerCase() === slaveSymbol.toLowerCase() && sideOf(c.orderType) !== side && (s.includePendingOrders || c.kind === 'position'),
      );
      return opposite
        ? skip('HEDGING_BLOCKED', `a ${side} of ${slaveSymbol} would hedge the slave's ${opposite.orderType} #${opposite.slavePositionId}`)
        : null;
    },
  },
};
