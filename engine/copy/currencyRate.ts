// The rate a cross-currency copy is sized and recorded with: one unit of the slave's currency in the
// master's, read from the slave's venue at the mid, by the domain's one conversion rule
// (domain/shared/currencyConversion.ts), which a signal's minimumBalance check uses too (app/signals.ts).
import { type Conversion, type ConversionSteps, conversionSteps, pairConversionSteps } from '../../domain/shared/currencyConversion.js';
import type { VenueConnection } from '../venues/port.js';

/** Runs `steps` against the venue's live quotes, one at a time; a symbol the venue refuses to quote is not quoted. */
const atVenue = async <T>(venue: VenueConnection, steps: ConversionSteps<T>): Promise<T> => {
  let step = steps.next();
  while (!step.done) {
    const mid = await venue.quote(step.value).then(
      (q) => (q.bid + q.ask) / 2,
      () => null,
    );
    step = steps.next(mid);
  }
  return step.value;
};

/**
 * How an amount in `from` is worth in `to` at the venue by their pair alone: times the mid of FROMTO,
 * else divided by the mid of TOFROM; null when the venue quotes neither.
 */
export const pairConversion = (venue: VenueConnection, from: string, to: string): Promise<Conversion | null> => atVenue(venue, pairConversionSteps(from, to));

/** How an amount in `from` is worth in `to` at the venue: as is for one currency, else by their pair or through USD. */
export const venueConversion = (venue: VenueConnection, from: string, to: string): Promise<Conversion | null> => atVenue(venue, conversionSteps(from, to));

/** Whether two currency codes name one currency: slaveToMasterRate answers null for them, asking the venue nothing. */
export const oneCurrency = (a: string, b: string): boolean => a.toUpperCase() === b.toUpperCase();

/**
 * One unit of the slave's currency in the master's (null when the same, or when no quote links
 * them): SLAVEMASTER or the inverse of MASTERSLAVE at the mid; where the venue quotes neither (an EUR
 * master, a GBP slave, no EURGBP), through USD: SLAVE→USD then USD→MASTER, each leg direct or inverse.
 */
export const slaveToMasterRate = async (slave: VenueConnection, slaveCurrency: string, masterCurrency: string): Promise<number | null> => {
  if (oneCurrency(slaveCurrency, masterCurrency)) return null;
  return (await venueConversion(slave, slaveCurrency, masterCurrency))?.(1) ?? null;
};
