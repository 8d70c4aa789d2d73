// Exact arithmetic for lots, balances and prices. Floats drift (0.1 + 0.2 = 0.30000000000000004,
// 0.57 / 0.01 = 56.99999999999999), and one ulp on the wrong side of a lot step creates or loses a
// whole step when rounding down. So every number a copy rule receives is read as the decimal it
// denotes, at the 15 significant digits a double always carries, and the rules compute with exact
// fractions of BigInts: a volume becomes an integer count of lot steps only at the very end.

export interface Fraction {
  /** Numerator; the fraction is always reduced. */
  readonly n: bigint;
  /** Denominator, always positive. */
  readonly d: bigint;
}

const gcd = (a: bigint, b: bigint): bigint => {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
};

export const fraction = (n: bigint, d: bigint = 1n): Fraction => {
  if (d === 0n) throw new RangeError('fraction with a zero denominator');
  const sign = d < 0n ? -1n : 1n;
  const divisor = gcd(n, d) || 1n;
  return { n: (sign * n) / divisor, d: (sign * d) / divisor };
};

export const ZERO = fraction(0n);

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/;

/**
 * The decimal a double stands for, read at 15 significant digits: 0.1 + 0.2 reads as 0.3 and
 * 0.7 + 0.1 as 0.8, so float noise from upstream arithmetic never reaches a rounding decision.
 */
export const exact = (x: number): Fraction => {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  const match = DECIMAL.exec(x.toPrecision(15));
  if (!match) throw new RangeError(`cannot read ${x} as a decimal`);
  const [, sign = '', whole = '0', decimals = '', exponent = '0'] = match;
  const scale = decimals.length - Number(exponent);
  const digits = BigInt(`${sign}${whole}${decimals}`);
  return scale >= 0 ? fraction(digits, 10n ** BigInt(scale)) : fraction(digits * 10n ** BigInt(-scale));
};

export const add = (a: Fraction, b: Fraction): Fraction => fraction(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Fraction, b: Fraction): Fraction => fraction(a.n * b.d - b.n * a.d, a.d * b.d);
export const mul = (a: Fraction, b: Fraction): Fraction => fraction(a.n * b.n, a.d * b.d);
export const div = (a: Fraction, b: Fraction): Fraction => {
  if (b.n === 0n) throw new RangeError('division by zero');
  return fraction(a.n * b.d, a.d * b.n);
};

/** -1, 0 or 1 as a is below, equal to or above b. */
export const compare = (a: Fraction, b: Fraction): -1 | 0 | 1 => {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
};
export const isPositive = (a: Fraction): boolean => a.n > 0n;

/** The largest integer not above a. */
export const floor = (a: Fraction): bigint => {
  const quotient = a.n / a.d;
  return a.n < 0n && quotient * a.d !== a.n ? quotient - 1n : quotient;
};

/** The nearest integer, halves away from zero (how prices are normalised to digits). */
export const roundHalfAwayFromZero = (a: Fraction): bigint => {
  const magnitude = floor(fraction(2n * (a.n < 0n ? -a.n : a.n) + a.d, 2n * a.d));
  return a.n < 0n ? -magnitude : magnitude;
};

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const FALLBACK_SCALE = 10n ** 20n;

/**
 * The double nearest to the fraction. Both parts safe integers: one IEEE division, correctly rounded,
 * so 57/100 gives the same double as the literal 0.57.
 */
export const toNumber = (a: Fraction): number => {
  const magnitude = a.n < 0n ? -a.n : a.n;
  if (magnitude <= SAFE && a.d <= SAFE) return Number(a.n) / Number(a.d);
  return Number((a.n * FALLBACK_SCALE) / a.d) / Number(FALLBACK_SCALE);
};

/** A short decimal for messages (10 significant digits). */
export const show = (value: Fraction | number): string => String(Number((typeof value === 'number' ? value : toNumber(value)).toPrecision(10)));
