// One currency in another at a venue's quotes: the one rule behind the copy rate and a point value
// (engine/copy/currencyRate.ts) and a signal's minimumBalance (domain/signal/minimumBalance.ts).
// FROMTO at the mid, else the inverse of TOFROM; where the venue quotes neither (an EUR and a GBP account,
// no EURGBP), through USD, each leg direct or inverse.
// Written as steps that yield each symbol whose mid they need and are sent it back (null: not quoted), so
// whoever drives them (convertedBy here, or asynchronously from a live venue) reads the quotes lazily, one
// at a time, and no more of them than the answer needs: at a real venue each quote may be a REST call.

/** The currency two others are converted through when the venue quotes no pair of them. */
export const CROSS_CURRENCY = 'USD';

/** An amount of one currency in another. */
export type Conversion = (amount: number) => number;

/** Steps that yield a symbol whose mid they need and are sent that mid (null: the venue does not quote it). */
export type ConversionSteps<T> = Generator<string, T, number | null>;

const quoted = (mid: number | null): mid is number => mid !== null && mid > 0;

/** By one pair, as the symbols are spelt: times the mid of FROMTO, else divided by the mid of TOFROM; null when neither is quoted. */
export function* pairConversionSteps(from: string, to: string): ConversionSteps<Conversion | null> {
  const direct = yield `${from}${to}`;
  if (quoted(direct)) return (amount) => amount * direct;
  const inverse = yield `${to}${from}`;
  return quoted(inverse) ? (amount) => amount / inverse : null;
}

/**
 * `from` in `to` (any case): as is for one currency; else by their pair (pairConversionSteps); else, when
 * neither is USD, FROM→USD then USD→TO, each by its pair; null when no such route is quoted.
 */
export function* conversionSteps(from: string, to: string): ConversionSteps<Conversion | null> {
  const source = from.toUpperCase();
  const target = to.toUpperCase();
  if (source === target) return (amount) => amount;
  const pair = yield* pairConversionSteps(source, target);
  if (pair || source === CROSS_CURRENCY || target === CROSS_CURRENCY) return pair;
  const toCross = yield* pairConversionSteps(source, CROSS_CURRENCY);
  if (!toCross) return null;
  const fromCross = yield* pairConversionSteps(CROSS_CURRENCY, target);
  return fromCross ? (amount) => fromCross(toCross(amount)) : null;
}

/** Runs `steps` against a synchronous lookup of mids. */
export const convertedBy = <T>(steps: ConversionSteps<T>, midOf: (symbol: string) => number | null): T => {
  let step = steps.next();
  while (!step.done) step = steps.next(midOf(step.value));
  return step.value;
};
