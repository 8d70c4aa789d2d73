// The ccxt adapter against the local fake Binance (test/support/fakeExchange.ts): nothing leaves 127.0.0.1.
import { expect } from 'chai';
import { exchangeClientOrderId } from '../../../engine/venues/ccxt/connection.js';
import { type VenueChange, VenueError } from '../../../engine/venues/port.js';
import { ccxtSpecHarness, until } from '../../support/ccxtVenue.js';
import { refusal } from '../../support/venueRefusal.js';

describe('ccxt venue against a local fake Binance', () => {
  const spec = ccxtSpecHarness({ dialect: 'binance' });
  const { connect, infos, warnings } = spec;

  it('connects with good keys, says DEMO for a sandbox login, and refuses a wrong key, a wrong secret or an unknown loginServer with [INVALID_CREDENTIALS]', async () => {
    const connection = await connect();
    const info = await connection.accountInformation();
    expect(info).to.include({ currency: 'USDT', balance: 10_000, environment: 'DEMO', connected: true });
    expect(await refusal(connect('key-2', 'secret-1'))).to.equal('[INVALID_CREDENTIALS]');
    expect(await refusal(connect('key-1', 'wrong'))).to.equal('[INVALID_CREDENTIALS]');
    expect(await refusal(connect('key-1', 'secret-1', 'mainnet-please'))).to.equal('[INVALID_CREDENTIALS]');
    expect(spec.fake.requests.every((r) => r.startsWith('GET /api/v3/') || r.startsWith('POST /api/v3/'))).to.equal(true);
  });

  it('gives the exchange precision and minimum notional as the symbol sizes', async () => {
    const connection = await connect();
    const btc = (await connection.symbols()).find((s) => s.symbol === 'BTCUSDT')!;
    expect(btc).to.include({ volumeStep: 0.00001, point: 0.01, digits: 2, contractSize: 1 });
    // 5 USDT at 65,000.01 is 0.0000769..., rounded up to the step.
    expect(btc.minVolume).to.equal(0.00008);
    expect(await refusal(connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.00005 }, 'tiny'))).to.equal('[INVALID_VOLUME]');
    expect(await refusal(connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.000015 }, 'off-step'))).to.equal('[INVALID_VOLUME]');
    expect(spec.fake.orders).to.have.length(0);
  });

  it('opens, reports and closes a position, with changes for each, and places nothing twice for one client id', async () => {
    const connection = await connect();
    const changes: VenueChange[] = [];
    connection.subscribe((c) => changes.push(c));
    const id = '4b0c9a1e-8c55-5c1f-9a0e-2d1c3b4a5f60';
    const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, id);
    expect(placed).to.include({ status: 'filled', volume: 0.01, price: 65000.01 });
    expect(spec.fake.orders[0]!.clientOrderId).to.equal(exchangeClientOrderId(id));
    expect(await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, id)).to.deep.equal(placed);
    expect(spec.fake.orders).to.have.length(1);
    expect(changes.map((c) => c.type)).to.deep.equal(['positionOpened']);
    const [position] = await connection.positions();
    expect(position).to.include({ kind: 'position', id: placed.orderId, symbol: 'BTCUSDT', volume: 0.01, orderType: 'buy' });
    spec.fake.setPrice('BTCUSDT', 66000, 66000.01);
    const trade = await connection.closePosition(placed.orderId, 0.004, 'close-part');
    expect(trade).to.include({ positionId: placed.orderId, volume: 0.004, closePrice: 66000 });
    expect(trade.profit).to.be.closeTo(3.99996, 1e-6);
    await connection.closePosition(placed.orderId, undefined, 'close-rest');
    expect(changes.map((c) => c.type)).to.deep.equal(['positionOpened', 'positionPartiallyClosed', 'positionClosed']);
    expect(await connection.positions()).to.deep.equal([]);
  });

  it('finds an order that reached the exchange before the answer timed out, and does not place it again', async () => {
    await spec.timeoutVenue();
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, '9d1c7b0e-0d7e-5b9e-8c44-6a0f3e2b1c7d');
    expect(placed.status).to.equal('filled');
    expect(spec.fake.orders).to.have.length(1);
    expect(warnings.some((w) => /looking the order up by its client id/.test(w))).to.equal(true);
    expect(infos.some((m) => /had reached the exchange/.test(m))).to.equal(true);
    // A restart of the service replays the copy: a new connection finds the order by its client id.
    const again = await connect();
    expect((await again.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, '9d1c7b0e-0d7e-5b9e-8c44-6a0f3e2b1c7d')).orderId).to.equal(
      placed.orderId,
    );
    expect(spec.fake.orders).to.have.length(1);
  });

  it('answers a 429 as a failure to try again (not a refusal), and the retry with the same client id places one order', async () => {
    const connection = await connect();
    spec.fake.rateLimitNextOrder = true;
    const id = '0f5e3c2a-1b4d-5e6f-8a9b-0c1d2e3f4a5b';
    const failure = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, id).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(Error);
    expect(failure).not.to.be.instanceOf(VenueError);
    expect(spec.fake.orders).to.have.length(0);
    const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, id);
    expect(placed.status).to.equal('filled');
    expect(spec.fake.orders).to.have.length(1);
  });

  it('says it is disconnected while the exchange does not answer, backs off, and tells what it missed once it answers again', async () => {
    // The poll keeps its pace while the order stream is live: this is about the poll.
    await spec.venueWith({ CCXT_POLL_MS: '100', CCXT_STREAM_POLL_MS: '100' });
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'before-outage');
    const changes: VenueChange[] = [];
    connection.subscribe((c) => changes.push(c));
    spec.fake.down = true;
    spec.fake.placeManually('key-1', 'BTCUSDT', 'SELL', 0.01);
    expect(connection.statusMessage).to.match(/^connected; order stream (live|connecting)$/);
    await until('disconnected', () => !connection.isConnected());
    expect(connection.statusMessage).to.match(/^disconnected: \d+ polls of the exchange failed in a row \(.+\); trying again with backoff; order stream .+$/);
    expect(await refusal(connection.accountInformation())).to.equal('[NOT_CONNECTED]');
    expect(warnings.some((w) => /polls failed in a row/.test(w))).to.equal(true);
    spec.fake.down = false;
    await until('connected again', () => connection.isConnected());
    expect(connection.statusMessage).to.match(/^connected; order stream (live|connecting)$/);
    await until('the missed close told', () => changes.length > 0);
    expect(changes.map((c) => c.type)).to.deep.equal(['positionClosed']);
    expect(changes[0]).to.deep.include({ trade: { ...(changes[0] as { trade: object }).trade, positionId: placed.orderId } });
    expect(infos.some((m) => /answers again after \d+ failed polls/.test(m))).to.equal(true);
  });

  it('sees what happened at the exchange meanwhile: a position closed by hand, a limit order that filled', async () => {
    const connection = await connect();
    const placed = await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'a');
    await connection.disconnect();
    spec.fake.placeManually('key-1', 'BTCUSDT', 'SELL', 0.01);
    const later = await connect();
    later.follow(['BTCUSDT']);
    expect(await later.positions()).to.deep.equal([]);
    const history = await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z');
    expect(history).to.have.length(1);
    expect(history[0]).to.include({ kind: 'trade', positionId: placed.orderId, volume: 0.01 });
    const changes: VenueChange[] = [];
    later.subscribe((c) => changes.push(c));
    const limit = await later.placeOrder({ symbol: 'ETHUSDT', orderType: 'buyLimit', volume: 0.5, openPrice: 3100 }, 'limit-1');
    expect(limit.status).to.equal('placed');
    spec.fake.setPrice('ETHUSDT', 3099, 3099.5);
    await later.refresh();
    expect(changes.map((c) => c.type)).to.deep.equal(['orderPlaced', 'orderFilled', 'positionOpened']);
  });

  it('reads every page of allOrders (1,000 a page), and from then on only from the oldest order not final', async () => {
    const connection = await connect();
    await connection.disconnect();
    // 1,100 round trips made at the exchange: 2,200 orders, three pages of 1,000; a limit order stays open in the middle.
    for (let i = 0; i < 1100; i++) {
      spec.fake.placeManually('key-1', 'BTCUSDT', 'BUY', 0.001);
      spec.fake.placeManually('key-1', 'BTCUSDT', 'SELL', 0.001);
      if (i === 600) spec.fake.place('key-1', { symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: 0.001, price: 60000, clientOrderId: 'resting' });
    }
    const later = await connect();
    later.follow(['BTCUSDT']);
    const pages = () => spec.fake.requests.filter((r) => r === 'GET /api/v3/allOrders').length;
    const before = pages();
    const [pending] = await later.positions();
    expect(pending).to.include({ kind: 'order', orderType: 'buyLimit', volume: 0.001 });
    expect(pages() - before).to.equal(3);
    const history = await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z');
    expect(history.filter((h) => h.kind === 'trade')).to.have.length(1100);
    // The next read starts at the resting order: 1,000 of the 1,000+ orders from it fit in one page and a second ends it.
    const resting = spec.fake.orders.find((o) => o.clientOrderId === 'resting')!;
    const fromThere = spec.fake.orders.filter((o) => o.orderId >= resting.orderId).length;
    const beforeRefresh = pages();
    await later.refresh();
    expect(pages() - beforeRefresh).to.equal(Math.floor(fromThere / 1000) + 1);
    // The limit order fills: seen, and the next read starts after the last order.
    spec.fake.setPrice('BTCUSDT', 59999, 59999.5);
    await later.refresh();
    expect((await later.positions()).filter((p) => p.kind === 'order')).to.deep.equal([]);
    const beforeQuiet = pages();
    await later.refresh();
    expect(pages() - beforeQuiet).to.equal(1);
    expect((await later.history('2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z')).filter((h) => h.kind === 'trade')).to.have.length(1100);
  });
});
