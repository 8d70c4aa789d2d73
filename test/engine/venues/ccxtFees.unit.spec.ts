// Fees in the ccxt adapter's replayed book (engine/venues/ccxt/book.ts) and ccxt orders' fees in the
// account's currency (engine/venues/ccxt/orders.ts feeOf): a position's commission is its opening fills'
// fees, a closed trade takes its share of them plus its closing fill's share of that order's fee; Binance's
// fees from its trade lists and streamed fills (engine/venues/ccxt/fees.ts), against a stub client.
import { expect } from 'chai';
import type { Exchange, MarketInterface as Market, Order, Trade } from 'ccxt';
import { type ExchangeOrder, replayOrders } from '../../../engine/venues/ccxt/book.js';
import { TradeFees } from '../../../engine/venues/ccxt/fees.js';
import { exchangeOrderOf, feeOf } from '../../../engine/venues/ccxt/orders.js';

const pricing = { quote: () => undefined, contractSize: () => 1, spot: () => false };

let at = 1_000;
const fill = (id: string, side: 'buy' | 'sell', filled: number, average: number, fee: number): ExchangeOrder => ({
  id,
  clientOrderId: null,
  symbol: 'BTCUSDT',
  side,
  type: 'market',
  status: 'closed',
  amount: filled,
  filled,
  average,
  price: null,
  timestamp: at,
  lastTradeTimestamp: at++,
  stopLoss: null,
  takeProfit: null,
  triggerPrice: null,
  closeReason: 'manual',
  fee,
});

describe('ccxt fees in the replayed book', () => {
  it('charges the opening fees to the position and shares them, with the closing fee, among the trades that close it', () => {
    const book = replayOrders(
      [
        fill('a', 'buy', 2, 100, 0.2), // opens 2, fee 0.2
        fill('b', 'buy', 2, 110, 0.4), // adds 2, fee 0.4: 4 open with 0.6 of fees
        fill('c', 'sell', 1, 120, 0.3), // closes 1: a quarter of 0.6 plus 0.3
        fill('d', 'sell', 5, 90, 1.0), // closes 3 (three fifths of 1.0), opens 2 short (two fifths)
      ],
      pricing,
    );
    expect(book.trades.map((t) => [t.id, t.volume, t.commission])).to.deep.equal([
      ['c', 1, -0.45],
      ['d', 3, -(0.45 + 0.6)],
    ]);
    expect(book.positions.map((p) => [p.id, p.orderType, p.volume, p.commission])).to.deep.equal([['d', 'sell', 2, -0.4]]);
  });

  it('leaves the commission at 0 where the orders tell no fee', () => {
    const book = replayOrders([fill('a', 'buy', 1, 100, 0), fill('b', 'sell', 1, 101, 0)], pricing);
    expect(book.trades[0]!.commission).to.equal(0);
  });

  it("counts a fee in the quote currency, one in the base coin at the average price, and not one in a third coin; only where the exchange's orders carry it", () => {
    const order = (fee: { cost: number; currency: string }) => ({ symbol: 'BTC/USDT:USDT', average: 50_000, filled: 1, fee }) as unknown as Order;
    expect(feeOf(order({ cost: 0.5, currency: 'USDT' }))).to.equal(0.5);
    expect(feeOf(order({ cost: 0.00001, currency: 'BTC' }))).to.equal(0.5);
    expect(feeOf(order({ cost: 0.01, currency: 'BNB' }))).to.equal(0);
    expect(exchangeOrderOf(order({ cost: 0.5, currency: 'USDT' }), 'BTCUSDT', true).fee).to.equal(0.5);
    expect(exchangeOrderOf(order({ cost: 0.5, currency: 'USDT' }), 'BTCUSDT').fee).to.equal(0);
    // OKX spot: a buy's fee taken from the coins it bought is told as those coins too (baseFee); none in another coin.
    expect(exchangeOrderOf(order({ cost: 0.00001, currency: 'BTC' }), 'BTCUSDT', true)).to.include({ fee: 0.5, baseFee: 0.00001 });
    expect(exchangeOrderOf(order({ cost: 0.5, currency: 'USDT' }), 'BTCUSDT', true)).to.not.have.property('baseFee');
    expect(exchangeOrderOf(order({ cost: 0.00001, currency: 'BTC' }), 'BTCUSDT')).to.not.have.property('baseFee');
  });
});

describe("ccxt fees from Binance's trade lists (TradeFees)", () => {
  const NOW = 100 * 86_400_000;
  const DAY = 86_400_000;
  const market = { symbol: 'BTC/USDT:USDT', id: 'BTCUSDT', base: 'BTC', quote: 'USDT' } as unknown as Market;
  const trade = (id: number, order: string, amount: number, cost: number, currency = 'USDT', timestamp = NOW - DAY) =>
    ({ id: String(id), order, amount, price: 50_000, fee: { cost, currency }, timestamp }) as unknown as Trade;
  /** A stub ccxt client whose trade list answers from `listed` by fromId or by window (and keeps the asks). */
  const exchangeListing = (listed: Trade[]) => {
    const asked: Record<string, unknown>[] = [];
    const exchange = {
      milliseconds: () => NOW,
      fetchMyTrades: (_symbol: string, _since: unknown, _limit: unknown, params: Record<string, number>) => {
        asked.push(params);
        const inWindow = (t: Trade) => params.startTime === undefined || (t.timestamp! >= params.startTime && t.timestamp! <= params.endTime!);
        return Promise.resolve(listed.filter((t) => (params.fromId === undefined || Number(t.id) >= params.fromId) && inWindow(t)));
      },
    } as unknown as Exchange;
    return { exchange, asked };
  };
  const order = (over: Partial<ExchangeOrder>): ExchangeOrder => ({
    ...fill('7', 'buy', 2, 50_000, 0),
    timestamp: NOW - DAY,
    lastTradeTimestamp: NOW - DAY,
    ...over,
  });

  it('sums the fills the order counts, oldest first up to its filled amount, in the quote currency (base coins at the fill price, BNB not)', async () => {
    const { exchange } = exchangeListing([trade(1, '7', 1, 0.5), trade(2, '7', 0.5, 0.00001, 'BTC'), trade(3, '7', 0.5, 0.2, 'BNB'), trade(4, '7', 1, 9)]);
    const fees = new TradeFees('binanceusdm');
    const [listed] = await fees.withFees(exchange, [market], [order({ filled: 2 })], NOW);
    // Trade 4 came after the order was read (filled 2): it is not charged to it yet.
    expect(listed!.fee).to.equal(0.5 + 0.5);
  });

  it("USDⓈ-M: reads the last 7 days by window, then forward by trade id, and an older order's window back once", async () => {
    const { exchange, asked } = exchangeListing([trade(5, 'old', 1, 0.1, 'USDT', NOW - 20 * DAY), trade(10, '7', 1, 0.5), trade(11, '8', 1, 0.25)]);
    const fees = new TradeFees('binanceusdm');
    const recent = [order({ id: '7', filled: 1 }), order({ id: '8', filled: 1 })];
    expect((await fees.withFees(exchange, [market], recent, NOW)).map((o) => o.fee)).to.deep.equal([0.5, 0.25]);
    expect(asked).to.have.length(1);
    expect(Number(asked[0]!.endTime) - Number(asked[0]!.startTime)).to.be.at.most(7 * DAY);
    // The walk found an order 20 days old: its windows are read back once; the rest goes on by trade id.
    const withOld = [order({ id: 'old', filled: 1, timestamp: NOW - 20 * DAY }), ...recent];
    expect((await fees.withFees(exchange, [market], withOld, NOW)).map((o) => o.fee)).to.deep.equal([0.1, 0.5, 0.25]);
    await fees.withFees(exchange, [market], withOld, NOW);
    expect(asked.slice(1).map((p) => (p.fromId !== undefined ? `from ${p.fromId}` : 'window'))).to.deep.equal(['from 12', 'window', 'window', 'from 12']);
  });

  it('reads a window that answers 1,000 fills again in halves', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => trade(i + 1, `o${i}`, 1, 0.01, 'USDT', NOW - DAY + i * 1000));
    const { exchange } = exchangeListing([]);
    const capped = exchange as unknown as { fetchMyTrades: (...args: unknown[]) => Promise<Trade[]> };
    const listing = capped.fetchMyTrades.bind(exchange);
    capped.fetchMyTrades = async (...args: unknown[]) => {
      const params = args[3] as Record<string, number>;
      return many
        .filter((t) => t.timestamp! >= params.startTime! && t.timestamp! <= params.endTime!)
        .slice(0, 1000)
        .concat(await listing(...args));
    };
    const fees = new TradeFees('binanceusdm');
    const orders = many.map((t) => order({ id: String(t.order), filled: 1 }));
    const charged = await fees.withFees(exchange, [market], orders, NOW);
    expect(charged.filter((o) => o.fee === 0.01)).to.have.length(1500);
  });

  it("takes a streamed fill's commission from the stream, once, and reads the list where the stream missed earlier fills", async () => {
    const { exchange, asked } = exchangeListing([trade(1, '7', 1, 0.5), trade(2, '7', 1, 0.5)]);
    const event = (t: number) => ({ id: '7', info: { x: 'TRADE', t, l: '1', L: '50000', n: '0.5', N: 'USDT' }, trades: [] }) as unknown as Order;
    const fees = new TradeFees('binance');
    await fees.withFees(exchange, [market], [], NOW);
    const first = asked.length;
    // The stream saw the fill: no list read; the same event again counts once.
    expect((await fees.streamed(exchange, market, event(1), order({ filled: 1 }))).fee).to.equal(0.5);
    expect((await fees.streamed(exchange, market, event(1), order({ filled: 1 }))).fee).to.equal(0.5);
    expect(asked.length).to.equal(first);
    // A stream opened after the order's first fill tells its second: the list is read forward for the first.
    const other = new TradeFees('binance');
    expect((await other.streamed(exchange, market, event(2), order({ filled: 2 }))).fee).to.equal(1);
    expect(asked.slice(first).map((p) => p.fromId)).to.deep.equal([0]);
  });
});
