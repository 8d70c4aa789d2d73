import { expect } from 'chai';
import { approx } from '../../../engine/venues/simulated/arithmetic.js';
import { Book } from '../../../engine/venues/simulated/book.js';
import { Market } from '../../../engine/venues/simulated/market.js';
import { PriceFeed } from '../../../engine/venues/simulated/prices.js';
import { type Clock, SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';
import { noteChecked, STOP_OUT_SCREEN_MARGIN, unchangedSinceChecked } from '../../../engine/venues/simulated/stopOutWatch.js';
import { defaultSymbols } from '../../../engine/venues/simulated/symbols.js';
import { valuation } from '../../../engine/venues/simulated/valuation.js';

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

// The band (stopOutWatch.ts): a check that found no stop-out works out how far the quotes it reads may
// move before the float screen could fail; inside it the account is not valued. These cases hold the
// band against the screen itself on random books and moves: whenever the watch skips, the screen passes.
const ORIGIN = Date.parse('2026-01-06T10:00:00.000Z');
const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'] as const;

/** A deterministic generator (mulberry32), so a failure replays. */
const randomFrom = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** A market on the default symbols, each quote pinned at its initial bid moved by a factor. */
const pinnedMarket = (move: (symbol: string) => number): Market => {
  const market = new Market(defaultSymbols, PriceFeed.create(defaultSymbols, 'band', ORIGIN).state());
  for (const { info, initialBid } of defaultSymbols) market.feed.pin(info.symbol, ORIGIN, initialBid * move(info.symbol));
  return market;
};

/** A book of 1 to 4 positions opened near the quotes, with a balance that puts it anywhere from safe to stopped out. */
const randomBook = (random: () => number, market: Market): Book => {
  const positions = Array.from({ length: 1 + Math.floor(random() * 4) }, (_, i) => {
    const { info } = defaultSymbols[Math.floor(random() * defaultSymbols.length)]!;
    const quote = market.quoteAt(info.symbol, ORIGIN);
    const side = random() < 0.5 ? ('buy' as const) : ('sell' as const);
    return {
      id: String(i + 1),
      symbol: info.symbol,
      side,
      volume: Math.round((0.01 + random() * 2) * 100) / 100,
      openPrice: (side === 'buy' ? quote.ask : quote.bid) * (1 + (random() - 0.5) * 0.02),
      openTime: new Date(ORIGIN).toISOString(),
      stopLoss: null,
      takeProfit: null,
      swap: 0,
      commission: 0,
      comment: null,
      magicNumber: null,
      clientOrderId: null,
    };
  });
  return new Book({
    login: 'band',
    passwordHash: '',
    currency: CURRENCIES[Math.floor(random() * CURRENCIES.length)]!,
    leverage: [1, 30, 100, 500][Math.floor(random() * 4)]!,
    marginMode: 'hedging',
    stopOutLevel: 50,
    credit: 0,
    balance: Math.round(10 ** (2 + random() * 4)),
    sequence: 0,
    positions,
    orders: [],
    history: [],
    requests: [],
  });
};

/** What stopOut's float screen answers (catchUp.ts). */
const screenPasses = (market: Market, book: Book): boolean => {
  const { equity, margin } = valuation(approx, market, book, ORIGIN);
  return margin <= 0 || equity * 100 >= margin * book.settings.stopOutLevel * STOP_OUT_SCREEN_MARGIN;
};

describe('simulated venue: the stop-out check values only accounts whose quotes left their band', () => {
  it('skips only where the float screen passes, over random books and moves', () => {
    const random = randomFrom(16);
    let skipped = 0;
    let valued = 0;
    for (let trial = 0; trial < 1000; trial++) {
      const before = pinnedMarket(() => 1);
      const book = randomBook(random, before);
      if (!screenPasses(before, book)) continue;
      noteChecked(before, book, ORIGIN);
      // Small moves and large ones, every symbol its own.
      const scale = [0.0001, 0.001, 0.01, 0.05, 0.3][trial % 5]!;
      const after = pinnedMarket(() => 1 + (random() - 0.5) * 2 * scale);
      if (unchangedSinceChecked(after, book, ORIGIN)) {
        skipped += 1;
        expect(screenPasses(after, book), `trial ${trial}`).to.equal(true);
      } else valued += 1;
    }
    // Both happen: most small moves are skipped, the large ones valued.
    expect(skipped).to.be.greaterThan(250);
    expect(valued).to.be.greaterThan(80);
  });

  it('skips a well-funded account while its quotes move along their paths, and values it again once the book changes', () => {
    const market = new Market(defaultSymbols, PriceFeed.create(defaultSymbols, 'paths', ORIGIN).state());
    const book = randomBook(randomFrom(7), market);
    book.balance = 1_000_000;
    noteChecked(market, book, ORIGIN);
    let moved = 0;
    for (let second = 1; second <= 60; second++) {
      const time = ORIGIN + second * 1000;
      if (market.quoteAt('EURUSD', time).bid !== market.quoteAt('EURUSD', ORIGIN).bid) moved += 1;
      expect(unchangedSinceChecked(market, book, time), `second ${second}`).to.equal(true);
    }
    expect(moved).to.be.greaterThan(0);
    book.touch();
    expect(unchangedSinceChecked(market, book, ORIGIN + 1000)).to.equal(false);
  });

  it('values every second an account at the screen margin once a quote it reads moves at all', () => {
    const market = pinnedMarket(() => 1);
    const book = randomBook(randomFrom(3), market);
    const { equity, margin } = valuation(approx, market, book, ORIGIN);
    // Equity just above the screen's line: no move is safe.
    book.balance += (margin * 50 * STOP_OUT_SCREEN_MARGIN) / 100 - equity + 0.001;
    expect(screenPasses(market, book)).to.equal(true);
    noteChecked(market, book, ORIGIN);
    expect(unchangedSinceChecked(market, book, ORIGIN)).to.equal(true);
    const [first] = book.positions.values();
    const quote = market.quoteAt(first!.symbol, ORIGIN);
    const point = defaultSymbols.find((s) => s.info.symbol === first!.symbol)!.info.point;
    market.feed.pin(first!.symbol, ORIGIN, quote.bid + point, quote.ask + point);
    expect(unchangedSinceChecked(market, book, ORIGIN)).to.equal(false);
  });
});
