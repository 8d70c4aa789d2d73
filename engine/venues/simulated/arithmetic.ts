// Arithmetic: one set of formulas, run exactly (decimals) for money and in floats for the
// per-second stop-out screen.
//
// Money is exact: amounts in the account currency are decimals rounded half away from zero to
// cents, computed with decimal.js.
import { Decimal } from 'decimal.js';
import type { SymbolInfo } from '../port.js';

export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

export interface Numbers<T> {
  of(value: number): T;
  add(a: T, b: T): T;
  sub(a: T, b: T): T;
  mul(a: T, b: T): T;
  div(a: T, b: T): T;
  max(a: T, b: T): T;
  /** To the account currency's cents (exact only). */
  cents(a: T): T;
}

/**
 * Decimals of the numbers met again and again (a second's quotes across every account, contract
 * sizes, leverages, lot sizes): a decimal is immutable, so one is shared. Cleared when full; -0 is
 * never kept (a Map holds 0 and -0 as one key, and their decimals differ in sign).
 */
const decimals = new Map<number, Decimal>();
const DECIMALS_KEPT = 4096;
const decimalOf = (value: number): Decimal => {
  let decimal = decimals.get(value);
  if (decimal === undefined) {
    decimal = new Money(value);
    if (Object.is(value, -0)) return decimal;
    if (decimals.size >= DECIMALS_KEPT) decimals.clear();
    decimals.set(value, decimal);
  }
  return decimal;
};

export const exact: Numbers<Decimal> = {
  of: decimalOf,
  add: (a, b) => a.plus(b),
  sub: (a, b) => a.minus(b),
  mul: (a, b) => a.times(b),
  div: (a, b) => a.dividedBy(b),
  max: (a, b) => (a.greaterThan(b) ? a : b),
  cents: (a) => a.toDecimalPlaces(2),
};

export const approx: Numbers<number> = {
  of: (value) => value,
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  max: (a, b) => Math.max(a, b),
  cents: (a) => a,
};

/** Below this size a number's cents, and sums of a few of them, are exact integers in a double. */
const CENTS_EXACT_BELOW = 1e12;

/**
 * `value` in whole cents when it is a cents amount (the double nearest some c / 100): its decimal is
 * then exactly c / 100, since two cents amounts this small never share a double. Else null.
 */
export const centsOf = (value: number): number | null => {
  if (!(Math.abs(value) < CENTS_EXACT_BELOW)) return null;
  const cents = Math.round(value * 100);
  return cents / 100 === value ? cents : null;
};

/**
 * The sum rounded to cents, exactly. Amounts of money are cents already (balances, commissions,
 * profits, swaps): their sum is a sum of integers, and the double nearest it / 100 is what the
 * decimal sum's toNumber answers. Anything else is summed in decimals.
 */
export const money = (...parts: number[]): number => {
  let cents = 0;
  for (const part of parts) {
    const c = centsOf(part);
    if (c === null) return moneyExactly(parts);
    cents += c;
  }
  // + 0: the decimal sum of zeros is 0, never -0.
  return cents / 100 + 0;
};

/**
 * The whole cents, rounded half away from zero, of an exact amount known only as the float `value`
 * at most `error` from it: null when that error could change them (within it of a half cent), when
 * they are none (the exact answer may be -0) or when the amount is too large for whole cents in a
 * double. Its cents / 100 is then the double nearest the exact decimal rounded to cents.
 */
export const centsNear = (value: number, error: number): number | null => {
  const scaled = Math.abs(value) * 100;
  if (!(scaled < CENTS_EXACT_BELOW)) return null;
  const whole = Math.floor(scaled);
  const fraction = scaled - whole;
  // × 100 rounded once more: within a few ulps of `scaled`.
  if (!(Math.abs(fraction - 0.5) > error * 100 + scaled * 2 ** -50)) return null;
  const cents = fraction > 0.5 ? whole + 1 : whole;
  if (cents === 0) return null;
  return value < 0 ? -cents : cents;
};

const moneyExactly = (parts: readonly number[]): number =>
  parts
    .reduce((sum, part) => sum.plus(part), new Money(0))
    .toDecimalPlaces(2)
    .toNumber();

/** commissionFor's answers per symbol terms and lot size: every copy of a fan-out asks the same. */
const commissions = new WeakMap<SymbolInfo, Map<number, number>>();
const COMMISSIONS_KEPT = 1024;

/** Charged once, when volume opens: negative. */
export const commissionFor = (info: SymbolInfo, lots: number): number => {
  let byLots = commissions.get(info);
  if (!byLots) {
    byLots = new Map();
    commissions.set(info, byLots);
  }
  let commission = byLots.get(lots);
  if (commission === undefined) {
    // + 0: a free symbol's negated zero is -0, which JSON and PostgreSQL turn into 0.
    commission = new Money(info.commissionPerLot).times(lots).negated().toDecimalPlaces(2).toNumber() + 0;
    if (byLots.size >= COMMISSIONS_KEPT) byLots.clear();
    byLots.set(lots, commission);
  }
  return commission;
};
