// Volumes go to the slave's broker as whole lot steps, prices as whole points of its digits. Both
// are computed on exact decimals (domain/shared/decimal.ts), so float drift never moves a value across
// a step.
import { Decimal, exact, toNumber } from '../shared/decimal.js';
import type { Lots, SymbolSpec } from './types.js';

/**
 * The largest multiple of step not above lots. lots may be a quotient rounded down: its floor is the
 * floor of the exact one (see domain/shared/decimal.ts).
 */
export const floorToStep = (lots: Decimal, step: Decimal): Decimal => {
  // The whole part of the quotient, computed without its fraction (the cheaper division); below zero
  // that is one step too high unless the division is exact.
  const steps = lots.dividedToIntegerBy(step);
  return (lots.isNegative() && !steps.times(step).equals(lots) ? steps.minus(1) : steps).times(step);
};

/** Rounds lots down to the step: 0.57 on 0.01 is 0.57, 0.1 + 0.2 on 0.1 is 0.3, 0.029 on 0.01 is 0.02. */
export const roundDownToStep = (lots: Lots, step: Lots): Lots => {
  if (!(step > 0)) throw new RangeError(`lot step must be positive, got ${step}`);
  return toNumber(floorToStep(exact(lots), exact(step)));
};

/** The price normalised to the slave's digits, halves away from zero (MT's NormalizeDouble). */
export const roundPrice = (price: number, digits: number): number =>
  toNumber(exact(price).toDecimalPlaces(Math.max(0, Math.trunc(digits)), Decimal.ROUND_HALF_UP));

/**
 * Why the lots of a specification cannot be worked with (the step and minimum must be positive, the
 * maximum not below the minimum), or null when they can.
 */
export const unusableSpec = (spec: SymbolSpec): string | null =>
  [spec.minLot, spec.maxLot, spec.lotStep].every(Number.isFinite) && spec.lotStep > 0 && spec.minLot > 0 && spec.maxLot >= spec.minLot
    ? null
    : `${spec.symbol}: lot step ${spec.lotStep}, minimum ${spec.minLot}, maximum ${spec.maxLot} cannot be traded`;
