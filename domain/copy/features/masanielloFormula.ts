// The Masaniello formula: the chance P(n, k) of at least k wins in n, the stake share and start capital
// it gives, and the rounding of a stake to the lot step. Exact arithmetic (BigInt and Decimal); the
// feature that uses it, with the derivation, is masaniello.ts.
import { Decimal, ONE, ZERO } from '../../shared/decimal.js';

export const LOT_ROUNDING_MODES = ['DOWN', 'UP', 'NEAREST'] as const;

/** n! / (j! (n - j)!) for every j, as BigInts. */
const binomials = (n: number): bigint[] => {
  const row = [1n];
  for (let j = 1; j <= n; j++) row.push((row[j - 1]! * BigInt(n - j + 1)) / BigInt(j));
  return row;
};

/** A win probability p = b / a in whole numbers, from p = l / (w + l) with decimal w and l. */
interface Ratio {
  readonly a: bigint;
  readonly b: bigint;
}
const ratioOf = (win: Decimal, loss: Decimal): Ratio => {
  const places = Math.max(win.decimalPlaces(), loss.decimalPlaces());
  const scale = new Decimal(10).pow(places);
  return { a: BigInt(win.plus(loss).times(scale).toFixed()), b: BigInt(loss.times(scale).toFixed()) };
};

/** a^n P(n, k) = sum_{j=k..n} C(n, j) b^j (a - b)^(n-j), a whole number (P(n, 0) = 1, P(n, k) = 0 for k > n). */
const weight = (n: number, k: number, { a, b }: Ratio): bigint => {
  if (k <= 0) return a ** BigInt(Math.max(0, n));
  if (k > n) return 0n;
  const c = binomials(n);
  let sum = 0n;
  for (let j = k; j <= n; j++) sum += c[j]! * b ** BigInt(j) * (a - b) ** BigInt(n - j);
  return sum;
};

const quotient = (numerator: bigint, denominator: bigint): Decimal => new Decimal(numerator.toString()).dividedBy(denominator.toString());

/** P(n, k): the chance of at least k wins in n when a win pays `win` R and a loss costs `loss` R (p = loss / (win + loss)). */
export const masanielloP = (n: number, k: number, win: Decimal, loss: Decimal = ONE): Decimal => {
  if (k <= 0) return ONE;
  if (k > n) return ZERO;
  const ratio = ratioOf(win, loss);
  return quotient(weight(n, k, ratio), ratio.a ** BigInt(n));
};

/**
 * The stake of the next trade as a share of the capital c above the floor:
 * (P(n-1, k-1) - P(n-1, k)) / ((w + l) P(n, k)) = a (W(n-1, k-1) - W(n-1, k)) / ((w + l) W(n, k)), W = a^n P.
 */
export const masanielloStakeShare = (eventsLeft: number, winsNeeded: number, win: Decimal, loss: Decimal = ONE): Decimal => {
  if (winsNeeded <= 0 || winsNeeded > eventsLeft) return ZERO;
  const ratio = ratioOf(win, loss);
  const all = weight(eventsLeft, winsNeeded, ratio);
  const spread = weight(eventsLeft - 1, winsNeeded - 1, ratio) - weight(eventsLeft - 1, winsNeeded, ratio);
  return quotient(ratio.a * spread, all).dividedBy(win.plus(loss));
};

/** The capital a series starts with above its floor: min(B, X P / (1 - P)) for bankroll B, target X and P = P(N, K). */
export const masanielloStartCapital = (bankroll: Decimal, target: Decimal, p: Decimal): Decimal => {
  if (p.greaterThanOrEqualTo(1)) return bankroll;
  const needed = target.times(p).dividedBy(ONE.minus(p));
  return Decimal.min(bankroll, needed);
};

/** `lots` rounded to `step` by `mode`, bounded by the minimum and maximum lot. */
export const roundLot = (lots: Decimal, step: Decimal, mode: (typeof LOT_ROUNDING_MODES)[number], minimum: Decimal, maximum: Decimal): Decimal => {
  // Cut to 9 places first: a stake of exactly 5 lots computed as 4.99999... must not round down to 4.99.
  const steps = lots.dividedBy(step).toDecimalPlaces(9, Decimal.ROUND_HALF_UP);
  const whole = mode === 'UP' ? steps.ceil() : mode === 'NEAREST' ? steps.toDecimalPlaces(0, Decimal.ROUND_HALF_UP) : steps.floor();
  return Decimal.min(maximum, Decimal.max(minimum, whole.times(step)));
};
