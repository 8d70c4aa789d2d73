// The simulated venue's views answer its money in floats when they are clear of a half cent, and in
// decimals otherwise: every figure must be what the decimal formulas alone answered before.
import { expect } from 'chai';
import type { AccountInformation, Side } from '../../../engine/venues/port.js';
import { exact } from '../../../engine/venues/simulated/arithmetic.js';
import { Book } from '../../../engine/venues/simulated/book.js';
import { Market } from '../../../engine/venues/simulated/market.js';
import { PriceFeed } from '../../../engine/venues/simulated/prices.js';
import type { PositionRecord } from '../../../engine/venues/simulated/state.js';
import { defaultSymbols } from '../../../engine/venues/simulated/symbols.js';
import { profit } from '../../../engine/venues/simulated/valuation.js';
import { exactFigures, information, positionView, profitNow } from '../../../engine/venues/simulated/views.js';

const WEDNESDAY_10 = Date.parse('2026-01-07T10:00:00.000Z');

/** A seeded generator, so a failure repeats. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const marketAt = (seed: string): Market => new Market(defaultSymbols, PriceFeed.create(defaultSymbols, seed, WEDNESDAY_10).state());

const position = (id: string, symbol: string, side: Side, volume: number, openPrice: number, swap = 0): PositionRecord => ({
  id,
  symbol,
  side,
  volume,
  openPrice,
  openTime: new Date(WEDNESDAY_10).toISOString(),
  stopLoss: null,
  takeProfit: null,
  swap,
  commission: 0,
  comment: null,
  magicNumber: null,
  clientOrderId: null,
});

const bookOf = (currency: string, balance: number, positions: readonly PositionRecord[], leverage = 100, credit = 0): Book =>
  new Book({
    login: '3001',
    passwordHash: 'x',
    currency,
    leverage,
    marginMode: 'hedging',
    stopOutLevel: 50,
    balance,
    credit,
    sequence: 0,
    positions,
    orders: [],
    history: [],
    requests: [],
  });

/** What information() answered before its float path: every figure from the decimals. */
const decimalFigures = (market: Market, book: Book, now: number): Partial<AccountInformation> => {
  const { floating, ...rest } = exactFigures(market, book, now);
  return { ...rest, unrealizedProfit: floating };
};

const figures = (info: AccountInformation): Partial<AccountInformation> => ({
  equity: info.equity,
  margin: info.margin,
  freeMargin: info.freeMargin,
  marginLevel: info.marginLevel,
  unrealizedProfit: info.unrealizedProfit,
});

/** Same value and the same sign of zero. */
const same = (actual: unknown, expected: unknown, label: string): void => {
  expect(actual, label).to.deep.equal(expected);
  if (typeof expected === 'object' && expected !== null) {
    for (const [key, value] of Object.entries(expected))
      expect(Object.is((actual as Record<string, unknown>)[key], value), `${label} ${key} sign`).to.equal(true);
  }
};

describe('simulated venue views: money in floats where the decimals agree', () => {
  const symbols = defaultSymbols.map((s) => s.info.symbol);

  it('positions and account figures answer what the decimals answer, over random books in every account currency', () => {
    const next = random(23);
    for (const currency of ['USD', 'EUR', 'GBP', 'JPY']) {
      const market = marketAt(`views-${currency}`);
      for (let i = 0; i < 150; i++) {
        const now = WEDNESDAY_10 + Math.floor(next() * 6 * 3600_000);
        const positions = Array.from({ length: i % 5 }, (_, k) => {
          const symbol = symbols[Math.floor(next() * symbols.length)]!;
          const quote = market.quoteAt(symbol, WEDNESDAY_10 + Math.floor(next() * 3600_000));
          const step = defaultSymbols.find((s) => s.info.symbol === symbol)!.info.volumeStep;
          const volume = Math.max(1, Math.round(next() * 500)) * step;
          const side: Side = next() < 0.5 ? 'buy' : 'sell';
          const swap = k % 2 === 0 ? Math.round((next() - 0.5) * 10_000) / 100 : 0;
          return position(`p${k}`, symbol, side, Number(volume.toFixed(8)), side === 'buy' ? quote.ask : quote.bid, swap);
        });
        const book = bookOf(currency, Math.round(next() * 1e8) / 100, positions, [1, 30, 100, 500][i % 4]!, i % 7 === 0 ? 250.5 : 0);
        same(figures(information(market, book, now)), decimalFigures(market, book, now), `${currency} book ${i}`);
        for (const p of positions) {
          const quote = market.quoteAt(p.symbol, now);
          const expected = profit(exact, market, currency, p, quote, now).toNumber();
          expect(positionView(market, book, p, now).profit, `${currency} ${p.symbol} ${p.side} ${p.volume}`).to.equal(expected);
        }
      }
    }
  });

  it('a profit of exactly half a cent, either way, rounds away from zero as the decimals do', () => {
    const market = marketAt('views-half');
    market.feed.pin('EURUSD', WEDNESDAY_10, 1.08505, 1.08515);
    const quote = market.quoteAt('EURUSD', WEDNESDAY_10);
    // 0.01 lot of EURUSD: 1,000 USD per unit of price, so every 0.000005 is half a cent. Odd multiples of it
    // away from the bid (a buy's close) or the ask (a sell's) are profits of exactly a half cent more.
    const odd = Array.from({ length: 200 }, (_, i) => 2 * i + 1);
    const cases = odd.flatMap((k) => [
      position(`b+${k}`, 'EURUSD', 'buy', 0.01, Number((1.08505 - k * 0.000005).toFixed(6))),
      position(`b-${k}`, 'EURUSD', 'buy', 0.01, Number((1.08505 + k * 0.000005).toFixed(6))),
      position(`s+${k}`, 'EURUSD', 'sell', 0.01, Number((1.08515 + k * 0.000005).toFixed(6))),
      position(`s-${k}`, 'EURUSD', 'sell', 0.01, Number((1.08515 - k * 0.000005).toFixed(6))),
    ]);
    const answers = cases.map((p) => profitNow(market, 'USD', p, quote, WEDNESDAY_10));
    const decimals = cases.map((p) => profit(exact, market, 'USD', p, quote, WEDNESDAY_10).toNumber());
    expect(answers).to.deep.equal(decimals);
    // Half away from zero: k half cents are ±(k + 1) / 2 cents.
    expect(answers).to.deep.equal(odd.flatMap((k) => [(k + 1) / 200, -(k + 1) / 200, (k + 1) / 200, -(k + 1) / 200]));
    const book = bookOf('USD', 1000, cases.slice(0, 40));
    same(figures(information(market, book, WEDNESDAY_10)), decimalFigures(market, book, WEDNESDAY_10), 'the book of halves');
  });

  it('a margin level of exactly half a hundredth rounds as the decimals do', () => {
    const market = marketAt('views-level');
    market.feed.pin('EURUSD', WEDNESDAY_10, 1, 1);
    // EURUSD at 1 on 1:1,000: 0.08 lot holds 8.00 USD of margin, 0.4 lot 40.00; bought at 0.99999, each lot
    // makes 1.00 USD. An equity of 0.01 on 8.00 is a level of 0.125 %, half a hundredth; 0.01 on 40.00 is
    // 0.025 %, 1.01 on 8.00 12.625 %, -0.01 on 8.00 -0.125 %.
    for (const [volume, equity] of [
      [0.08, 0.01],
      [0.4, 0.01],
      [0.08, 1.01],
      [0.08, -0.01],
      [0.08, 1],
    ] as const) {
      const book = bookOf('USD', Number((equity - volume).toFixed(2)), [position('m', 'EURUSD', 'buy', volume, 0.99999)], 1000);
      const info = information(market, book, WEDNESDAY_10);
      expect(info.equity, `${volume} lots`).to.equal(equity);
      same(figures(info), decimalFigures(market, book, WEDNESDAY_10), `${volume} lots, equity ${equity}`);
    }
  });
});
