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

export const exact: Numbers<Decimal> = {
  of: (value) => new Money(value),
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

export const money = (...parts: number[]): number =>
  parts
    .reduce((sum, part) => sum.plus(part), new Money(0))
    .toDecimalPlaces(2)
    .toNumber();

/** Charged once, when volume opens: negative. */
export const commissionFor = (info: SymbolInfo, lots: number): number =>
  // + 0: a free symbol's negated zero is -0, which JSON and PostgreSQL turn into 0.
  new Money(info.commissionPerLot).times(lots).negated().toDecimalPlaces(2).toNumber() + 0;
