// Volumes go to the slave's broker as whole lot steps, prices as whole points of its digits. Both
// are computed exactly (fraction.ts), so float drift never moves a value across a step.
import { exact, floor, fraction, type Fraction, mul, roundHalfAwayFromZero, toNumber } from './fraction.js';
import type { Lots, SymbolSpec } from './types.js';

/** The largest multiple of step not above lots. */
export const floorToStep = (lots: Fraction, step: Fraction): Fraction => mul(fraction(floor(fraction(lots.n * step.d, lots.d * step.n))), step);

/** Rounds lots down to the step: 0.57 on 0.01 is 0.57, 0.1 + 0.2 on 0.1 is 0.3, 0.029 on 0.01 is 0.02. */
export const roundDownToStep = (lots: Lots, step: Lots): Lots => {
  if (!(step > 0)) throw new RangeError(`lot step must be positive, got ${step}`);
  return toNumber(floorToStep(exact(lots), exact(step)));
};

/** The price normalised to the slave's digits, halves away from zero (MT's NormalizeDouble). */
export const roundPrice = (price: number, digits: number): number => {
  const scale = 10n ** BigInt(Math.max(0, Math.trunc(digits)));
  const scaled = exact(price);
  return toNumber(fraction(roundHalfAwayFromZero(fraction(scaled.n * scale, scaled.d)), scale));
};

/**
 * Why the lots of a specification cannot be worked with (the step and minimum must be positive, the
 * maximum not below the minimum), or null when they can.
 */
export const unusableSpec = (spec: SymbolSpec): string | null =>
  [spec.minLot, spec.maxLot, spec.lotStep].every(Number.isFinite) && spec.lotStep > 0 && spec.minLot > 0 && spec.maxLot >= spec.minLot
    ? null
    : `${spec.symbol}: lot step ${spec.lotStep}, minimum ${spec.minLot}, maximum ${spec.maxLot} cannot be traded`;
