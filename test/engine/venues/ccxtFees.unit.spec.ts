// Fees in the ccxt adapter's replayed book (engine/venues/ccxt/book.ts) and ccxt orders' fees in the
// account's currency (engine/venues/ccxt/orders.ts feeOf): a position's commission is its opening fills'
// fees, a closed trade takes its share of them plus its closing fill's share of that order's fee.
import { expect } from 'chai';
import type { Order } from 'ccxt';
import { type ExchangeOrder, replayOrders } from '../../../engine/venues/ccxt/book.js';
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
  });
});
