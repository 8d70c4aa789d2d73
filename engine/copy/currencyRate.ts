// The rate a cross-currency copy is sized and recorded with: one unit of the slave's currency in the
// master's, read from the slave's venue at the mid.
import type { VenueConnection } from '../venues/port.js';

/** The currency two others are converted through when the venue quotes no pair of them. */
const CROSS_CURRENCY = 'USD';

/**
 * How an amount in `from` is worth in `to` at the venue: times the mid of FROMTO, else divided by the
 * mid of TOFROM; null when the venue quotes neither.
 */
export const pairConversion = async (venue: VenueConnection, from: string, to: string): Promise<((amount: number) => number) | null> => {
  const mid = (symbol: string) =>
    venue.quote(symbol).then(
      (q) => (q.bid + q.ask) / 2,
      () => null,
    );
  const direct = await mid(`${from}${to}`);
  if (direct !== null && direct > 0) return (amount) => amount * direct;
  const inverse = await mid(`${to}${from}`);
  return inverse !== null && inverse > 0 ? (amount) => amount / inverse : null;
};

/** One unit of `from` in `to` at the venue (see pairConversion). */
const pairRate = async (venue: VenueConnection, from: string, to: string): Promise<number | null> => (await pairConversion(venue, from, to))?.(1) ?? null;

/**
 * One unit of the slave's currency in the master's (null when the same, or when no quote links
 * them): SLAVEMASTER or the inverse of MASTERSLAVE at the mid; where the venue quotes neither (an EUR
 * master, a GBP slave, no EURGBP), through USD: SLAVE→USD × USD→MASTER, each leg direct or inverse.
 */
export const slaveToMasterRate = async (slave: VenueConnection, slaveCurrency: string, masterCurrency: string): Promise<number | null> => {
  const from = slaveCurrency.toUpperCase();
  const to = masterCurrency.toUpperCase();
  if (from === to) return null;
  const rate = await pairRate(slave, from, to);
  if (rate !== null || from === CROSS_CURRENCY || to === CROSS_CURRENCY) return rate;
  const toCross = await pairRate(slave, from, CROSS_CURRENCY);
  const fromCross = toCross !== null ? await pairRate(slave, CROSS_CURRENCY, to) : null;
  return toCross !== null && fromCross !== null ? toCross * fromCross : null;
};
