// Binance's fills in the ccxt adapter, against the fake exchange (Binance spot and USDⓈ-M), polled and
// streamed (engine/venues/ccxt/{fees,windows,book,stream}.ts):
//   - a spot buy pays its fee in the coin it bought (unless BNB pays): the position is what the account
//     holds, the coins' value at the fill price its commission, and it closes in full;
//   - a stream that missed an order's earlier fills reads the trade list once for them when it tells a
//     later one, so the position's commission holds every fill's fee;
//   - a window of 1,000 or more items in one millisecond is never passed over in silence: fills are read
//     on by trade id, orders that cannot be are told in the account's log.
// Nothing leaves 127.0.0.1.
import { expect } from 'chai';
import type { CcxtConnection } from '../../../engine/venues/ccxt/connection.js';
import { everyInWindow, WINDOW_CAP } from '../../../engine/venues/ccxt/windows.js';
import type { ClosedTrade, OpenPosition, VenueChange } from '../../../engine/venues/port.js';
import { ccxtSpecHarness, until } from '../../support/ccxtVenue.js';
import type { FakeDialect, FakeOrder } from '../../support/fakeExchange.js';

const ALL_TIME = ['2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z'] as const;

describe('everyInWindow: a millisecond that answers the cap', () => {
  const T = 1_700_000_000_000;
  /** 1,500 items in one millisecond, ids 1..1500; a window answers the first 1,000 by id. */
  const items = Array.from({ length: 1500 }, (_, i) => ({ id: i + 1, time: T }));
  const read = (from: number, to: number) => Promise.resolve(items.filter((x) => x.time >= from && x.time <= to).slice(0, WINDOW_CAP));
  const idOf = (x: { id: number }) => String(x.id);

  it('is read on by id where the list can: every item', async () => {
    const readOn = {
      from: (fromId: number) => Promise.resolve(items.filter((x) => x.id >= fromId).slice(0, WINDOW_CAP)),
      timeOf: (x: { time: number }) => x.time,
    };
    expect(await everyInWindow(read, idOf, T - 60_000, T + 60_000, { readOn })).to.have.length(1500);
  });

  it('is told where it cannot be, and is an error where nobody is told', async () => {
    const cut: [number, number][] = [];
    expect(await everyInWindow(read, idOf, T - 60_000, T + 60_000, { cut: (from, to) => cut.push([from, to]) })).to.have.length(1000);
    expect(cut).to.have.length(1);
    expect(cut[0]![0]).to.be.at.most(T);
    expect(cut[0]![1]).to.be.at.least(T);
    expect(cut[0]![1]).to.equal(cut[0]![0]);
    let error: unknown = null;
    await everyInWindow(read, idOf, T - 60_000, T + 60_000).catch((e: unknown) => (error = e));
    expect(String(error)).to.match(/more than 1000 items in the window .* some would be left out/);
  });
});

for (const dialect of ['binance', 'binanceusdm'] as const satisfies readonly FakeDialect[]) {
  const spot = dialect === 'binance';
  describe(`ccxt venue: ${dialect}'s fills against the fake`, function () {
    this.timeout(120_000);
    const spec = ccxtSpecHarness({ dialect, settings: { CCXT_STREAM: 'off' } });
    const { warnings } = spec;

    /** A connection following BTCUSDT, from a venue with `settings` over the harness's when given. */
    const connect = async (settings?: Record<string, string>): Promise<{ connection: CcxtConnection; changes: VenueChange[] }> => {
      if (settings) await spec.venueWith(settings);
      const connection = spec.connection();
      const changes: VenueChange[] = [];
      connection.subscribe((change) => changes.push(change));
      await connection.connect();
      connection.follow(['BTCUSDT']);
      return { connection, changes };
    };
    const positionsOf = async (connection: CcxtConnection) => (await connection.positions()).filter((p): p is OpenPosition => p.kind === 'position');
    const restingBuy = (quantity: number): FakeOrder => {
      const placed = spec.fake.place('key-1', {
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'LIMIT',
        quantity,
        price: 60_000,
        clientOrderId: `resting${spec.fake.orders.length}`,
      });
      if ('refusal' in placed) throw new Error(placed.message);
      return placed;
    };

    beforeEach(() => {
      spec.fake.feeRate = 0.001;
    });

    if (spot)
      it("holds a spot buy's coins less the fee taken from them, charges their value, and closes what is held", async () => {
        const { connection } = await connect();
        const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'base-fee-open');
        const buy = spec.fake.orders[0]!;
        expect(spec.fake.trades[0]!.commissionAsset, 'Binance took the fee in BTC').to.equal('BTC');
        expect(spec.fake.balance('key-1', 'BTC')).to.be.closeTo(0.00999, 1e-12);
        const [position] = await positionsOf(connection);
        expect({ id: position!.id, volume: position!.volume }).to.deep.equal({ id: placed.orderId, volume: 0.00999 });
        expect(position!.commission).to.be.closeTo(-buy.fee, 1e-6);
        const trade = await connection.closePosition(position!.id, undefined, 'base-fee-close');
        expect(trade.volume).to.equal(0.00999);
        expect(spec.fake.balance('key-1', 'BTC')).to.be.closeTo(0, 1e-12);
        expect(trade.commission).to.be.closeTo(-(buy.fee + spec.fake.orders[1]!.fee), 1e-6);
        expect(await positionsOf(connection)).to.deep.equal([]);
        await connection.disconnect();

        const { connection: later } = await connect();
        const history = (await later.history(...ALL_TIME)).filter((h): h is ClosedTrade => h.kind === 'trade');
        expect(history.map((t) => [t.id, t.volume, t.commission])).to.deep.equal([[trade.id, 0.00999, trade.commission]]);
        expect(await positionsOf(later)).to.deep.equal([]);
      });

    it("reads the trade list once when the stream tells a fill after missing the order's earlier one", async () => {
      const { connection, changes } = await connect({ CCXT_STREAM: 'on', CCXT_POLL_MS: '100', CCXT_STREAM_POLL_MS: '600000' });
      await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
      // The poll the stream's opening asked for is over after this one (polls run one at a time); the next is 10 minutes away.
      await connection.refresh();
      const order = restingBuy(0.02);
      await until('the order told', () => changes.some((ch) => ch.type === 'orderPlaced'));
      const tradeList = new RegExp(`^GET /${spot ? 'api/v3/myTrades' : 'fapi/v1/userTrades'}`);
      const before = spec.fake.requests.filter((r) => tradeList.test(r)).length;
      spec.fake.streams.lose = 1;
      spec.fake.fillPart(order, 0.01, 60_000);
      spec.fake.fillPart(order, 0.01, 60_000);
      await until('the fill told', () => changes.some((ch) => ch.type === 'positionOpened'));
      const opened = changes.find((ch): ch is Extract<VenueChange, { type: 'positionOpened' }> => ch.type === 'positionOpened')!;
      expect(spec.fake.trades.map((t) => t.orderId)).to.deep.equal([order.orderId, order.orderId]);
      expect(opened.position.commission, "both fills' fees").to.be.closeTo(-order.fee, 1e-6);
      expect(opened.position.volume).to.equal(spot ? 0.01998 : 0.02);
      expect(spec.fake.requests.filter((r) => tradeList.test(r)).length - before, 'the trade list read once').to.equal(1);
    });

    if (!spot) {
      it("reads on by trade id past 1,000 fills of one order in one millisecond: the position's commission holds them all", async () => {
        const { connection } = await connect();
        const order = restingBuy(1.1);
        for (let i = 0; i < 1100; i++) spec.fake.fillPart(order, 0.001, 60_000);
        const at = spec.fake.trades[0]!.time;
        for (const t of spec.fake.trades) t.time = at;
        await connection.disconnect();
        // A restart reads the fills by window first: the last 7 days, halved down to that millisecond.
        const { connection: later } = await connect();
        const [position] = await positionsOf(later);
        expect(position!.volume).to.equal(1.1);
        expect(position!.commission).to.be.closeTo(-order.fee, 1e-6);
        expect(order.fee).to.be.closeTo(1100 * 0.06, 1e-6);
      });

      it("tells the account's log of more than 1,000 orders in one millisecond, and still answers the book", async function () {
        this.timeout(300_000); // 2,000 window reads or more: over a minute on a loaded machine
        const { connection } = await connect();
        const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'crowded');
        const at = spec.fake.orders[0]!.time - 60_000;
        for (let i = 0; i < 1100; i++)
          spec.fake.orders.push({
            ...spec.fake.orders[0]!,
            orderId: 9_000_000 + i,
            clientOrderId: `crowd-${i}`,
            type: 'LIMIT',
            status: 'CANCELED',
            executedQty: 0,
            time: at,
            updateTime: at,
          });
        await connection.refresh();
        expect(warnings.filter((w) => /key-1: more than 1000 orders in the millisecond .* left out of the book/.test(w))).to.have.length.at.least(1);
        expect((await positionsOf(connection)).map((p) => p.id)).to.deep.equal([placed.orderId]);
      });

      it("tells the account's log of more than 1,000 conditional orders in one millisecond, and still answers the book", async function () {
        this.timeout(300_000); // 2,000 window reads or more: over a minute on a loaded machine
        const { connection } = await connect();
        const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'crowded-algos');
        const at = spec.fake.orders[0]!.time - 60_000;
        for (let i = 0; i < 1100; i++)
          spec.fake.algoOrders.push({
            algoId: 800_000 + i,
            apiKey: 'key-1',
            symbol: 'BTCUSDT',
            clientAlgoId: `crowd-algo-${i}`,
            side: 'SELL',
            orderType: 'STOP_MARKET',
            quantity: 0.01,
            closePosition: false,
            triggerPrice: 50_000,
            algoStatus: 'CANCELED',
            createTime: at,
            updateTime: at,
            actualOrderId: null,
            executedQty: 0,
            avgPrice: 0,
          });
        await connection.refresh();
        // allAlgoOrders' windows (stops.ts) are read as allOrders' are: told in the log, not a failed poll.
        expect(warnings.filter((w) => /key-1: more than 1000 orders in the millisecond .* left out of the book/.test(w))).to.have.length.at.least(1);
        expect(warnings.filter((w) => /poll/.test(w))).to.deep.equal([]);
        expect((await positionsOf(connection)).map((p) => p.id)).to.deep.equal([placed.orderId]);
      });
    }
  });
}
