// The MetaTrader bridge's server against the fake terminal (test/support/fakeTerminal.ts), through the
// venue port: credentials, orders with their client order ids, no duplicate after a timeout, the
// connection state and what happened while the terminal was away.
import { expect } from 'chai';
import { MtBridgeServer, type Authentication } from '../../../engine/venues/mtBridge/server.js';
import { MtBridgeVenue, type MtBridgeConnection } from '../../../engine/venues/mtBridge/venue.js';
import { clientOrderIdOf, tagOf } from '../../../engine/venues/mtBridge/protocol.js';
import { VenueError, type VenueChange } from '../../../engine/venues/port.js';
import { SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';
import { FakeTerminal } from '../../support/fakeTerminal.js';

const TOKEN = 'ct_good-token-of-account-a';
const ACCOUNT = { accountId: 'account-a', loginServer: 'FakeBroker-Demo', loginAccountNumber: '7001' };
const KEY = 'FakeBroker-Demo/7001';

const until = async (condition: () => boolean, what: string, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const rejection = async (promise: Promise<unknown>): Promise<VenueError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof VenueError) return error;
    throw error;
  }
  throw new Error('expected a VenueError');
};

describe('MetaTrader bridge (fake terminal)', () => {
  let server: MtBridgeServer;
  let url: string;
  let broker: SimulatedVenue;
  const logs: string[] = [];
  const terminals: FakeTerminal[] = [];

  const authenticate = (token: string): Promise<Authentication> =>
    Promise.resolve(token === TOKEN ? { ok: true, account: ACCOUNT } : { ok: false, message: 'the API key is unknown' });

  const terminal = async (options: { token?: string; login?: string } = {}): Promise<FakeTerminal> => {
    const t = new FakeTerminal({
      url,
      token: options.token ?? TOKEN,
      login: options.login ?? '7001',
      broker,
      brokerLogin: '7001',
      brokerPassword: 'broker-secret',
    });
    terminals.push(t);
    await t.start();
    // A terminal that is let in is attached once welcomed (connect() does not wait for one that is not).
    if (options.token === undefined && options.login === undefined) await t.welcome();
    return t;
  };

  beforeEach(async () => {
    logs.length = 0;
    broker = SimulatedVenue.create({ clock: { now: () => Date.now() }, seed: 'mt-bridge' });
    broker.openAccount({ login: '7001', password: 'broker-secret', balance: 10_000, leverage: 100, marginMode: 'hedging' });
    server = new MtBridgeServer({
      authenticate,
      log: { info: (m) => logs.push(`info ${m}`), warn: (m) => logs.push(`warn ${m}`) },
      requestTimeoutMs: 300,
      attachTimeoutMs: 1000,
      heartbeatMs: 200,
    });
    url = `ws://127.0.0.1:${await server.listen(0, '127.0.0.1')}`;
  });

  afterEach(async () => {
    for (const t of terminals.splice(0)) await t.stop();
    await server.stop();
  });

  const connected = async (): Promise<MtBridgeConnection> => {
    const venue = new MtBridgeVenue(server);
    const connection = venue.connection({ login: '7001', password: 'unused', server: 'FakeBroker-Demo' }) as MtBridgeConnection;
    await connection.connect();
    return connection;
  };

  it('carries a client order id in a 25-character comment tag and back', () => {
    const id = '0b7f4a8e-2d0c-4c55-9f43-5a3d1f0e7c21';
    expect(tagOf(id)).to.have.length(25);
    expect(clientOrderIdOf(tagOf(id))).to.equal(id);
    expect(clientOrderIdOf('hand-made comment')).to.equal(null);
  });

  it('accepts a terminal with a good token and shows it connected, truthfully DEMO', async () => {
    await terminal();
    const connection = await connected();
    expect(connection.isConnected()).to.equal(true);
    expect(connection.state()).to.include({ connected: true, platform: 'MT5', tradeMode: 'demo' });
    expect(connection.state().statusMessage).to.match(/^connected: MT5 7001 at FakeBroker-Demo/);
    const info = await connection.accountInformation();
    expect(info).to.include({ login: KEY, balance: 10_000, currency: 'USD', environment: 'DEMO', connected: true });
    expect(logs.some((l) => l.includes(`${KEY} connected`))).to.equal(true);
  });

  it('refuses a bad token with [INVALID_CREDENTIALS], to the terminal and to the account connecting', async () => {
    const t = await terminal({ token: 'ct_wrong' });
    await until(() => t.events.some((e) => e.startsWith('refused')), 'the refusal');
    expect(t.events.find((e) => e.startsWith('refused'))).to.match(/^refused: \[INVALID_CREDENTIALS\] the API key is unknown/);
    const error = await rejection(connected());
    expect(error.code).to.equal('[INVALID_CREDENTIALS]');
  });

  it('refuses a good token from a terminal logged in to another login', async () => {
    const t = await terminal({ login: '9999' });
    await until(() => t.events.some((e) => e.startsWith('refused')), 'the refusal');
    expect(t.events.find((e) => e.startsWith('refused'))).to.match(/INVALID_CREDENTIALS.*login 7001.*9999/);
    expect((await rejection(connected())).code).to.equal('[INVALID_CREDENTIALS]');
  });

  it('answers [NOT_CONNECTED] at once, without waiting the attach timeout, when no terminal is attached', async () => {
    await server.stop();
    // A ten-minute attach timeout: the answer comes well within the spec's own timeout only if connect() does not wait.
    server = new MtBridgeServer({ authenticate, log: { info: () => undefined, warn: () => undefined }, attachTimeoutMs: 600_000 });
    url = `ws://127.0.0.1:${await server.listen(0, '127.0.0.1')}`;
    const venue = new MtBridgeVenue(server);
    const connection = venue.connection({ login: '7001', password: 'unused', server: 'FakeBroker-Demo' }) as MtBridgeConnection;
    const error = await rejection(connection.connect());
    expect(error.code).to.equal('[NOT_CONNECTED]');
    expect(error.message).to.match(/^waiting for the terminal: .*run the bridge EA/);
    expect(connection.statusMessage).to.match(/^waiting for the terminal/);
    // The terminal attaches: the next connect opens.
    await terminal();
    await connection.connect();
    expect(connection.isConnected()).to.equal(true);
  });

  it('places an order once per client order id, reports it with that id, and maps refusals', async () => {
    await terminal();
    const connection = await connected();
    const changes: VenueChange[] = [];
    connection.subscribe((c) => changes.push(c));
    const id = '5d0f1c2e-8a3b-4c1d-9e2f-a1b2c3d4e5f6';
    const placed = await connection.placeOrder({ symbol: 'BTCUSD', orderType: 'buy', volume: 0.1 }, id);
    expect(placed).to.include({ status: 'filled', clientOrderId: id, volume: 0.1 });
    const again = await connection.placeOrder({ symbol: 'BTCUSD', orderType: 'buy', volume: 0.1 }, id);
    expect(again).to.deep.equal(placed);
    await until(() => changes.some((c) => c.type === 'positionOpened'), 'the opening');
    const opened = changes.find((c) => c.type === 'positionOpened');
    expect(opened?.type === 'positionOpened' && opened.position).to.include({ clientOrderId: id, comment: null, volume: 0.1, symbol: 'BTCUSD' });
    const book = await connection.positions();
    expect(book).to.have.length(1);
    expect(book[0]).to.include({ clientOrderId: id });
    const refused = await rejection(connection.placeOrder({ symbol: 'NOPE', orderType: 'buy', volume: 0.1 }, 'a8f0e1c2-0000-4000-8000-000000000001'));
    expect(refused.code).to.equal('[SYMBOL_NOT_FOUND]');
    const tooBig = await rejection(connection.placeOrder({ symbol: 'BTCUSD', orderType: 'buy', volume: 500 }, 'a8f0e1c2-0000-4000-8000-000000000002'));
    expect(['[NOT_ENOUGH_MONEY]', '[INVALID_VOLUME]']).to.include(tooBig.code);
  });

  it('does not place twice when the reply is lost after the order reached the terminal', async () => {
    const t = await terminal();
    const connection = await connected();
    t.swallow = { op: 'open', count: 1 };
    const id = '6e1f2d3c-9b4a-4d2e-8f30-b2c3d4e5f6a7';
    const placed = await connection.placeOrder({ symbol: 'BTCUSD', orderType: 'sell', volume: 0.2 }, id);
    expect(placed).to.include({ status: 'filled', clientOrderId: id });
    expect(t.requests.filter((r) => r.op === 'open')).to.have.length(2);
    expect(logs.some((l) => /did not answer open/.test(l))).to.equal(true);
    expect(logs.some((l) => /already at the terminal/.test(l))).to.equal(true);
    const positions = (await connection.positions()).filter((p) => p.kind === 'position');
    expect(positions).to.have.length(1);
    expect(positions[0]).to.include({ clientOrderId: id, volume: 0.2 });
  });

  it('shows the link down, reconnects with backoff, and delivers once what happened meanwhile', async () => {
    const t = await terminal();
    const connection = await connected();
    const changes: VenueChange[] = [];
    connection.subscribe((c) => changes.push(c));
    const kept = await connection.placeOrder({ symbol: 'BTCUSD', orderType: 'buy', volume: 0.01 }, '7a2b3c4d-0000-4000-8000-0000000000a1');
    const closing = await connection.placeOrder({ symbol: 'BTCUSD', orderType: 'buy', volume: 0.03 }, '7a2b3c4d-0000-4000-8000-0000000000a2');
    await until(() => changes.filter((c) => c.type === 'positionOpened').length === 2, 'two openings');

    t.setOffline(true);
    await until(() => !connection.isConnected(), 'the link down');
    expect(connection.state().connected).to.equal(false);
    expect(connection.state().statusMessage).to.match(/^disconnected at .*waiting for the terminal to reconnect/);
    expect((await rejection(connection.positions())).code).to.equal('[NOT_CONNECTED]');
    expect(logs.some((l) => /^warn MetaTrader bridge: FakeBroker-Demo\/7001 disconnected/.test(l))).to.equal(true);

    // While away: the user closes one position in the terminal and opens another by hand.
    const brokerSide = broker.connection({ login: '7001', password: 'broker-secret' });
    await brokerSide.connect();
    if (closing.status !== 'filled' || !closing.positionId) throw new Error('expected a fill');
    await brokerSide.closePosition(closing.positionId, 0.01);
    await brokerSide.closePosition(closing.positionId);
    const manual = t.manualTrade({ symbol: 'BTCUSD', orderType: 'sell', volume: 0.01 });
    const before = changes.length;

    t.setOffline(false);
    await until(() => connection.isConnected(), 'the link back');
    await until(() => changes.length >= before + 3, 'the changes made while away');
    const away = changes.slice(before);
    expect(away.map((c) => c.type)).to.deep.equal(['positionOpened', 'positionPartiallyClosed', 'positionClosed']);
    expect(away[0]?.type === 'positionOpened' && away[0].position.id).to.equal(manual.orderId);
    expect(away[2]?.type === 'positionClosed' && away[2].trade).to.include({
      positionId: closing.positionId,
      volume: 0.02,
      clientOrderId: '7a2b3c4d-0000-4000-8000-0000000000a2',
    });

    // Another drop and return: nothing is delivered again.
    t.drop();
    await until(() => !connection.isConnected(), 'the second drop');
    await until(() => connection.isConnected(), 'the second return');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(changes.length).to.equal(before + 3);
    expect(t.events.filter((e) => e === 'welcome').length).to.equal(3);
    expect((await connection.positions()).map((p) => p.id).sort()).to.deep.equal([kept.orderId, manual.orderId].sort());
  });
});
