// What the money-management features (martingale, progressive sizing, Masaniello) share: the closed
// copies they count, in the order they closed, and a factor on the lot the copier's scale type gives.
import type { CopierSettings } from '../../copier/settings.js';
import { type Decimal, exact, toNumber } from '../../shared/decimal.js';
import { sameSymbol } from './perSymbol.js';
import type { CopyRecord } from './rules.js';

/** A closed copy that counts as a trade: it has a net result (a cancelled pending order has none). */
export interface ClosedTrade {
  readonly symbol: string;
  readonly closedAt: string;
  readonly result: number;
}

/**
 * The copier's closed trades, oldest close first (the history comes newest opened first), optionally
 * of one slave symbol and closed after `after` (ISO).
 */
export const closedTrades = (history: readonly CopyRecord[], options: { readonly symbol?: string; readonly after?: string | null } = {}): ClosedTrade[] => {
  const after = options.after ? Date.parse(options.after) : null;
  return history
    .filter((r): r is CopyRecord & { closedAt: string; result: number } => r.closedAt !== null && r.result !== null)
    .filter((r) => options.symbol === undefined || sameSymbol(r.symbol, options.symbol))
    .filter((r) => after === null || Date.parse(r.closedAt) > after)
    .map((r) => ({ symbol: r.symbol, closedAt: r.closedAt, result: r.result }))
    .sort((a, b) => Date.parse(a.closedAt) - Date.parse(b.closedAt));
};

/**
 * The copier's settings with the lot its scale type gives multiplied by `factor`: the multiplier of
 * NO_SCALING and the ratio types (BALANCE, EQUITY), the fixedLotSize of FIXED_LOT.
 * Applied before sizing (domain/copy/sizing.ts), so maxLotSize, the broker's limits, the minimum and
 * maximumLot still bound the result, as they bound the copier's own martingale doubling.
 */
export const withLotFactor = (copier: CopierSettings, factor: Decimal): CopierSettings => {
  if (factor.equals(1)) return copier;
  const times = (value: number): number => toNumber(exact(value).times(factor));
  switch (copier.scaleType) {
    case 'FIXED_LOT':
      return { ...copier, fixedLotSize: times(copier.fixedLotSize) };
    case 'NO_SCALING':
    case 'BALANCE':
    case 'EQUITY':
      return { ...copier, multiplier: times(copier.multiplier) };
    default: {
      const unhandled: never = copier.scaleType;
      throw new Error(`unhandled scale type ${String(unhandled)}`);
    }
  }
};
