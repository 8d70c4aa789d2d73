// Orders leaving the exchanges' 7-day lists (engine/venues/ccxt/history.ts OlderOrders), against the
// local fake in each dialect that lists closed orders by window (Bybit v5, OKX v5, Binance USDⓈ-M):
//   - the forward path: orders ageing out of the recent list while a connection runs are kept from the
//     listing that had them (no request), so a partial close made since an earlier walk stays a trade;
//   - a position the service knows open, closed more than 7 days ago while nobody listened, is read back
//     to its open time with its close: a trade under its id that reconciliation records as its close;
//   - a trade opened and closed out of the recent list that the service never knew is not read.
// The fake moves its orders into the past (age) as time would. Nothing leaves 127.0.0.1.
import { expect } from 'chai';
import type { CcxtConnection } from '../../../engine/venues/ccxt/connection.js';
import type { ClosedTrade, KnownPosition, OpenPosition } from '../../../engine/venues/port.js';
import { ccxtSpecHarness } from '../../support/ccxtVenue.js';
import type { FakeDialect } from '../../support/fakeExchange.js';

const DAY = 86_400_000;
const ALL_TIME = ['2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z'] as const;

/** `windowRead`: the request that reads a window back; `recentReads`: how many of those a poll makes of its own (the recent list's). */
const CASES: readonly { dialect: FakeDialect; btc: string; windowRead: string; recentReads: number }[] = [
  { dialect: 'bybit', btc: 'BTCUSDT', windowRead: 'GET /v5/order/history', recentReads: 1 },
  { dialect: 'okx', btc: 'BTC-USDT', windowRead: 'GET /api/v5/trade/orders-history-archive', recentReads: 0 },
  { dialect: 'binanceusdm', btc: 'BTCUSDT', windowRead: 'GET /fapi/v1/allOrders', recentReads: 1 },
];

for (const c of CASES) {
  describe(`ccxt venue: ${c.dialect}'s orders ageing out of its 7-day list`, () => {
    const spec = ccxtSpecHarness({ dialect: c.dialect, settings: { CCXT_STREAM: 'off' } });
    const { connect } = spec;

    const open = async (connection: CcxtConnection) =>
      (await connection.positions()).filter((p): p is OpenPosition => p.kind === 'position').map((p) => ({ id: p.id, volume: p.volume }));
    const trades = async (connection: CcxtConnection) =>
      (await connection.history(...ALL_TIME))
        .filter((h): h is ClosedTrade => h.kind === 'trade')
        .map((t) => ({ id: t.id, positionId: t.positionId, volume: t.volume }));
    const windowReads = () => spec.fake.requests.filter((r) => r.startsWith(c.windowRead)).length;

    it('keeps a partial close that ages out while the connection runs, after a walk back found the opening order', async () => {
      const connection = await connect();
      connection.follow([c.btc]);
      const placed = await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.02 }, 'aged-open');
      spec.fake.age(8 * DAY);
      // The opening order left the recent list: a walk back finds it, the position keeps its id.
      expect(await open(connection)).to.deep.equal([{ id: placed.orderId, volume: 0.02 }]);
      const close = await connection.closePosition(placed.orderId, 0.01, 'aged-close');
      expect(await trades(connection)).to.deep.equal([{ id: close.id, positionId: placed.orderId, volume: 0.01 }]);

      // The partial close ages out too, into the span the earlier walk already read: it is kept from the
      // listing that had it, and nothing is read back for it.
      spec.fake.age(8 * DAY);
      const before = windowReads();
      expect(await open(connection)).to.deep.equal([{ id: placed.orderId, volume: 0.01 }]);
      expect(await trades(connection)).to.deep.equal([{ id: close.id, positionId: placed.orderId, volume: 0.01 }]);
      expect(windowReads() - before, 'no window read back (two polls)').to.equal(2 * c.recentReads);
    });

    it('reads a known position closed 9 days ago back to its open time: its close is a trade under its id', async () => {
      const first = await connect();
      first.follow([c.btc]);
      const placed = await first.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, 'gone-open');
      const [position] = await first.positions();
      const close = await first.closePosition(placed.orderId, undefined, 'gone-close');
      await first.disconnect();
      spec.fake.age(9 * DAY);

      // A restart: reconciliation tells what the service knows open (its open time moved with the exchange's clock).
      const later = await connect();
      const known: KnownPosition = {
        id: placed.orderId,
        symbol: c.btc,
        side: 'buy',
        volume: 0.01,
        openPrice: placed.status === 'filled' ? placed.price : 0,
        openTime: new Date(Date.parse(position!.openTime) - 9 * DAY).toISOString(),
      };
      later.follow([c.btc], [known]);
      expect(await open(later)).to.deep.equal([]);
      expect(await trades(later)).to.deep.equal([{ id: close.id, positionId: placed.orderId, volume: 0.01 }]);
      // Read once: the next poll reads nothing back.
      const walked = windowReads();
      await later.refresh();
      await later.refresh();
      expect(await trades(later)).to.have.length(1);
      expect(windowReads() - walked, 'no window read back (three polls)').to.equal(3 * c.recentReads);
    });

    it('keeps a limit order placed 9 days ago that still rests in the book, under its id', async () => {
      const first = await connect();
      first.follow([c.btc]);
      const placed = await first.placeOrder({ symbol: c.btc, orderType: 'buyLimit', volume: 0.01, openPrice: 64000 }, 'resting-long');
      await first.disconnect();
      spec.fake.age(9 * DAY);
      const later = await connect();
      later.follow([c.btc]);
      expect((await later.positions()).map((p) => [p.kind, p.id])).to.deep.equal([['order', placed.orderId]]);
    });

    it('reads a known pending order back to its placing: filled and closed 9 days ago while away, it is a trade under its id, not a cancel', async () => {
      const first = await connect();
      first.follow([c.btc]);
      const placed = await first.placeOrder({ symbol: c.btc, orderType: 'buyLimit', volume: 0.01, openPrice: 64000 }, 'resting-open');
      expect(placed.status).to.equal('placed');
      const [pending] = await first.positions();
      await first.disconnect();
      // While away: the price reaches the limit, the position is closed by hand, and 9 days pass.
      spec.fake.setPrice(c.btc, 63900, 63900.1);
      spec.fake.placeManually('key-1', c.btc, 'SELL', 0.01);
      spec.fake.age(9 * DAY);

      const later = await connect();
      later.follow([c.btc], [], [{ id: placed.orderId, symbol: c.btc, openTime: new Date(Date.parse(pending!.openTime) - 9 * DAY).toISOString() }]);
      expect(await open(later)).to.deep.equal([]);
      expect((await trades(later)).map((t) => [t.positionId, t.volume])).to.deep.equal([[placed.orderId, 0.01]]);
    });

    it('does not read back a trade opened and closed 9 days ago that the service never knew, nothing being held', async () => {
      const first = await connect();
      first.follow([c.btc]);
      const placed = await first.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, 'unknown-open');
      await first.closePosition(placed.orderId, undefined, 'unknown-close');
      await first.disconnect();
      spec.fake.age(9 * DAY);
      const before = windowReads();

      const later = await connect();
      later.follow([c.btc]);
      expect(await open(later)).to.deep.equal([]);
      expect(await trades(later)).to.deep.equal([]);
      expect(windowReads() - before, 'no window read back (two polls)').to.equal(2 * c.recentReads);
    });
  });
}
