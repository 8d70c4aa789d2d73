// The rate the copy engine sizes and records a cross-currency copy with (engine/copy/inputs.ts
// `slaveToMasterRate`): one unit of the slave's currency in the master's, from the slave venue's
// quotes; direct, inverse, or through USD when the venue quotes no pair of the two.
import { expect } from 'chai';
import { CopyInputs } from '../../../engine/copy/inputs.js';
import type { AccountSessions } from '../../../engine/venues/connections.js';
import type { VenueConnection } from '../../../engine/venues/port.js';
import type { Kysely } from 'kysely';
import type { ReadModels } from '../../../projections/schema.js';

/** A slave venue quoting only the given symbols at the given mids (a spread of 0.0002 around each). */
const venue = (mids: Record<string, number>) =>
  ({
    quote: (symbol: string) => {
      const mid = mids[symbol];
      return mid === undefined ? Promise.reject(new Error(`no ${symbol}`)) : Promise.resolve({ symbol, bid: mid - 0.0001, ask: mid + 0.0001 });
    },
  }) as unknown as VenueConnection;

const inputs = new CopyInputs({} as Kysely<ReadModels>, {} as AccountSessions, () => new Date());

describe('engine/copy/inputs: the slave-to-master currency rate', () => {
  it('is null for one currency, whatever the case', async () => {
    expect(await inputs.slaveToMasterRate(venue({}), 'eur', 'EUR')).to.equal(null);
  });

  it('reads SLAVEMASTER at the mid, else the inverse of MASTERSLAVE', async () => {
    expect(await inputs.slaveToMasterRate(venue({ EURUSD: 1.25 }), 'EUR', 'USD')).to.be.closeTo(1.25, 1e-12);
    expect(await inputs.slaveToMasterRate(venue({ EURUSD: 1.25 }), 'USD', 'EUR')).to.be.closeTo(0.8, 1e-12);
  });

  it('goes through USD where the venue quotes no pair of the two (a GBP slave of an EUR master, no EURGBP)', async () => {
    const quotes = venue({ EURUSD: 1.25, GBPUSD: 1.5 });
    // 1 GBP = 1.5 USD = 1.5 / 1.25 EUR
    expect(await inputs.slaveToMasterRate(quotes, 'GBP', 'EUR')).to.be.closeTo(1.2, 1e-12);
    expect(await inputs.slaveToMasterRate(quotes, 'EUR', 'GBP')).to.be.closeTo(1.25 / 1.5, 1e-12);
    // USDJPY is quoted the other way round: 1 JPY = 1/150 USD = (1/150) / 1.25 EUR
    expect(await inputs.slaveToMasterRate(venue({ EURUSD: 1.25, USDJPY: 150 }), 'JPY', 'EUR')).to.be.closeTo(1 / 150 / 1.25, 1e-15);
  });

  it('prefers the direct pair to the cross, and is null when a leg is missing', async () => {
    expect(await inputs.slaveToMasterRate(venue({ GBPEUR: 1.19, EURUSD: 1.25, GBPUSD: 1.5 }), 'GBP', 'EUR')).to.be.closeTo(1.19, 1e-12);
    expect(await inputs.slaveToMasterRate(venue({ EURUSD: 1.25 }), 'GBP', 'EUR')).to.equal(null);
    expect(await inputs.slaveToMasterRate(venue({}), 'GBP', 'USD')).to.equal(null);
  });
});
