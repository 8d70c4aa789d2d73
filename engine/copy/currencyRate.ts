// The rate a cross-currency copy is sized and recorded with: one unit of the slave's currency in the
// master's, read from the slave's venue at the mid.
import type { VenueConnection } from '../venues/port.js';

/** The currency two others are converted through when the venue quotes no pair of them. */
const CROSS_CURRENCY = 'USD';

/**
 * One unit of the slave's currency in the master's (null when the same, or when no quote links
 * them): SLAVEMASTER or the inverse of MASTERSLAVE at the mid; where the venue quotes neither (an EUR
 * master, a GBP slave, no EURGBP), through USD: SLAVE→USD × USD→MASTER, each leg direct or inverse.
 */
export const slaveToMasterRate = async (slave: VenueConnection, slaveCurrency: string, masterCurrency: string): Promise<number | null> => {
  const from = slaveCurrency.toUpperCase();
  const to = masterCurrency.toUpperCase();
  if (from === to) return null;
  const mid = (symbol: string) =>
    slave.quote(symbol).then(
      (q) => (q.bid + q.ask) / 2,
      () => null,
    );
  const pair = async (a: string, b: string): Promise<number | null> => {
    const direct = await mid(`${a}${b}`);
    if (direct) return direct;
    const inverse = await mid(`${b}${a}`);
    return inverse ? 1 / inverse : null;
  };
  const rate = await pair(from, to);
  if (rate || from === CROSS_CURRENCY || to === CROSS_CURRENCY) return rate;
  const toCross = await pair(from, CROSS_CURRENCY);
  const fromCross = toCross ? await pair(CROSS_CURRENCY, to) : null;
  return toCross && fromCross ? toCross * fromCross : null;
};
