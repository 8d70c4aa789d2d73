// The MetaTrader bridge in the running service (ACCOUNT_TYPE_VENUES=2=mtbridge:0): an account of the
// MT5 type trades through a fake terminal (test/support/fakeTerminal.ts) that authenticates with an
// account-level API key; a master at the simulated venue is copied to it; a deal made in the terminal
// while the service was down is recorded exactly once when it comes back.
import net from 'node:net';
import { expect } from 'chai';
import type { MtBridgeRealVenue } from '../../../engine/venues/mtBridge/adapter.js';
import { SimulatedVenue } from '../../../engine/venues/simulated/simulatedVenue.js';
import { positionsStream } from '../../../domain/positions/events.js';
import { DEFAULT_PROJECT_ID } from '../../../domain/project/decider.js';
import { FakeTerminal } from '../../support/fakeTerminal.js';
import { startTestService, type TestService, validAccount, whileCustomerBlocked } from '../../support/service.js';
import { bookWhere, eventually, openPosition, startedAccount } from '../../support/trading.js';

/** A port free now: the bridge listens on the same one after the restart, as a real deployment's does. */
const freePort = async (): Promise<number> => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

const bridgeUrl = (t: TestService): string => {
  const venue = t.service.services.venues.realVenueFor(2) as MtBridgeRealVenue | null;
  if (!venue) throw new Error('account type 2 is not routed to the bridge');
  return `ws://127.0.0.1:${venue.port}`;
};

describe('MetaTrader bridge in the service (e2e, fake terminal)', function () {
  // A service starts (twice): its migrations alone can exceed 30 s on a loaded machine.
  this.timeout(120_000);
  let t: TestService;
  let broker: SimulatedVenue;
  let env: Record<string, string>;
  const terminals: FakeTerminal[] = [];

  const mtAccount = async (login: string, alias: string): Promise<{ id: string; token: string }> => {
    const created = await t.call('POST', '/accounts', {
      body: validAccount({ alias, type: { id: 2 }, loginServer: 'FakeBroker-Demo', loginAccountNumber: login }),
    });
    expect(created.status).to.equal(200);
    const key = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/apiKeys`, { body: { name: `${alias} EA`, accountId: created.body.id } });
    expect(key.status).to.equal(200);
    return { id: created.body.id as string, token: key.body.key as string };
  };

  const terminal = async (token: string, login: string): Promise<FakeTerminal> => {
    const fake = new FakeTerminal({ url: bridgeUrl(t), token, login, broker, brokerLogin: login, brokerPassword: 'broker', backoffMs: 50, maxBackoffMs: 400 });
    terminals.push(fake);
    await fake.start();
    return fake;
  };

  before(async () => {
    const port = await freePort();
    // A ten-minute attach timeout: a start without a terminal answers within the specs' timeouts only because it does not wait.
    env = {
      ACCOUNT_TYPE_VENUES: `2=mtbridge:${port}`,
      MT_BRIDGE_HOST: '127.0.0.1',
      MT_BRIDGE_ATTACH_TIMEOUT_MS: '600000',
      MT_BRIDGE_REQUEST_TIMEOUT_MS: '1000',
    };
    t = await startTestService({ env });
    broker = SimulatedVenue.create({ clock: { now: () => Date.now() }, seed: 'mt-bridge-e2e' });
    for (const login of ['7001', '7002', '7003', '7004'])
      broker.openAccount({ login, password: 'broker', balance: 10_000, leverage: 100, marginMode: 'hedging' });
  });

  after(async () => {
    for (const fake of terminals.splice(0)) await fake.stop();
    await t.stop();
  });

  it('refuses a terminal with a bad token, and the account start answers [INVALID_CREDENTIALS]', async () => {
    const account = await mtAccount('7002', 'bad token');
    const fake = await terminal('ct_this-is-not-a-key-of-this-service-000000', '7002');
    await eventually(async () => (fake.events.some((e) => e.startsWith('refused')) ? true : undefined), 3000, 'the refusal');
    const started = await t.call('POST', `/accounts/${account.id}/actions/start`);
    expect(started.status).to.equal(400);
    expect(started.body.error).to.equal('[INVALID_CREDENTIALS]');
    await fake.stop();
  });

  it("refuses a terminal whose key belongs to a blocked customer's project, and takes it again once unblocked", async () => {
    const account = await mtAccount('7004', 'blocked customer');
    // Blocking suspends the project's keys without revoking them, so the bridge must read the block.
    await whileCustomerBlocked(t, DEFAULT_PROJECT_ID, async () => {
      const refused = await terminal(account.token, '7004');
      const line = await eventually(async () => refused.events.find((e) => e.startsWith('refused')), 3000, 'the refusal');
      expect(line).to.include('blocked');
      await refused.stop();
    });
    const taken = await terminal(account.token, '7004');
    await eventually(async () => (taken.events.includes('welcome') ? true : undefined), 3000, 'the welcome');
    await taken.stop();
  });

  let slave: string;
  let fake: FakeTerminal;
  let master: string;

  it('starts with a good token, copies a master at the simulated venue to the MT5 slave, tagged', async () => {
    const account = await mtAccount('7001', 'mt5 slave');
    slave = account.id;
    fake = await terminal(account.token, '7001');
    await fake.welcome();
    const started = await t.call('POST', `/accounts/${slave}/actions/start`);
    expect(started.status).to.equal(200);
    const info = await t.call('GET', `/accounts/${slave}/information`);
    expect(info.status).to.equal(200);
    expect(info.body).to.include({ connected: true, environment: 'DEMO' });

    master = await startedAccount(t, 'sim master');
    const copier = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, multiplier: 2 } });
    expect(copier.status).to.equal(200);
    await openPosition(t, master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    const book = await bookWhere(t, slave, (b) => b.length === 1, 'the copy at the terminal', 10_000);
    expect(book[0]).to.include({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.02 });
    // At the broker: one position, its comment the tag of the copy's client order id.
    const desk = broker.connection({ login: '7001', password: 'broker' });
    await desk.connect();
    const atBroker = (await desk.positions()).filter((p) => p.kind === 'position');
    expect(atBroker).to.have.length(1);
    expect(atBroker[0]?.comment).to.match(/^ct:[A-Za-z0-9_-]{22}$/);
    expect(book[0]?.clientOrderId).to.be.a('string');
  });

  it('records a deal made in the terminal while the service was down exactly once', async () => {
    const [position] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    const { databaseUrl, dataDir } = t;
    await t.stop();
    // While the service is down the user closes the copy in the terminal.
    const desk = broker.connection({ login: '7001', password: 'broker' });
    await desk.connect();
    await desk.closePosition(position!.id);
    t = await startTestService({ env, databaseUrl, dataDir });
    // The start no longer waits for the terminal: it attaches afterwards, and its book (the live answer of
    // GET .../positions) can be empty a moment before the reconciliation has appended the close.
    await bookWhere(t, slave, (b) => b.length === 0, 'the close at the terminal', 15_000);
    const closes = async () => {
      let n = 0;
      for await (const e of t.service.services.store.readStream(positionsStream(slave))) if (e.event.type === 'PositionClosed') n++;
      return n;
    };
    await eventually(async () => ((await closes()) > 0 ? true : undefined), 15_000, 'the close recorded');
    expect(await closes()).to.equal(1);
    // The terminal drops and comes back: nothing is recorded again.
    fake.drop();
    await eventually(async () => (fake.isWelcomed ? undefined : true), 3000, 'the drop');
    await fake.welcome();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await closes()).to.equal(1);
  });

  it('connects an Active account whose terminal attaches only after the service started, without a restart', async () => {
    await fake.stop();
    const { databaseUrl, dataDir } = t;
    await t.stop();
    t = await startTestService({ env, databaseUrl, dataDir });
    // The start did not wait for the terminal (not attached yet) and left the account without a session.
    await eventually(async () => (t.service.services.connections.isConnected(slave) ? undefined : true), 10_000, 'the start to give up');
    const before = await t.call('GET', `/accounts/${slave}/information`);
    expect(before.body).to.include({ connected: false });
    const account = await t.call('GET', `/accounts/${slave}`);
    expect(account.body.status).to.deep.equal({ id: 2, name: 'Active' });
    expect(account.body.statusMessage).to.match(/waiting for the terminal/);
    const key = await t.call('POST', `/projects/${DEFAULT_PROJECT_ID}/apiKeys`, { body: { name: 'mt5 slave EA again', accountId: slave } });
    fake = await terminal(key.body.key as string, '7001');
    await fake.welcome();
    await eventually(async () => ((await t.call('GET', `/accounts/${slave}/information`)).body.connected === true ? true : undefined), 10_000, 'the session');
    expect((await t.call('GET', `/accounts/${slave}`)).body.statusMessage).to.match(/^connected: MT5 7001 at FakeBroker-Demo/);
  });

  it("copies the MT5 account's trades, as a master, to an account at the simulated venue", async () => {
    const simSlave = await startedAccount(t, 'sim slave of mt5');
    const copier = await t.call('POST', `/accounts/${simSlave}/copiers`, { body: { fromAccountId: slave, multiplier: 1 } });
    expect(copier.status).to.equal(200);
    // The user trades in the terminal: the EA streams the deal, the engine copies it.
    const desk = broker.connection({ login: '7001', password: 'broker' });
    await desk.connect();
    const opened = await desk.placeOrder({ symbol: 'BTCUSD', orderType: 'sell', volume: 0.05 }, 'by-hand-1');
    const [copy] = await bookWhere(t, simSlave, (b) => b.some((p) => p.symbol === 'BTCUSD'), 'the copy at the simulated venue', 15_000);
    expect(copy).to.include({ symbol: 'BTCUSD', orderType: 'Sell', volume: 0.05 });
    if (opened.status !== 'filled') throw new Error('the market order did not fill');
    await desk.closePosition(opened.positionId!);
    await bookWhere(t, simSlave, (b) => !b.some((p) => p.symbol === 'BTCUSD'), 'the copy closed', 15_000);
  });

  it("rounds a copy to the terminal's volume step and skips one below its minimum, with the reason in the logs", async () => {
    const small = await startedAccount(t, 'sim master, small copies');
    const rounding = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: small, multiplier: 0.55, forceMinTrade: false } });
    expect(rounding.status).to.equal(200);
    const desk = broker.connection({ login: '7001', password: 'broker' });
    await desk.connect();
    const step = (await desk.symbolInfo('BTCUSD')).volumeStep;
    const minimum = (await desk.symbolInfo('BTCUSD')).minVolume;
    // 0.03 x 0.55 = 0.0165 lots: rounded down to the terminal's step.
    await openPosition(t, small, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.03 });
    const [copy] = await bookWhere(t, slave, (b) => b.some((p) => p.symbol === 'BTCUSD'), 'the rounded copy at the terminal', 15_000);
    expect(copy!.volume).to.be.closeTo(Math.floor(0.0165 / step + 1e-9) * step, 1e-9);
    // 0.01 x 0.55 = 0.0055 lots: below the terminal's minimum (forceMinTrade off): skipped with the reason.
    await openPosition(t, small, { symbol: 'BTCUSD', orderType: 'Sell', volume: 0.01 });
    const skip = await eventually(
      async () =>
        ((await t.call('GET', `/accounts/${slave}/logs?limit=1000`)).body as { text: string }[]).find((l) =>
          new RegExp(`below the minimum ${minimum} of BTCUSD`).test(l.text),
        ),
      15_000,
      'the skip',
    );
    expect(skip.text).to.match(/forceMinTrade is off/);
  });

  it('starts an account before its terminal attaches: Active, waiting for the terminal, and trading once it attaches', async () => {
    const late = await mtAccount('7003', 'mt5 late terminal');
    const started = await t.call('POST', `/accounts/${late.id}/actions/start`);
    expect(started.status).to.equal(200);
    expect(started.body.status).to.deep.equal({ id: 2, name: 'Active' });
    expect(started.body.statusMessage).to.match(/^waiting for the terminal/);
    expect(started.body.accountInformation).to.include({ connected: false });
    const waiting = await t.call('GET', `/accounts/${late.id}`);
    expect(waiting.body.statusMessage).to.match(/^waiting for the terminal/);
    expect((await t.call('GET', `/accounts/${late.id}/information`)).body).to.include({ connected: false });
    // The terminal attaches: the account connects without another start, and trades.
    const attached = await terminal(late.token, '7003');
    await attached.welcome();
    await eventually(async () => ((await t.call('GET', `/accounts/${late.id}/information`)).body.connected === true ? true : undefined), 10_000, 'the session');
    const connected = await t.call('GET', `/accounts/${late.id}`);
    expect(connected.body.accountInformation).to.include({ connected: true });
    expect(connected.body.statusMessage).to.match(/^connected: MT5 7003 at FakeBroker-Demo/);
    await openPosition(t, late.id, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    const [position] = await bookWhere(t, late.id, (b) => b.length === 1, 'the position at the terminal', 10_000);
    expect(position).to.include({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
  });
});
