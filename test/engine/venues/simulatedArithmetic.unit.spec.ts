import { expect } from 'chai';
import { commissionFor, money, Money } from '../../../engine/venues/simulated/arithmetic.js';
import { SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';
import { defaultSymbols } from '../../../engine/venues/simulated/symbols.js';
import { VenueError } from '../../../engine/venues/port.js';

const TUESDAY_10 = Date.parse('2026-01-06T10:00:00.000Z');

/** One lot of EURUSD bought on an account of `balance` USD at 1:100, EURUSD pinned at 1.085 / 1.0851. */
const buyOneLot = async (balance: number): Promise<string> => {
  const venue = SimulatedVenue.create({ clock: { now: () => TUESDAY_10 }, seed: 'arithmetic' });
  venue.openAccount({ login: '1001', password: 'secret', balance, leverage: 100, marginMode: 'hedging' });
  venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
  const trader = venue.connection({ login: '1001', password: 'secret' });
  await trader.connect();
  const request = { symbol: 'EURUSD', orderType: 'buy', volume: 1, stopLoss: null, takeProfit: null, comment: null, magicNumber: null } as const;
  return trader.placeOrder(request, 'one-lot').then(
    (result) => result.status,
    (error: unknown) => (error instanceof VenueError ? error.code : String(error)),
  );
};

/** What money() answered before its cents path: the decimal sum rounded half away from zero to cents. */
const decimalMoney = (...parts: number[]): number =>
  parts
    .reduce((sum, part) => sum.plus(part), new Money(0))
    .toDecimalPlaces(2)
    .toNumber();

/** A seeded generator, so a failure repeats. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

describe('simulated venue arithmetic', () => {
  it('money on cents amounts answers what the decimal sum does', () => {
    const next = random(7);
    for (let i = 0; i < 20_000; i++) {
      const scale = [1, 100, 10_000, 1e6, 1e9][i % 5]!;
      const parts = Array.from({ length: 1 + (i % 4) }, () => Math.round((next() - 0.5) * scale * 100) / 100);
      expect(money(...parts), parts.join(' + ')).to.equal(decimalMoney(...parts));
    }
  });

  it('money on amounts that are not cents rounds them as decimals, half away from zero', () => {
    const cases: number[][] = [[0.005], [-0.005], [1.005, 2], [0.1, 0.2], [1e15, 0.01], [12.345, -0.001], [0.125, 0.125], [-0, 0], [-0], [2.675]];
    for (const parts of cases) expect(money(...parts), parts.join(' + ')).to.equal(decimalMoney(...parts));
    const next = random(11);
    for (let i = 0; i < 5_000; i++) {
      const parts = [Math.round(next() * 1e7) / 1e5, -Math.round(next() * 1e6) / 1e3];
      expect(money(...parts), parts.join(' + ')).to.equal(decimalMoney(...parts));
    }
  });

  it('money never answers -0', () => {
    expect(Object.is(money(-0), 0)).to.equal(true);
    expect(Object.is(money(-1.5, 1.5), 0)).to.equal(true);
  });

  it('commissionFor answers the same when asked again, per symbol and lot size', () => {
    for (const { info } of defaultSymbols) {
      for (const lots of [0.01, 0.07, 1, 2.35, 100]) {
        const expected = new Money(info.commissionPerLot).times(lots).negated().toDecimalPlaces(2).toNumber() + 0;
        expect(commissionFor(info, lots)).to.equal(expected);
        expect(commissionFor(info, lots)).to.equal(expected);
      }
    }
  });

  it('an order whose margin the equity covers to the cent fills; a cent less is [NOT_ENOUGH_MONEY]', async () => {
    // Margin 1,000 EUR at the mid 1.08505 = 1,085.05 USD; commission 7.00: 1,092.05 is just enough.
    expect(await buyOneLot(1092.05)).to.equal('filled');
    expect(await buyOneLot(1092.04)).to.equal('[NOT_ENOUGH_MONEY]');
  });
});
