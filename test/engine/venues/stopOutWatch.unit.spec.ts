import { expect } from 'chai';
import { type Clock, SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';

// The stop-out check skips an account whose book and quotes stand still since its last check
// (engine/venues/simulated/stopOutWatch.ts): these specs move only what the skip must notice.
class StepClock implements Clock {
  time = Date.parse('2026-01-06T10:00:00.000Z');
  now(): number {
    return this.time;
  }
}

/** An EUR account of 1,000 holding 0.05 lots of gold (bought at 2350.25, a USD symbol), every quote pinned. */
const goldInEuros = async () => {
  const clock = new StepClock();
  const venue = SimulatedVenue.create({ clock, seed: 'stop-out-watch' });
  venue.openAccount({ login: '3001', password: 'secret', balance: 1000, leverage: 100, marginMode: 'hedging', currency: 'EUR' });
  venue.setQuote('EURUSD', { bid: 1.085, ask: 1.0851 });
  venue.setQuote('XAUUSD', { bid: 2350, ask: 2350.25 });
  const trader = venue.connection({ login: '3001', password: 'secret' });
  await trader.connect();
  await trader.placeOrder({ symbol: 'XAUUSD', orderType: 'buy', volume: 0.05 }, 'gold');
  const level = async () => (await trader.accountInformation()).marginLevel ?? Infinity;
  const open = async () => (await trader.positions()).length;
  /** Gold falls a dollar at a time until the margin level is under `under`% (or the position is gone). */
  const goldFallsUnder = async (under: number) => {
    for (let bid = 2349; (await open()) > 0 && (await level()) >= under; bid -= 1) venue.setQuote('XAUUSD', { bid, ask: bid + 0.25 });
  };
  const seconds = (n: number) => {
    for (let i = 0; i < n; i++) {
      clock.time += 1000;
      venue.tick();
    }
  };
  return { venue, trader, level, open, goldFallsUnder, seconds };
};

describe('simulated venue: the stop-out check skips only what cannot have changed', () => {
  it('stops out when only the pair converting the account currency moves, after seconds of standing still', async () => {
    const world = await goldInEuros();
    await world.goldFallsUnder(60);
    expect(await world.level()).to.be.at.least(50);
    world.seconds(5);
    expect(await world.open()).to.equal(1);
    // The USD loss and margin weigh more in euros when the euro falls: gold itself does not move.
    world.venue.setQuote('EURUSD', { bid: 0.868, ask: 0.8681 });
    expect(await world.open()).to.equal(0);
    const history = await world.trader.history('2026-01-01T00:00:00Z', '2026-12-31T00:00:00Z');
    expect(history.filter((entry) => entry.kind === 'trade').map((trade) => (trade.kind === 'trade' ? trade.reason : null))).to.deep.equal(['stopOut']);
  });

  it('stops out when the quote of the position itself moves past the level after standing still', async () => {
    const world = await goldInEuros();
    await world.goldFallsUnder(60);
    world.seconds(5);
    expect(await world.open()).to.equal(1);
    await world.goldFallsUnder(50);
    expect(await world.open()).to.equal(0);
    const history = await world.trader.history('2026-01-01T00:00:00Z', '2026-12-31T00:00:00Z');
    expect(history.filter((entry) => entry.kind === 'trade').map((trade) => (trade.kind === 'trade' ? trade.reason : null))).to.deep.equal(['stopOut']);
  });
});
