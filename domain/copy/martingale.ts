// Martingale (CopierSettings.martingaleStrategy): after a copied position closes at a loss the next
// lot doubles; a win resets it. Doubling repeats, so after n losses in a row the lot is 2^n times the
// scaled lot; maxLotSize, the broker maximum and maximumLot still bound it.
import { Decimal, ONE } from '../shared/decimal.js';
import type { MartingaleState } from './types.js';

export const initialMartingaleState: MartingaleState = { consecutiveLosses: 0 };

/**
 * Folds the net result of one closed copy (profit + swap + commission, in the slave's currency) into
 * the state. A break-even close (exactly 0) is neither a loss nor a win and changes nothing. A
 * partial close is not a close: the engine folds only full closes.
 */
export const nextMartingaleState = (state: MartingaleState, closedResult: number): MartingaleState => {
  if (closedResult < 0) return { consecutiveLosses: state.consecutiveLosses + 1 };
  if (closedResult > 0) return state.consecutiveLosses === 0 ? state : initialMartingaleState;
  return state;
};

/** 2^losses when martingale is on, else 1. */
export const martingaleFactor = (enabled: boolean, state: MartingaleState): Decimal =>
  enabled ? new Decimal(2).pow(Math.max(0, Math.trunc(state.consecutiveLosses))) : ONE;
