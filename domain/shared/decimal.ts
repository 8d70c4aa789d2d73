// Exact decimals for lots, balances and prices (decimal.js). Floats drift (0.1 + 0.2 =
// 0.30000000000000004, 0.57 / 0.01 = 56.99999999999999), and one ulp on the wrong side of a lot step
// creates or loses a whole step when rounding down. So every number a rule receives is read as the
// decimal it denotes, at the 15 significant digits a double always carries (exact), and computed on.
//
// Sums, differences and products of such decimals are exact: they fit in the 100 significant digits
// of this clone. A quotient usually does not, so it is rounded down (toward -infinity), and a rule
// divides once, last, before it floors or compares:
//   - a floor of a rounded-down quotient is the floor of the exact one (rounding down never passes a
//     value with fewer digits, such as a whole number of lot steps, that the exact quotient reaches);
//   - for the same reason q >= t and q < t, with t any lot, limit or threshold, are exact;
//   - q > t and q <= t could only differ when the exact quotient lies above t by less than 1e-99 of
//     itself, and a quotient of products of 15-digit numbers that is not t is farther from it.
// The global Decimal of decimal.js keeps its defaults: rounding is this module's choice, not a setting
// someone else can change. Beware: toFraction() never returns under ROUND_FLOOR (decimal.js 10.6);
// decimalPlaces() gives a decimal as whole numbers instead (features/masanielloFormula.ts).
import { Decimal as DecimalJs } from 'decimal.js';

export const Decimal = DecimalJs.clone({ precision: 100, rounding: DecimalJs.ROUND_FLOOR });
export type Decimal = DecimalJs;

export const ZERO: Decimal = new Decimal(0);
export const ONE: Decimal = new Decimal(1);

/** The decimal a double stands for, read at 15 significant digits (exact, below). */
const read = (x: number): Decimal => {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  // Through the double nearest to those 15 digits: its shortest form (what decimal.js reads) is the
  // same decimal, as every decimal of 15 digits survives a round trip through a double, and reading
  // it is a third faster than reading 15 digits with trailing zeros. Whole numbers below 1e15 have
  // fewer than 16 digits: read as they are.
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return new Decimal(x === 0 ? 0 : x); // -0 reads as 0
  return new Decimal(Number(x.toPrecision(15)));
};

/**
 * The decimals of the numbers read again and again (lots, lot steps, limits, multipliers, balances):
 * a decimal is immutable, so one is shared; reading one costs more than the arithmetic on it. Cleared
 * when full. -0 and 0 are one key, and both read as 0.
 */
const kept = new Map<number, Decimal>();
const KEPT = 4096;

/**
 * The decimal a double stands for, read at 15 significant digits: 0.1 + 0.2 reads as 0.3 and
 * 0.7 + 0.1 as 0.8, so float noise from upstream arithmetic never reaches a rounding decision.
 */
export const exact = (x: number): Decimal => {
  let decimal = kept.get(x);
  if (decimal === undefined) {
    decimal = read(x);
    if (kept.size >= KEPT) kept.clear();
    kept.set(x, decimal);
  }
  return decimal;
};

/** The double nearest to the decimal; 0, never -0. */
export const toNumber = (value: Decimal): number => (value.isZero() ? 0 : value.toNumber());

/** A short decimal for messages (10 significant digits). */
export const show = (value: Decimal | number): string => String(Number((typeof value === 'number' ? value : toNumber(value)).toPrecision(10)));
