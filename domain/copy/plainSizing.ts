// The common lot (sizing.ts) on whole numbers instead of decimal.js: a master lot times a multiplier,
// or a fixed lot, without martingale, contract sizes or a volume override, floored to the lot step and
// already within every limit. Anything else (a cap, a raise to the minimum, a skip, figures with many
// decimals) is left to the decimal path, which says why: this one only answers "nothing to adjust".
//
// Exact as the decimal path is: a figure is taken only when it is the double nearest to n / 10^d with
// |n| < 10^15 (then n / 10^d is the decimal exact() reads at 15 significant digits), and every
// product stays a safe integer. The lots answered are n / 10^d computed by one division of two exact
// doubles, so the nearest double to the decimal, as toNumber gives.
import type { CopierSettings } from '../copier/settings.js';
import type { Lots, SymbolSpec } from './types.js';

/** A decimal n / 10^places with a safe integer n. */
interface Scaled {
  readonly n: number;
  readonly places: number;
}

const MAX_PLACES = 8;
const POWERS = Array.from({ length: 2 * MAX_PLACES + 1 }, (_, i) => 10 ** i);

/** x as n / 10^places when x is the double nearest to such a decimal of at most 15 digits; else null. */
const scaled = (x: number): Scaled | null => {
  for (let places = 0; places <= MAX_PLACES; places++) {
    const p = POWERS[places]!;
    const n = Math.round(x * p);
    if (Math.abs(n) >= 1e15) return null;
    if (n / p === x) return { n, places };
  }
  return null;
};

/** a at `places` (at least a's), or null when it is no safe integer there. */
const at = (a: Scaled, places: number): number | null => {
  const n = a.n * POWERS[places - a.places]!;
  return Number.isSafeInteger(n) ? n : null;
};

/** The largest multiple of step (> 0) not above n, all safe integers at one scale; null when it is not safe. */
const floorTo = (n: number, step: number): number | null => {
  if (!Number.isSafeInteger(n + step)) return null;
  let q = Math.floor(n / step);
  // The quotient of two doubles is rounded: correct it by at most one either way.
  if (q * step > n) q -= 1;
  else if ((q + 1) * step <= n) q += 1;
  const floored = q * step;
  return Number.isSafeInteger(floored) ? floored : null;
};

export interface PlainVolume {
  readonly volume: Lots;
  readonly calculated: Lots;
}

/**
 * The slave's lot when sizing has nothing to adjust: NO_SCALING with ignoreContractSize or FIXED_LOT,
 * martingale off, no override, no maximumLot and no forcePositionLotSize, and the calculated lot
 * within maxLotSize, its floor to the step within the broker's minimum and maximum. Null: the
 * decimal path decides (sizing.ts).
 */
export const plainVolume = (masterLot: Lots, copier: CopierSettings, spec: SymbolSpec): PlainVolume | null => {
  if (copier.martingaleStrategy || copier.maximumLot > 0 || copier.forcePositionLotSize) return null;
  let calculated: Scaled | null;
  if (copier.scaleType === 'FIXED_LOT') calculated = copier.fixedLotSize > 0 ? scaled(copier.fixedLotSize) : null;
  else if (copier.scaleType === 'NO_SCALING' && copier.ignoreContractSize) {
    const lot = scaled(masterLot);
    const multiplier = scaled(copier.multiplier);
    const n = lot && multiplier ? lot.n * multiplier.n : NaN;
    calculated = lot && multiplier && Number.isSafeInteger(n) ? { n, places: lot.places + multiplier.places } : null;
  } else return null;
  const step = scaled(spec.lotStep);
  const min = scaled(spec.minLot);
  const max = scaled(spec.maxLot);
  const cap = copier.maxLotSize > 0 ? scaled(copier.maxLotSize) : null;
  if (!calculated || !step || !min || !max || (copier.maxLotSize > 0 && !cap)) return null;
  if (!(calculated.n > 0) || !(step.n > 0) || !(min.n > 0)) return null;
  const places = Math.max(calculated.places, step.places, min.places, max.places, cap?.places ?? 0);
  const [c, s, lo, hi] = [at(calculated, places), at(step, places), at(min, places), at(max, places)];
  const capAt = cap ? at(cap, places) : null;
  if (c === null || s === null || lo === null || hi === null || (cap && capAt === null) || hi < lo) return null;
  if (capAt !== null && c > capAt) return null;
  const volume = floorTo(c, s);
  if (volume === null || volume < lo || volume > hi) return null;
  const p = POWERS[places]!;
  return { volume: volume / p, calculated: c / p };
};
