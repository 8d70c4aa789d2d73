import { expect } from 'chai';
import { mulberry32, PriceFeed, standardNormal, studentT } from '../../../engine/venues/simulated/prices.js';
import { defaultSymbols } from '../../../engine/venues/simulated/symbols.js';

const TUESDAY = Date.parse('2026-01-06T00:00:00.000Z');
const FRIDAY_CLOSE = Date.parse('2026-01-09T22:00:00.000Z');
const SUNDAY_OPEN = Date.parse('2026-01-11T22:00:00.000Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const feed = (seed: string | number, origin = TUESDAY) => PriceFeed.create(defaultSymbols, seed, origin);

const kurtosis = (xs: readonly number[]): number => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const m2 = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length;
  const m4 = xs.reduce((a, x) => a + (x - mean) ** 4, 0) / xs.length;
  return m4 / (m2 * m2);
};

/** Log returns of the bid between consecutive times. */
const logReturns = (prices: PriceFeed, symbol: string, from: number, to: number, every: number): number[] => {
  const out: number[] = [];
  let previous = prices.quoteAt(symbol, from).bid;
  for (let t = from + every; t <= to; t += every) {
    const bid = prices.quoteAt(symbol, t).bid;
    out.push(Math.log(bid / previous));
    previous = bid;
  }
  return out;
};

describe('simulated venue: price paths', () => {
  it('gives the same quote for the same seed, symbol and time, whatever was asked before', () => {
    const times = Array.from({ length: 40 }, (_, i) => TUESDAY + i * 17 * MINUTE + (i % 7) * SECOND);
    const forwards = feed(42);
    const backwards = feed(42);
    const ahead = times.map((t) => forwards.quoteAt('XAUUSD', t));
    const behind = [...times]
      .reverse()
      .map((t) => backwards.quoteAt('XAUUSD', t))
      .reverse();
    expect(behind).to.deep.equal(ahead);
    expect(new Set(ahead.map((q) => q.bid)).size).to.be.above(30);
  });

  it('gives different paths for different seeds and for different symbols', () => {
    const one = feed(1);
    const two = feed(2);
    const hours = Array.from({ length: 24 }, (_, i) => TUESDAY + (i + 1) * HOUR);
    const differing = hours.filter((t) => one.quoteAt('EURUSD', t).bid !== two.quoteAt('EURUSD', t).bid);
    expect(differing).to.have.length.above(20);
    const eur = logReturns(one, 'EURUSD', TUESDAY, TUESDAY + DAY, HOUR);
    const gbp = logReturns(one, 'GBPUSD', TUESDAY, TUESDAY + DAY, HOUR);
    expect(eur.filter((r, i) => Math.sign(r) !== Math.sign(gbp[i] ?? 0))).to.have.length.above(3);
  });

  it('starts every path at the symbol’s initial bid, on the tick grid, with the ask above the bid', () => {
    const prices = feed('grid');
    for (const { info, initialBid } of defaultSymbols) {
      expect(prices.quoteAt(info.symbol, TUESDAY).bid).to.equal(initialBid);
      for (let t = TUESDAY; t < TUESDAY + DAY; t += 37 * MINUTE) {
        const { bid, ask } = prices.quoteAt(info.symbol, t);
        const scale = 10 ** info.digits;
        expect(Math.abs(bid * scale - Math.round(bid * scale))).to.be.below(1e-6);
        expect(Math.round((ask - bid) * scale)).to.be.at.least(1);
      }
    }
  });

  it('draws Student-t increments with a kurtosis far above the normal’s 3', () => {
    const random = mulberry32(7);
    const normals = Array.from({ length: 200_000 }, () => standardNormal(random));
    const ts = Array.from({ length: 200_000 }, () => studentT(random, 5));
    expect(kurtosis(normals)).to.be.within(2.9, 3.1);
    // Theory: 3 + 6 / (5 − 4) = 9.
    expect(kurtosis(ts)).to.be.above(5);
  });

  it('has fat-tailed one-minute returns (kurtosis above 4) for every seed tried', () => {
    for (const seed of ['a', 'b', 'c']) {
      const returns = logReturns(feed(seed), 'EURUSD', TUESDAY, TUESDAY + 2 * DAY, MINUTE);
      expect(returns).to.have.length(2880);
      expect(kurtosis(returns), seed).to.be.above(4);
    }
  });

  it('moves about as much in a year as the symbol’s volatility says', () => {
    const returns = logReturns(feed('vol'), 'EURUSD', TUESDAY, TUESDAY + 3 * DAY, MINUTE);
    const variance = returns.reduce((a, r) => a + r * r, 0) / returns.length;
    const annualised = Math.sqrt(variance * 1440 * 260);
    expect(annualised).to.be.within(0.045, 0.12);
  });

  it('moves more in the London/New York overlap (13-17h UTC) than in the early Asian hours (03-05h)', () => {
    const prices = feed('rhythm');
    const meanMove = (fromHour: number, toHour: number) => {
      const moves: number[] = [];
      for (let day = 0; day < 3; day++) {
        const start = TUESDAY + day * DAY;
        moves.push(...logReturns(prices, 'EURUSD', start + fromHour * HOUR, start + toHour * HOUR, MINUTE).map(Math.abs));
      }
      return moves.reduce((a, b) => a + b, 0) / moves.length;
    };
    expect(meanMove(13, 17) / meanMove(3, 5)).to.be.above(1.8);
  });

  it('widens the spread at the 22:00 UTC rollover', () => {
    const prices = feed('spread');
    const meanSpread = (from: number) => {
      let sum = 0;
      for (let t = from; t < from + 20 * MINUTE; t += MINUTE) {
        const quote = prices.quoteAt('EURUSD', t);
        sum += Math.round((quote.ask - quote.bid) * 1e5);
      }
      return sum / 20;
    };
    expect(meanSpread(TUESDAY + 22 * HOUR)).to.be.above(2 * meanSpread(TUESDAY + 12 * HOUR));
  });

  it('freezes forex over the weekend and gaps at the Sunday open, while bitcoin trades on', () => {
    const prices = feed('weekend', TUESDAY);
    const friday = prices.quoteAt('EURUSD', FRIDAY_CLOSE - SECOND);
    for (const t of [FRIDAY_CLOSE, FRIDAY_CLOSE + DAY, SUNDAY_OPEN - SECOND]) {
      expect(prices.quoteAt('EURUSD', t)).to.deep.equal(friday);
    }
    expect(friday.time).to.equal(FRIDAY_CLOSE - SECOND);
    const sunday = prices.quoteAt('EURUSD', SUNDAY_OPEN);
    expect(Math.abs(Math.round((sunday.bid - friday.bid) * 1e5))).to.be.above(10);
    expect(prices.quoteAt('BTCUSD', FRIDAY_CLOSE + DAY).bid).not.to.equal(prices.quoteAt('BTCUSD', FRIDAY_CLOSE).bid);
  });

  it('holds a pinned quote until released, then continues from it without a jump', () => {
    const prices = feed('pin');
    prices.pin('XAUUSD', TUESDAY + HOUR, 2400, 2400.3);
    expect(prices.quoteAt('XAUUSD', TUESDAY + 5 * HOUR)).to.deep.include({ bid: 2400, ask: 2400.3 });
    prices.release('XAUUSD', TUESDAY + 5 * HOUR);
    expect(prices.quoteAt('XAUUSD', TUESDAY + 5 * HOUR).bid).to.equal(2400);
    expect(Math.abs(prices.quoteAt('XAUUSD', TUESDAY + 5 * HOUR + SECOND).bid - 2400)).to.be.below(1);
    expect(prices.quoteAt('XAUUSD', TUESDAY + 6 * HOUR).bid).not.to.equal(2400);
  });

  it('restores pins and re-based paths from its state', () => {
    const prices = feed('state');
    prices.pin('EURUSD', TUESDAY + HOUR, 1.1);
    prices.release('EURUSD', TUESDAY + 2 * HOUR);
    prices.pin('USDJPY', TUESDAY + HOUR, 140);
    const copy = new PriceFeed(defaultSymbols, JSON.parse(JSON.stringify(prices.state())));
    for (const symbol of ['EURUSD', 'USDJPY', 'GBPUSD']) {
      expect(copy.quoteAt(symbol, TUESDAY + 9 * HOUR)).to.deep.equal(prices.quoteAt(symbol, TUESDAY + 9 * HOUR));
    }
    expect(copy.quoteAt('USDJPY', TUESDAY + 9 * HOUR)).to.deep.include({ bid: 140, ask: 140.008 });
  });

  it('resumes its paths from the hourly checkpoint below the processed step, not from the origin', () => {
    const prices = feed('resume');
    const later = TUESDAY + 3 * DAY + 5 * HOUR + 17 * MINUTE;
    const expected = defaultSymbols.map((s) => prices.quoteAt(s.info.symbol, later + 10 * MINUTE));
    const state = JSON.parse(JSON.stringify(prices.state(prices.stepAt(later))));
    expect(Object.keys(state.resume).sort()).to.deep.equal(defaultSymbols.map((s) => s.info.symbol).sort());
    expect(state.resume.EURUSD.step).to.equal(prices.stepAt(TUESDAY + 3 * DAY + 5 * HOUR));
    const copy = new PriceFeed(defaultSymbols, state);
    expect(defaultSymbols.map((s) => copy.quoteAt(s.info.symbol, later + 10 * MINUTE))).to.deep.equal(expected);
    // What lies before the checkpoint was never walked again.
    expect(() => copy.quoteAt('EURUSD', TUESDAY + HOUR)).to.throw(/no checkpoint below step/);
  });
});
