// The ccxt adapter's `okxswap` target (OKX's USDT-margined perpetual swaps through ccxt's okx class)
// against the local fake OKX (test/support/fakeExchangeOkx.ts): instruments with OKX's real contract
// values (BTC-USDT-SWAP ctVal 0.01 BTC, lotSz and minSz 0.01 contracts), cross margin, net positions
// from /api/v5/account/positions. Nothing leaves 127.0.0.1.
import { expect } from 'chai';
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import { okxOrders, UNTOLD_RETRY_MS } from '../../../engine/venues/ccxt/okx.js';
import { exchangeClientOrderId, exchangeOrderOf } from '../../../engine/venues/ccxt/orders.js';
import type { VenueChange } from '../../../engine/venues/port.js';
import { ccxtSpecHarness, until } from '../../support/ccxtVenue.js';
import { forgetOkxAlgo, okxAlgos } from '../../support/fakeExchangeOkxAlgo.js';
import { refusal } from '../../support/venueRefusal.js';

const BTC = 'BTC-USDT-SWAP';
const DAY = 86_400_000;
const closeOf = (changes: readonly VenueChange[]) => {
  const closed = changes.find((c) => c.type === 'positionClosed');
  return closed?.type === 'positionClosed' ? closed.trade : undefined;
};

describe('ccxt venue: OKX swaps (okxswap) against a local fake OKX', () => {
  const spec = ccxtSpecHarness({ dialect: 'okx', target: 'okxswap', server: 'demo' });
  const { connect } = spec;

  it('lists the swaps only, one lot a contract of ctVal coins, and refuses bad keys and off-step volumes before sending', async () => {
    const connection = await connect();
    const symbols = await connection.symbols();
    expect(symbols.map((s) => s.symbol)).to.have.members([BTC, 'ETH-USDT-SWAP']);
    expect(symbols.find((s) => s.symbol === BTC)).to.include({ contractSize: 0.01, volumeStep: 0.01, minVolume: 0.01, point: 0.1 });
    expect(symbols.find((s) => s.symbol === 'ETH-USDT-SWAP')).to.include({ contractSize: 0.1, volumeStep: 0.01, minVolume: 0.01 });
    expect(await connection.accountInformation()).to.include({ balance: 10_000, equity: 10_000, environment: 'DEMO' });
    expect(await refusal(connect('key-1', 'secret-1:wrong'))).to.equal('[INVALID_CREDENTIALS]');
    expect(await refusal(connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 0.015 }, 'off-step'))).to.equal('[INVALID_VOLUME]');
    expect(await refusal(connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 0.005 }, 'tiny'))).to.equal('[INVALID_VOLUME]');
    expect(spec.fake.orders).to.have.length(0);
    expect(connection.login).to.match(/^okxswap\//);
  });

  it('opens a cross-margin position in contracts, values it by ctVal, closes part and the rest with their profits, and goes short', async () => {
    const connection = await connect();
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    const placed = await connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 1.5 }, 'open-1');
    expect(placed).to.include({ status: 'filled', volume: 1.5, price: 65000.1 });
    expect(spec.fake.position('key-1', BTC)).to.equal(1.5);
    expect(spec.fake.requests.filter((r) => r === 'POST /api/v5/trade/order' || r === 'POST /api/v5/trade/batch-orders')).to.have.length(1);
    // 1.5 contracts of 0.01 BTC: 0.015 BTC worth about 975 USDT.
    expect(await connection.marginRequired(BTC, 'buy', 1.5)).to.equal(975);
    const [position] = await connection.positions();
    expect(position).to.include({ id: placed.orderId, symbol: BTC, orderType: 'buy', volume: 1.5, openPrice: 65000.1 });
    spec.fake.setPrice(BTC, 66000.1, 66000.2);
    await connection.quote(BTC);
    await connection.refresh();
    // (66,000.1 - 65,000.1) x 1.5 x 0.01 = 15 USDT floating; OKX's eq includes it, the balance does not.
    expect(await connection.accountInformation()).to.include({ balance: 10_000, equity: 10_015, unrealizedProfit: 15 });
    const part = await connection.closePosition(placed.orderId, 0.5, 'close-part');
    expect(part).to.include({ positionId: placed.orderId, volume: 0.5, closePrice: 66000.1, profit: 5 });
    const rest = await connection.closePosition(placed.orderId, undefined, 'close-rest');
    expect(rest).to.include({ volume: 1, profit: 10 });
    expect(spec.fake.balance('key-1', 'USDT')).to.be.closeTo(10_015, 1e-9);
    expect(spec.fake.position('key-1', BTC)).to.equal(0);
    const short = await connection.placeOrder({ symbol: BTC, orderType: 'sell', volume: 2 }, 'short-1');
    expect((await connection.positions()).map((p) => [p.id, p.orderType, p.volume])).to.deep.equal([[short.orderId, 'sell', 2]]);
    expect(spec.fake.position('key-1', BTC)).to.equal(-2);
    expect(changes.map((c) => c.type)).to.deep.equal(['positionOpened', 'positionPartiallyClosed', 'positionClosed', 'positionOpened']);
  });

  it('at a restart finds the open position under its id, and records a close made at the exchange while away once', async () => {
    const first = await connect();
    const placed = await first.placeOrder({ symbol: BTC, orderType: 'buy', volume: 3 }, 'open-2');
    await first.disconnect();
    const again = await connect();
    again.follow([BTC]);
    await again.refresh();
    expect((await again.positions()).map((p) => [p.id, p.volume])).to.deep.equal([[placed.orderId, 3]]);
    const changes: VenueChange[] = [];
    again.subscribe((change) => changes.push(change));
    spec.fake.placeManually('key-1', BTC, 'SELL', 3);
    await again.refresh();
    await again.refresh();
    expect(changes.map((c) => c.type)).to.deep.equal(['positionClosed']);
    expect(await again.positions()).to.deep.equal([]);
  });

  it('attaches stop loss and take profit (attachAlgoOrds), amends, removes and adds levels on the position, refuses a wrong-side level, and the stop loss closes it', async () => {
    const connection = await connect();
    const live = () =>
      okxAlgos(spec.fake)
        .filter((a) => a.state === 'live')
        .map((a) => [a.ordType, a.side, a.slTriggerPx, a.tpTriggerPx, a.sz]);
    const placed = await connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 2, stopLoss: 60000, takeProfit: 70000 }, 'with-stops');
    expect(live()).to.deep.equal([['oco', 'sell', 60000, 70000, 2]]);
    expect((await connection.positions())[0]).to.include({ id: placed.orderId, stopLoss: 60000, takeProfit: 70000 });
    expect(await connection.modifyPosition(placed.orderId, { stopLoss: 61000 })).to.include({ stopLoss: 61000, takeProfit: 70000 });
    expect(await connection.modifyPosition(placed.orderId, { takeProfit: null })).to.include({ stopLoss: 61000, takeProfit: null });
    expect(spec.fake.requests.filter((r) => r === 'POST /api/v5/trade/amend-algos')).to.have.length(2);
    expect(live()).to.deep.equal([['oco', 'sell', 61000, null, 2]]);
    // A level the algo order lacks: cancelled and placed again for the whole position (closeFraction 1).
    expect(await connection.modifyPosition(placed.orderId, { takeProfit: 72000 })).to.include({ stopLoss: 61000, takeProfit: 72000 });
    expect(live()).to.deep.equal([['oco', 'sell', 61000, 72000, null]]);
    expect(await refusal(connection.modifyPosition(placed.orderId, { stopLoss: 66000 }))).to.equal('[INVALID_STOPS]');
    expect(live()).to.deep.equal([['oco', 'sell', 61000, 72000, null]]);
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    spec.fake.setPrice(BTC, 60900, 60900.1);
    await connection.refresh();
    expect(changes.map((c) => c.type)).to.deep.equal(['positionClosed']);
    // Which leg fired is the algo order's (orders-algo-history actualSide), not the order's it placed.
    const [closed] = changes;
    expect(closed!.type === 'positionClosed' && closed!.trade).to.include({ positionId: placed.orderId, reason: 'stopLoss', closePrice: 60900, volume: 2 });
    expect(spec.fake.position('key-1', BTC)).to.equal(0);
    expect(live()).to.deep.equal([]);
  });

  it('records a close its take profit made with that reason when the stream tells the fill first (it polls the leg that fired)', async () => {
    const connection = await connect();
    await until('the order stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
    const placed = await connection.placeOrder({ symbol: BTC, orderType: 'sell', volume: 1, stopLoss: 67000, takeProfit: 64000 }, 'short-stops');
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    // No poll of ours: the stream tells the order the take profit placed (its algoId), and the connection polls for its leg.
    spec.fake.setPrice(BTC, 63900, 63900.1);
    await until('the close is told', () => changes.some((c) => c.type === 'positionClosed'));
    const closed = changes.find((c) => c.type === 'positionClosed')!;
    expect(closed.type === 'positionClosed' && closed.trade).to.include({ positionId: placed.orderId, reason: 'takeProfit', closePrice: 63900.1, volume: 1 });
    expect(spec.fake.requests).to.include('GET /api/v5/trade/orders-algo-history');
    await connection.refresh();
    expect(changes.map((c) => c.type)).to.deep.equal(['positionClosed']);
  });

  it('places a stop order as a trigger algo order once (its client id its algoClOrdId), amends it and a limit order, and the triggered one opens under its id', async () => {
    const connection = await connect();
    const stop = await connection.placeOrder({ symbol: BTC, orderType: 'buyStop', volume: 1, openPrice: 66000 }, 'stop-1');
    expect(stop).to.include({ status: 'placed', openPrice: 66000, volume: 1 });
    const triggers = () => okxAlgos(spec.fake).filter((a) => a.ordType === 'trigger' && a.state === 'live');
    expect(triggers().map((a) => [a.algoId, a.side, a.triggerPx, a.sz])).to.deep.equal([[stop.orderId, 'buy', 66000, 1]]);
    // A restart replaying the same copy finds it by its algoClOrdId and places nothing.
    await connection.disconnect();
    const again = await connect();
    again.follow([BTC]);
    expect(await again.placeOrder({ symbol: BTC, orderType: 'buyStop', volume: 1, openPrice: 66000 }, 'stop-1')).to.include({ orderId: stop.orderId });
    expect(spec.fake.requests.filter((r) => r === 'POST /api/v5/trade/order-algo')).to.have.length(1);
    expect((await again.positions()).map((p) => [p.id, p.orderType, p.volume, p.openPrice])).to.deep.equal([[stop.orderId, 'buyStop', 1, 66000]]);
    expect(await again.modifyPosition(stop.orderId, { openPrice: 66500, volume: 2 })).to.include({ orderType: 'buyStop', openPrice: 66500, volume: 2 });
    expect(spec.fake.requests).to.include('POST /api/v5/trade/amend-algos');
    const limit = await again.placeOrder({ symbol: BTC, orderType: 'sellLimit', volume: 1, openPrice: 70000 }, 'limit-1');
    expect(await again.modifyPosition(limit.orderId, { openPrice: 69000, volume: 1.5 })).to.include({ openPrice: 69000, volume: 1.5 });
    expect(spec.fake.requests).to.include('POST /api/v5/trade/amend-order');
    await again.cancelOrder(limit.orderId);
    const changes: VenueChange[] = [];
    again.subscribe((change) => changes.push(change));
    spec.fake.setPrice(BTC, 66600, 66600.1);
    await again.refresh();
    expect(triggers()).to.deep.equal([]);
    expect(spec.fake.position('key-1', BTC)).to.equal(2);
    expect((await again.positions()).map((p) => [p.id, p.kind, p.orderType, p.volume])).to.deep.equal([[stop.orderId, 'position', 'buy', 2]]);
    expect(changes.map((c) => c.type)).to.include('positionOpened');
  });

  it("records a close a stop order of ours made as manual (neither the position's stop loss or take profit nor a stop-out), under that order's client id", async () => {
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 1 }, 'long-1');
    const stop = await connection.placeOrder({ symbol: BTC, orderType: 'sellStop', volume: 1, openPrice: 64000 }, 'stop-close');
    // OKX's triggered order and its algo order carry the client id as algoClOrdId, which ccxt does not read as one.
    const clientId = exchangeClientOrderId('stop-close');
    expect((await connection.positions()).find((p) => p.id === stop.orderId)).to.include({ orderType: 'sellStop', clientOrderId: clientId });
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    spec.fake.setPrice(BTC, 63900, 63900.1);
    await connection.refresh();
    expect(spec.fake.position('key-1', BTC)).to.equal(0);
    expect(closeOf(changes)).to.include({
      id: stop.orderId,
      positionId: placed.orderId,
      reason: 'manual',
      clientOrderId: clientId,
      volume: 1,
      closePrice: 63900,
    });
    // A stop order's fill fires no leg: nothing asked of the TP/SL algo history.
    expect(spec.fake.requests).to.not.include('GET /api/v5/trade/orders-algo-history');
  });

  it("reads the leg of a stop loss placed over 3 months ago (orders-algo-history's window) by its id, and records its close as stopLoss", async () => {
    const connection = await connect();
    connection.follow([BTC]);
    const placed = await connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 1, stopLoss: 60000 }, 'old-stop');
    await connection.refresh();
    // Held for 100 days: the position's opening order and its stop loss are older than every list OKX keeps.
    spec.fake.age(100 * DAY);
    await connection.refresh();
    expect((await connection.positions()).map((p) => [p.id, p.stopLoss])).to.deep.equal([[placed.orderId, 60000]]);
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    spec.fake.setPrice(BTC, 59900, 59900.1);
    await connection.refresh();
    expect(closeOf(changes)).to.include({ positionId: placed.orderId, reason: 'stopLoss', volume: 1 });
    expect(spec.fake.requests).to.include('GET /api/v5/trade/order-algo');
  });

  it('records a close as manual while OKX tells its algo order nowhere (neither its history nor its details)', async () => {
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 1, takeProfit: 70000 }, 'untold');
    const [algo] = okxAlgos(spec.fake);
    forgetOkxAlgo(spec.fake, algo!.algoId);
    const changes: VenueChange[] = [];
    connection.subscribe((change) => changes.push(change));
    spec.fake.setPrice(BTC, 70100, 70100.1);
    await connection.refresh();
    // Nothing says which leg fired: manual, and not kept as such (the stub case below asks again).
    expect(closeOf(changes)).to.include({ positionId: placed.orderId, reason: 'manual', volume: 1 });
    expect(spec.fake.requests).to.include.members(['GET /api/v5/trade/orders-algo-history', 'GET /api/v5/trade/order-algo']);
  });

  it("gives a swap position nobody knows the id of its open time (OKX's cTime), the same after its update time moved", async () => {
    // Opened by hand 100 days ago: OKX lists its opening order in no window any more, not even the archive.
    spec.fake.placeManually('key-1', BTC, 'BUY', 2);
    spec.fake.age(100 * 86_400_000);
    const opened = spec.fake.accounts.get('key-1')!.positions.get(BTC)!.createdTime!;
    const seen = await connect();
    seen.follow([BTC]);
    expect((await seen.positions()).map((p) => [p.id, p.orderType, p.volume])).to.deep.equal([[`${BTC}-buy-${opened}`, 'buy', 2]]);
    await seen.disconnect();
    // A funding payment or a margin change moves uTime, not cTime.
    spec.fake.touch('key-1', BTC);
    const again = await connect();
    again.follow([BTC]);
    expect((await again.positions()).map((p) => p.id)).to.deep.equal([`${BTC}-buy-${opened}`]);
  });

  it('cancels the stops left on a market closed otherwise, so they cannot close a later position', async () => {
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: BTC, orderType: 'buy', volume: 1, stopLoss: 60000 }, 'left');
    expect(okxAlgos(spec.fake).filter((a) => a.state === 'live')).to.have.length(1);
    spec.fake.placeManually('key-1', BTC, 'SELL', 1);
    await connection.refresh();
    await connection.refresh();
    expect((await connection.positions()).map((p) => p.id)).to.not.include(placed.orderId);
    expect(okxAlgos(spec.fake).filter((a) => a.state === 'live')).to.deep.equal([]);
  });
});

describe("ccxt venue: OKX's fired legs (okx.ts okxOrders) against a stub client", () => {
  const market = { symbol: 'BTC/USDT', id: 'BTC-USDT', spot: true } as unknown as Market;
  const order = {
    id: '700001',
    symbol: 'BTC/USDT',
    side: 'sell',
    type: 'market',
    status: 'closed',
    amount: 1,
    filled: 1,
    average: 70_000,
    info: { algoId: '700001', algoClOrdId: '', source: '7' },
  } as unknown as Order;

  it('asks again for a leg no list told, at most once a minute, and keeps a leg once told', async () => {
    let now = 1_000_000;
    let leg = '';
    const asked: string[] = [];
    const exchange = {
      milliseconds: () => now,
      privateGetTradeOrdersAlgoHistory: async () => (asked.push('history'), { code: '0', data: leg ? [{ actualSide: leg }] : [] }),
      privateGetTradeOrderAlgo: async () => {
        asked.push('details');
        throw new Error('okx {"code":"1","data":[{"sCode":"51603","sMsg":"Order does not exist"}]}');
      },
    } as unknown as Exchange;
    const reason = async () => exchangeOrderOf((await okxOrders(exchange, market, [order]))[0]!, 'BTC-USDT').closeReason;
    expect(await reason()).to.equal('manual');
    expect(asked).to.deep.equal(['history', 'details']);
    leg = 'tp';
    now += UNTOLD_RETRY_MS - 1;
    expect(await reason()).to.equal('manual');
    expect(asked).to.have.length(2);
    now += 1;
    expect(await reason()).to.equal('takeProfit');
    expect(asked).to.deep.equal(['history', 'details', 'history']);
    now += 10 * UNTOLD_RETRY_MS;
    expect(await reason()).to.equal('takeProfit');
    expect(asked).to.have.length(3);
  });
});
