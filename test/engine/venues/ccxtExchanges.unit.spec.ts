// The ccxt adapter against the local fake exchange in each dialect it is routed to besides Binance spot
// (ccxtVenue.unit.spec.ts): Bybit v5 linear, OKX v5 spot and Binance USDⓈ-M futures, each with its own
// signatures, JSON shapes, error codes and market precision (test/support/fakeExchange*.ts). Nothing
// leaves 127.0.0.1.
import { expect } from 'chai';
import type { CcxtConnection } from '../../../engine/venues/ccxt/connection.js';
import { exchangeClientOrderId } from '../../../engine/venues/ccxt/connection.js';
import { type VenueChange, VenueError } from '../../../engine/venues/port.js';
import { ccxtSpecHarness } from '../../support/ccxtVenue.js';
import type { FakeDialect } from '../../support/fakeExchange.js';
import { refusal } from '../../support/venueRefusal.js';

interface Case {
  readonly dialect: FakeDialect;
  /** The venue symbol of BTC (the exchange's market id). */
  readonly btc: string;
  /** The secret as the account stores it (OKX: secret:passphrase). */
  readonly password: string;
  readonly step: number;
  readonly minVolume: number;
  /** A volume off the step and one below the minimum. */
  readonly offStep: number;
  readonly tiny: number;
  /** Where the API lives at the exchange. */
  readonly prefix: RegExp;
  /** Can go short (derivatives). */
  readonly short: boolean;
}

const CASES: readonly Case[] = [
  // Bybit linear BTCUSDT: qtyStep 0.001, minOrderQty 0.001, minNotionalValue 5 (0.001 x 65,000 = 65: the quantity decides).
  {
    dialect: 'bybit',
    btc: 'BTCUSDT',
    password: 'secret-1',
    step: 0.001,
    minVolume: 0.001,
    offStep: 0.0015,
    tiny: 0.0005,
    prefix: /^(GET|POST) \/v5\//,
    short: true,
  },
  // OKX spot BTC-USDT: lotSz 1e-8, minSz 0.00001 (no minimum notional).
  {
    dialect: 'okx',
    btc: 'BTC-USDT',
    password: 'secret-1:pass-1',
    step: 1e-8,
    minVolume: 0.00001,
    offStep: 0.000012345,
    tiny: 0.000005,
    prefix: /^(GET|POST) \/api\/v5\//,
    short: false,
  },
  // Binance USDⓈ-M BTCUSDT: stepSize 0.001, minimum notional 100 USDT (0.002 x 65,000.1 = 130 is the first step above it).
  {
    dialect: 'binanceusdm',
    btc: 'BTCUSDT',
    password: 'secret-1',
    step: 0.001,
    minVolume: 0.002,
    offStep: 0.0125,
    tiny: 0.001,
    prefix: /^(GET|POST|DELETE) \/fapi\//,
    short: true,
  },
];

for (const c of CASES) {
  describe(`ccxt venue against a local fake ${c.dialect}`, () => {
    const spec = ccxtSpecHarness({ dialect: c.dialect });
    const { connect, infos, warnings } = spec;

    it('connects with good keys and refuses a wrong key or a wrong secret with [INVALID_CREDENTIALS], speaking only the exchange API', async () => {
      const connection = await connect();
      const info = await connection.accountInformation();
      expect(info).to.include({ currency: 'USDT', balance: 10_000, environment: 'DEMO', connected: true });
      expect(await refusal(connect('key-2'))).to.equal('[INVALID_CREDENTIALS]');
      expect(await refusal(connect('key-1', c.dialect === 'okx' ? 'wrong:pass-1' : 'wrong'))).to.equal('[INVALID_CREDENTIALS]');
      if (c.dialect === 'okx') expect(await refusal(connect('key-1', 'secret-1:wrong-passphrase'))).to.equal('[INVALID_CREDENTIALS]');
      expect(spec.fake.requests.filter((r) => !c.prefix.test(r))).to.deep.equal([]);
    });

    it("gives the exchange's precision and minimum as the symbol sizes, and refuses off-step and too small volumes before sending them", async () => {
      const connection = await connect();
      const btc = (await connection.symbols()).find((s) => s.symbol === c.btc)!;
      expect(btc.volumeStep).to.be.closeTo(c.step, 1e-15);
      expect(btc.minVolume).to.be.closeTo(c.minVolume, 1e-15);
      expect(await refusal(connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: c.tiny }, 'tiny'))).to.equal('[INVALID_VOLUME]');
      expect(await refusal(connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: c.offStep }, 'off-step'))).to.equal('[INVALID_VOLUME]');
      expect(spec.fake.orders).to.have.length(0);
    });

    it('places a market order that fills, reports the position, closes part and the rest, with a change for each and nothing placed twice', async () => {
      const connection = await connect();
      const changes: VenueChange[] = [];
      connection.subscribe((change) => changes.push(change));
      const id = '4b0c9a1e-8c55-5c1f-9a0e-2d1c3b4a5f60';
      const placed = await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, id);
      expect(placed).to.include({ status: 'filled', volume: 0.01 });
      expect(placed.status === 'filled' && placed.price).to.equal(spec.fake.markets.get(c.btc)!.ask);
      expect(spec.fake.orders[0]!.clientOrderId).to.equal(exchangeClientOrderId(id));
      expect(await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, id)).to.deep.equal(placed);
      expect(spec.fake.orders).to.have.length(1);
      expect(changes.map((change) => change.type)).to.deep.equal(['positionOpened']);
      const [position] = await connection.positions();
      expect(position).to.include({ kind: 'position', id: placed.orderId, symbol: c.btc, volume: 0.01, orderType: 'buy' });
      spec.fake.setPrice(c.btc, 66000, 66000.1);
      const trade = await connection.closePosition(placed.orderId, 0.004, 'close-part');
      expect(trade).to.include({ positionId: placed.orderId, volume: 0.004, closePrice: 66000 });
      await connection.closePosition(placed.orderId, undefined, 'close-rest');
      expect(changes.map((change) => change.type)).to.deep.equal(['positionOpened', 'positionPartiallyClosed', 'positionClosed']);
      expect(await connection.positions()).to.deep.equal([]);
      if (c.short) expect(spec.fake.position('key-1', c.btc)).to.equal(0);
      else expect(spec.fake.balance('key-1', 'BTC')).to.be.closeTo(0, 1e-12);
    });

    it('finds an order that reached the exchange before the answer timed out, and does not place it again (also after a restart)', async () => {
      await spec.timeoutVenue();
      const connection = await connect();
      const id = '9d1c7b0e-0d7e-5b9e-8c44-6a0f3e2b1c7d';
      const placed = await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, id);
      expect(placed.status).to.equal('filled');
      expect(spec.fake.orders).to.have.length(1);
      expect(warnings.some((w) => /looking the order up by its client id/.test(w))).to.equal(true);
      expect(infos.some((m) => /had reached the exchange/.test(m))).to.equal(true);
      const again = await connect();
      expect((await again.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, id)).orderId).to.equal(placed.orderId);
      expect(spec.fake.orders).to.have.length(1);
    });

    it('answers a rate limit as a failure to try again (not a refusal); the retry with the same client id places one order', async () => {
      const connection = await connect();
      spec.fake.rateLimitNextOrder = true;
      const id = '0f5e3c2a-1b4d-5e6f-8a9b-0c1d2e3f4a5b';
      const failure = await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, id).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).to.be.instanceOf(Error);
      expect(failure).not.to.be.instanceOf(VenueError);
      expect(spec.fake.orders).to.have.length(0);
      expect((await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, id)).status).to.equal('filled');
      expect(spec.fake.orders).to.have.length(1);
    });

    it('sees a close made at the exchange while away, and a limit order that filled', async () => {
      const connection = await connect();
      const placed = await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, 'a');
      await connection.disconnect();
      spec.fake.placeManually('key-1', c.btc, 'SELL', 0.01);
      const later = await connect();
      later.follow([c.btc]);
      expect(await later.positions()).to.deep.equal([]);
      const history = await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z');
      expect(history).to.have.length(1);
      expect(history[0]).to.include({ kind: 'trade', positionId: placed.orderId, volume: 0.01 });
      const changes: VenueChange[] = [];
      later.subscribe((change) => changes.push(change));
      const limit = await later.placeOrder({ symbol: c.btc, orderType: 'buyLimit', volume: 0.01, openPrice: 64000 }, 'limit-1');
      expect(limit.status).to.equal('placed');
      spec.fake.setPrice(c.btc, 63900, 63900.1);
      await later.refresh();
      expect(changes.map((change) => change.type)).to.deep.equal(['orderPlaced', 'orderFilled', 'positionOpened']);
    });

    it('reads every page of a long order history: 120 round trips made at the exchange are 120 trades', async () => {
      const connection = await connect();
      await connection.disconnect();
      for (let i = 0; i < 120; i++) {
        spec.fake.placeManually('key-1', c.btc, 'BUY', 0.01);
        spec.fake.placeManually('key-1', c.btc, 'SELL', 0.01);
      }
      const later = await connect();
      later.follow([c.btc]);
      expect(await later.positions()).to.deep.equal([]);
      const history = await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z');
      expect(history.filter((h) => h.kind === 'trade')).to.have.length(120);
      // Bybit pages 50 orders (5 pages for 240), OKX 100 (3 pages); Binance lists them in one call.
      const pages = spec.fake.requests.filter((r) => r === 'GET /v5/order/history' || r === 'GET /api/v5/trade/orders-history').length;
      if (c.dialect !== 'binanceusdm') expect(pages).to.be.at.least(c.dialect === 'bybit' ? 5 : 3);
    });

    it('keeps a 100-day-old open position open under its id after a reconnect, though the exchange no longer lists its opening order in any window', async () => {
      const connection = await connect();
      await connection.placeOrder({ symbol: c.btc, orderType: 'buy', volume: 0.01 }, 'old-1');
      const [position] = (await connection.positions()).filter((p) => p.kind === 'position');
      await connection.disconnect();
      spec.fake.age(100 * 86_400_000);
      const later = await connect();
      const known = { id: position!.id, symbol: c.btc, side: 'buy' as const, volume: 0.01, openPrice: position!.openPrice, openTime: position!.openTime };
      later.follow([c.btc], [known]);
      const open = (await later.positions()).filter((p) => p.kind === 'position');
      expect(open.map((p) => ({ id: p.id, volume: p.volume }))).to.deep.equal([{ id: position!.id, volume: 0.01 }]);
      expect(await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z')).to.deep.equal([]);
      const trade = await later.closePosition(position!.id, 0.01, 'close-old-1');
      expect(trade).to.include({ positionId: position!.id, volume: 0.01 });
    });

    if (c.short) {
      it("gives a position nobody knows one id across reconnects, though the exchange's update time of it moves", async () => {
        const first = await connect();
        await first.disconnect();
        // Opened by hand at the exchange 100 days ago: its opening order is no longer listed, not even windows back.
        spec.fake.placeManually('key-1', c.btc, 'BUY', 0.01);
        spec.fake.age(100 * 86_400_000);
        const seen = await connect();
        seen.follow([c.btc]);
        const [unknown] = (await seen.positions()).filter((p) => p.kind === 'position');
        expect(unknown).to.include({ symbol: c.btc, volume: 0.01, orderType: 'buy' });
        await seen.disconnect();
        // A funding payment or a margin change moves the position's update time (Binance's only time).
        spec.fake.touch('key-1', c.btc);
        const again = await connect();
        again.follow([c.btc]);
        const ids = (await again.positions()).filter((p) => p.kind === 'position').map((p) => p.id);
        expect(ids).to.deep.equal([unknown!.id]);
      });
    }
  });
}

describe('ccxt venue: stop loss, take profit, stop orders and pending changes', () => {
  const spec = ccxtSpecHarness({ server: 'demo' });
  /** A connection to a new fake exchange, or (`again`) another one to the same fake: a restart. */
  const connect = async (dialect: FakeDialect, again = false): Promise<CcxtConnection> => {
    if (!again) await spec.open(dialect);
    return spec.connect();
  };

  it("Bybit: places a position's stop loss and take profit, changes and removes them, and records the stop loss close with its reason", async () => {
    const connection = await connect('bybit');
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01, stopLoss: 60000, takeProfit: 70000 }, 'with-stops');
    expect(spec.fake.accounts.get('key-1')!.positions.get('BTCUSDT')).to.include({ stopLoss: 60000, takeProfit: 70000 });
    expect((await connection.positions())[0]).to.include({ id: placed.orderId, stopLoss: 60000, takeProfit: 70000 });
    const moved = await connection.modifyPosition(placed.orderId, { stopLoss: 61000, takeProfit: null });
    expect(moved).to.include({ stopLoss: 61000, takeProfit: null });
    expect(spec.fake.accounts.get('key-1')!.positions.get('BTCUSDT')).to.include({ stopLoss: 61000, takeProfit: null });
    expect(changes.map((change) => change.type)).to.deep.equal(['positionOpened', 'positionModified']);
    spec.fake.setPrice('BTCUSDT', 60900, 60900.1);
    await connection.refresh();
    const closed = changes.at(-1)!;
    expect(closed.type).to.equal('positionClosed');
    expect(closed.type === 'positionClosed' && closed.trade).to.include({ positionId: placed.orderId, reason: 'stopLoss', closePrice: 60900 });
  });

  it('Bybit: places a stop order, moves its trigger and a limit order price, and sees the stop fill', async () => {
    const connection = await connect('bybit');
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    const stop = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buyStop', volume: 0.01, openPrice: 66000 }, 'stop-1');
    expect(stop).to.include({ status: 'placed', openPrice: 66000, volume: 0.01 });
    const limit = await connection.placeOrder({ symbol: 'ETHUSDT', orderType: 'sellLimit', volume: 0.5, openPrice: 3300 }, 'limit-1');
    expect(limit.status).to.equal('placed');
    expect((await connection.positions()).map((p) => [p.kind, p.orderType, p.openPrice])).to.have.deep.members([
      ['order', 'buyStop', 66000],
      ['order', 'sellLimit', 3300],
    ]);
    expect(await connection.modifyPosition(stop.orderId, { openPrice: 67000 })).to.include({ openPrice: 67000, orderType: 'buyStop' });
    expect(await connection.modifyPosition(limit.orderId, { openPrice: 3350, volume: 0.4 })).to.include({ openPrice: 3350, volume: 0.4 });
    expect(spec.fake.orders.map((o) => [o.triggerPrice, o.price, o.origQty])).to.deep.equal([
      [67000, 0, 0.01],
      [null, 3350, 0.4],
    ]);
    spec.fake.setPrice('BTCUSDT', 66500, 66500.1);
    await connection.refresh();
    expect((await connection.positions()).filter((p) => p.kind === 'position')).to.deep.equal([]);
    spec.fake.setPrice('BTCUSDT', 67000, 67000.1);
    await connection.refresh();
    expect(changes.map((change) => change.type)).to.deep.equal([
      'orderPlaced',
      'orderPlaced',
      'orderModified',
      'orderModified',
      'orderFilled',
      'positionOpened',
    ]);
  });

  const openAlgos = () => spec.fake.algoOrders.filter((a) => a.algoStatus === 'NEW').map((a) => [a.orderType, a.side, a.triggerPrice, a.closePosition]);

  it("Binance USDⓈ-M: sets a position's stops as close-all algo orders once it filled, changes and removes them, records the stop loss close and cancels the take profit it left", async () => {
    const connection = await connect('binanceusdm');
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01, stopLoss: 60000, takeProfit: 70000 }, 'with-stops');
    expect(openAlgos()).to.have.deep.members([
      ['STOP_MARKET', 'SELL', 60000, true],
      ['TAKE_PROFIT_MARKET', 'SELL', 70000, true],
    ]);
    expect((await connection.positions())[0]).to.include({ id: placed.orderId, stopLoss: 60000, takeProfit: 70000 });
    expect(await connection.modifyPosition(placed.orderId, { stopLoss: 61000, takeProfit: null })).to.include({ stopLoss: 61000, takeProfit: null });
    expect(openAlgos()).to.deep.equal([['STOP_MARKET', 'SELL', 61000, true]]);
    // A take profit below the bid would fire at once: the exchange refuses it (-2021), the stop loss stays.
    expect(await refusal(connection.modifyPosition(placed.orderId, { takeProfit: 64000 }))).to.equal('[INVALID_STOPS]');
    expect(await connection.modifyPosition(placed.orderId, { takeProfit: 72000 })).to.include({ stopLoss: 61000, takeProfit: 72000 });
    // Opened, then its stops placed once it filled (nothing is attached to a Binance order), then moved twice.
    expect(changes.map((change) => change.type)).to.deep.equal(['positionOpened', 'positionModified', 'positionModified', 'positionModified']);
    spec.fake.setPrice('BTCUSDT', 60900, 60900.1);
    await connection.refresh();
    const closed = changes.at(-1)!;
    expect(closed.type).to.equal('positionClosed');
    expect(closed.type === 'positionClosed' && closed.trade).to.include({ positionId: placed.orderId, reason: 'stopLoss', closePrice: 60900, volume: 0.01 });
    expect(spec.fake.position('key-1', 'BTCUSDT')).to.equal(0);
    // The take profit Binance left open is cancelled: it would close the next position opened there.
    expect(openAlgos()).to.deep.equal([]);
    expect(spec.fake.algoOrders.map((a) => a.algoStatus)).to.have.members(['CANCELED', 'CANCELED', 'FINISHED', 'CANCELED']);
  });

  it('Binance USDⓈ-M: a replay after a stop between the opening fill and its stops places the missing stops, once', async () => {
    // The state a stop of the service leaves: the opening order filled under its client id, no stops placed.
    await spec.open('binanceusdm');
    const request = { symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01, stopLoss: 60000, takeProfit: 70000 } as const;
    spec.fake.place('key-1', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: 0.01, clientOrderId: exchangeClientOrderId('crashed') });
    const connection = await connect('binanceusdm', true);
    const replayed = await connection.placeOrder(request, 'crashed');
    expect(replayed).to.include({ status: 'filled', volume: 0.01 });
    expect(spec.fake.orders).to.have.length(1);
    const both = [
      ['STOP_MARKET', 'SELL', 60000, true],
      ['TAKE_PROFIT_MARKET', 'SELL', 70000, true],
    ];
    expect(openAlgos()).to.have.deep.members(both);
    expect((await connection.positions())[0]).to.include({ id: replayed.orderId, stopLoss: 60000, takeProfit: 70000 });
    // Another restart replays it again: nothing more is placed.
    const again = await connect('binanceusdm', true);
    expect((await again.placeOrder(request, 'crashed')).orderId).to.equal(replayed.orderId);
    expect(spec.fake.algoOrders).to.have.length(2);
    // One of the two placed before a stop: only the other is placed.
    spec.fake.algoOrders.find((a) => a.orderType === 'TAKE_PROFIT_MARKET')!.algoStatus = 'CANCELED';
    await (await connect('binanceusdm', true)).placeOrder(request, 'crashed');
    expect(openAlgos()).to.have.deep.members(both);
    expect(spec.fake.algoOrders).to.have.length(3);
  });

  it('Binance USDⓈ-M: two replays at once after a stop between the opening fill and its stops place each stop once', async () => {
    await spec.open('binanceusdm');
    const request = { symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01, stopLoss: 60000, takeProfit: 70000 } as const;
    spec.fake.place('key-1', { symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: 0.01, clientOrderId: exchangeClientOrderId('crashed') });
    const [first, second] = [await connect('binanceusdm', true), await connect('binanceusdm', true)];
    // Both read the open algo orders before either places: each places both stops, one of each is refused as a duplicate.
    const results = await Promise.all([first.placeOrder(request, 'crashed'), second.placeOrder(request, 'crashed')]);
    expect(results.map((r) => r.status)).to.deep.equal(['filled', 'filled']);
    expect(spec.fake.algoOrders.map((a) => [a.orderType, a.side, a.triggerPrice, a.closePosition])).to.have.deep.members([
      ['STOP_MARKET', 'SELL', 60000, true],
      ['TAKE_PROFIT_MARKET', 'SELL', 70000, true],
    ]);
  });

  it('Binance USDⓈ-M: places stop orders as STOP_MARKET algo orders, finds one placed before a restart, cancels one and sees the other fill under its id', async () => {
    const connection = await connect('binanceusdm');
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    const stop = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buyStop', volume: 0.01, openPrice: 66000 }, 'stop-1');
    expect(stop).to.include({ status: 'placed', openPrice: 66000, volume: 0.01 });
    const other = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'sellStop', volume: 0.01, openPrice: 64000 }, 'stop-2');
    expect(openAlgos()).to.deep.equal([
      ['STOP_MARKET', 'BUY', 66000, false],
      ['STOP_MARKET', 'SELL', 64000, false],
    ]);
    const restarted = await connect('binanceusdm', true);
    expect((await restarted.placeOrder({ symbol: 'BTCUSDT', orderType: 'buyStop', volume: 0.01, openPrice: 66000 }, 'stop-1')).orderId).to.equal(stop.orderId);
    expect(spec.fake.algoOrders).to.have.length(2);
    expect((await connection.positions()).map((p) => [p.kind, p.orderType, p.openPrice])).to.have.deep.members([
      ['order', 'buyStop', 66000],
      ['order', 'sellStop', 64000],
    ]);
    await connection.cancelOrder(other.orderId);
    const limit = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buyLimit', volume: 0.01, openPrice: 60000 }, 'limit-1');
    expect(await refusal(connection.modifyPosition(limit.orderId, { openPrice: 61000 }))).to.equal('[INVALID_REQUEST]');
    spec.fake.setPrice('BTCUSDT', 66000, 66000.1);
    await connection.refresh();
    const [position] = (await connection.positions()).filter((p) => p.kind === 'position');
    expect(position).to.include({ id: stop.orderId, orderType: 'buy', volume: 0.01, openPrice: 66000.1 });
    expect(changes.map((change) => change.type)).to.deep.equal([
      'orderPlaced',
      'orderPlaced',
      'orderCancelled',
      'orderPlaced',
      'orderFilled',
      'positionOpened',
    ]);
  });

  it("Binance USDⓈ-M: a stop order older than allAlgoOrders' 7 days stays pending and fills under its id", async () => {
    const connection = await connect('binanceusdm');
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    const stop = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buyStop', volume: 0.01, openPrice: 66000 }, 'old-stop');
    spec.fake.age(8 * 86_400_000);
    await connection.refresh();
    expect((await connection.positions()).map((p) => [p.kind, p.id])).to.deep.equal([['order', stop.orderId]]);
    // It triggers now: its market order is listed, the algo order that placed it only a week further back.
    spec.fake.setPrice('BTCUSDT', 66000, 66000.1);
    await connection.refresh();
    // A restart reads it again (the symbol followed as the service's reconciliation does).
    const restarted = await connect('binanceusdm', true);
    restarted.follow(['BTCUSDT']);
    for (const c of [connection, restarted]) {
      const [position] = (await c.positions()).filter((p) => p.kind === 'position');
      expect(position).to.include({ id: stop.orderId, orderType: 'buy', volume: 0.01, openPrice: 66000.1 });
    }
    expect(changes.map((change) => change.type)).to.deep.equal(['orderPlaced', 'orderFilled', 'positionOpened']);
    expect(spec.fake.requests.filter((r) => r === 'GET /fapi/v1/allAlgoOrders').length).to.be.greaterThan(2);
  });

  for (const dialect of ['okx'] as const) {
    it(`${dialect}: refuses stop loss and take profit with [INVALID_STOPS], stop orders and pending changes with [INVALID_REQUEST], placing nothing`, async () => {
      const connection = await connect(dialect);
      const symbol = dialect === 'okx' ? 'BTC-USDT' : 'BTCUSDT';
      expect(await refusal(connection.placeOrder({ symbol, orderType: 'buy', volume: 0.01, stopLoss: 60000 }, 'sl'))).to.equal('[INVALID_STOPS]');
      expect(await refusal(connection.placeOrder({ symbol, orderType: 'sellStop', volume: 0.01, openPrice: 60000 }, 'stop'))).to.equal('[INVALID_REQUEST]');
      expect(spec.fake.orders).to.have.length(0);
      const limit = await connection.placeOrder({ symbol, orderType: 'buyLimit', volume: 0.01, openPrice: 60000 }, 'limit');
      expect(await refusal(connection.modifyPosition(limit.orderId, { openPrice: 61000 }))).to.equal('[INVALID_REQUEST]');
      const placed = await connection.placeOrder({ symbol, orderType: 'buy', volume: 0.01 }, 'open');
      expect(await refusal(connection.modifyPosition(placed.orderId, { takeProfit: 70000 }))).to.equal('[INVALID_STOPS]');
      expect(spec.fake.orders.map((o) => o.price)).to.deep.equal([60000, 0]);
    });
  }
});
