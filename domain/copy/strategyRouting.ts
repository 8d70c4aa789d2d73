// Routing by strategy key (reference StrategyDTO.key: "This key will be saved in the magic number field
// for each trade"). A copier into a strategy (toStrategyId) writes the strategy's key into the magic
// number of every slave order it places, over customMagicNumber and copyMagicNumber; a copier from a
// strategy (fromStrategyId) copies only the master trades whose magic number is the strategy's key (a
// trade without a magic number carries no key). An inactive strategy's copiers open nothing new; closes
// and changes of the copies they hold follow the master as always.
import type { MasterTrade, Skip } from './types.js';

export interface StrategyRouting {
  /** fromStrategyId's key: only trades with this magic number are copied. */
  readonly fromKey: number | null;
  /** toStrategyId's key: written into the slave orders' magic number. */
  readonly toKey: number | null;
  /** The strategy's `active`; true for a copier without a strategy. */
  readonly active: boolean;
}

/** Why a new trade is not copied by a strategy copier; null when it is. */
export const strategySkip = (routing: StrategyRouting | undefined, trade: MasterTrade): Skip | null => {
  if (!routing) return null;
  if (routing.fromKey !== null && trade.magicNumber !== routing.fromKey) {
    const carried = trade.magicNumber === null ? 'no magic number' : `magic number ${trade.magicNumber}`;
    return { reason: 'STRATEGY_KEY_FILTERED', message: `it carries ${carried}, not the strategy's key ${routing.fromKey}` };
  }
  if (!routing.active) return { reason: 'STRATEGY_INACTIVE', message: "the copier's strategy is inactive" };
  return null;
};

/** The magic number of a slave order: the key of the copier's toStrategyId, else what the copier's members give. */
export const strategyMagicNumber = (routing: StrategyRouting | undefined, magicNumber: number | null): number | null => routing?.toKey ?? magicNumber;
