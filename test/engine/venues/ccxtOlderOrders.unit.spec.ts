// The ccxt adapter's walk back past the exchanges' 7-day order lists (engine/venues/ccxt/history.ts
// OlderOrders), against the local fake in each dialect that lists closed orders by window: Bybit v5
// (/v5/order/history, 7 days a query), OKX v5 (orders-history 7 days, orders-history-archive 3 months)
// and Binance USDⓈ-M (allOrders and allAlgoOrders, 7 days a query within 90). The fake hides an order
// from every query whose window does not hold it, as the real APIs do. Nothing leaves 127.0.0.1.
import { expect } from 'chai';
import { MAX_WINDOWS } from '../../../engine/venues/ccxt/history.js';
import { ccxtSpecHarness } from '../../support/ccxtVenue.js';
import type { FakeDialect } from '../../support/fakeExchange.js';

const DAY = 86_400_000;

interface Case {
  readonly dialect: FakeDialect;
  readonly btc: string;
  readonly password: string;
  /** The request that reads a window back. */
  readonly windowRead: string;
  /** How many of those one poll makes without walking (the recent listing's own). */
  readonly recentReads: number;
}

const CASES: readonly Case[] = [
  { dialect: 'bybit', btc: 'BTCUSDT', password: 'secret-1', windowRead: 'GET /v5/order/history', recentReads: 1 },
  { dialect: 'okx', btc: 'BTC-USDT', password: 'secret-1:pass-1', windowRead: 'GET /api/v5/trade/orders-history-archive', recentReads: 0 },
  { dialect: 'binanceusdm', btc: 'BTCUSDT', password: 'secret-1', windowRead: 'GET /fapi/v1/allOrders', recentReads: 1 },
];

for (const c of CASES) {
  describe(`ccxt venue: orders older than ${c.dialect}'s 7-day list`, () => {
    const spec = ccxtSpecHarness({ dialect: c.dialect, settings: { CCXT_STREAM: 'off' } });
    const { connect } = spec;
    const windowReads = () => spec.fake.requests.filter((r) => r === c.windowRead).length;

    it('reads back one window at a time while part of a position is unexplained: opened 10 days ago, partly closed 9 days ago', async () => {
      const first = await connect();
      await first.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.02 }, 'walk-open');
      const [position] = (await first.positions()).filter((p) => p.kind === 'position');
      spec.fake.age(DAY);
      await first.closePosition(position!.id, 0.01, 'walk-close');
      await first.disconnect();
      spec.fake.age(9 * DAY);
      const before = windowReads();

      // A restart: nobody tells the connection what it held; only the walk explains the 0.01 still held.
      const later = await connect();
      later.follow([c.btc]);
      const open = (await later.positions()).filter((p) => p.kind === 'position');
      expect(open.map((p) => ({ id: p.id, volume: p.volume, openTime: p.openTime }))).to.deep.equal([
        { id: position!.id, volume: 0.01, openTime: new Date(Date.parse(position!.openTime) - 10 * DAY).toISOString() },
      ]);
      const trades = (await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z')).filter((h) => h.kind === 'trade');
      expect(trades.map((t) => ({ positionId: t.positionId, volume: t.volume }))).to.deep.equal([{ positionId: position!.id, volume: 0.01 }]);
      expect(Date.parse(trades[0]!.closeTime)).to.be.below(Date.now() - 8 * DAY);
      // The second window back (7 to 14 days) explained it: no further walk, and no walk at the next poll.
      const walked = windowReads();
      expect(walked - before).to.be.at.most(1 + 3 * c.recentReads);
      await later.refresh();
      expect(windowReads() - walked).to.equal(c.recentReads);
    });

    it('stops after 13 windows (91 days) when the exchange keeps nothing that old, keeps the known id, and rests instead of walking every poll', async () => {
      const first = await connect();
      await first.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, 'walk-ancient');
      const [position] = (await first.positions()).filter((p) => p.kind === 'position');
      await first.disconnect();
      spec.fake.age(100 * DAY);
      const before = windowReads();

      const later = await connect();
      const known = { id: position!.id, symbol: c.btc, side: 'buy' as const, volume: 0.01, openPrice: position!.openPrice, openTime: position!.openTime };
      later.follow([c.btc], [known]);
      const open = (await later.positions()).filter((p) => p.kind === 'position');
      expect(open.map((p) => ({ id: p.id, volume: p.volume }))).to.deep.equal([{ id: position!.id, volume: 0.01 }]);
      const walked = windowReads() - before;
      // The recent window and 12 back: 91 days.
      if (c.dialect === 'okx') expect(walked).to.equal(MAX_WINDOWS - 1);
      else
        expect(walked)
          .to.be.at.least(MAX_WINDOWS - 1)
          .and.at.most(MAX_WINDOWS - 1 + 3 * c.recentReads);
      const rested = windowReads();
      await later.refresh();
      expect(windowReads() - rested).to.equal(c.recentReads);
      expect(await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z')).to.deep.equal([]);
    });
  });
}

describe('ccxt venue: Binance USDⓈ-M windows holding more than the 1,000 orders an answer lists', () => {
  const spec = ccxtSpecHarness({ dialect: 'binanceusdm', settings: { CCXT_STREAM: 'off' } });
  const { connect } = spec;
  const MINUTE = 60_000;
  const FILLERS = 1_100;

  /** The account's position ids after a restart that knows nothing (the symbol followed as reconciliation does). */
  const idsAfterRestart = async (): Promise<string[]> => {
    const later = await connect();
    later.follow(['BTCUSDT']);
    return (await later.positions()).filter((p) => p.kind === 'position').map((p) => p.id);
  };

  /** 1,100 limit orders placed and taken back, one a minute, in the 18 hours before `time` (ms): more than a window answer lists. */
  const takenBackBefore = (time: number): void => {
    for (let i = 0; i < FILLERS; i++) {
      const at = time - (FILLERS - i) * MINUTE;
      spec.fake.orders.push({
        orderId: 9_000_000 + i,
        apiKey: 'key-1',
        symbol: 'BTCUSDT',
        clientOrderId: `taken-back-${i}`,
        side: 'BUY',
        type: 'LIMIT',
        origQty: 0.01,
        price: 50000,
        triggerPrice: null,
        stopLoss: null,
        takeProfit: null,
        stopOrderType: '',
        executedQty: 0,
        cummulativeQuoteQty: 0,
        fee: 0,
        status: 'CANCELED',
        time: at,
        updateTime: at,
        reduceOnly: false,
      });
    }
  };

  it('reads the last 7 days again by windows when the list answers 1,000: a position opened after 1,100 orders keeps its id', async () => {
    const first = await connect();
    const placed = await first.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'many-recent');
    takenBackBefore(spec.fake.orders.at(-1)!.time);
    await first.disconnect();
    expect(await idsAfterRestart()).to.deep.equal([placed.orderId]);
  });

  it('reads a window back again in halves when it answers 1,000: a position opened 10 days ago after 1,100 orders keeps its id', async () => {
    const first = await connect();
    const placed = await first.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'many-older');
    takenBackBefore(spec.fake.orders.at(-1)!.time);
    await first.disconnect();
    spec.fake.age(10 * DAY);
    expect(await idsAfterRestart()).to.deep.equal([placed.orderId]);
  });

  it("finds a stop order's algo order a week back among 1,100 others: the position it opened keeps the stop order's id", async () => {
    const first = await connect();
    const stop = await first.placeOrder({ symbol: 'BTCUSDT', orderType: 'buyStop', volume: 0.01, openPrice: 66000 }, 'many-algos');
    const algo = spec.fake.algoOrders.at(-1)!;
    for (let i = 0; i < FILLERS; i++) {
      const at = algo.createTime - (FILLERS - i) * MINUTE;
      spec.fake.algoOrders.push({ ...algo, algoId: 800_000 + i, clientAlgoId: `taken-back-${i}`, algoStatus: 'CANCELED', createTime: at, updateTime: at });
    }
    spec.fake.age(8 * DAY);
    // It triggers now: its market order is listed, the algo order that placed it a week back among the others.
    spec.fake.setPrice('BTCUSDT', 66000, 66000.1);
    await first.refresh();
    await first.disconnect();
    expect(await idsAfterRestart()).to.deep.equal([stop.orderId]);
  });
});
