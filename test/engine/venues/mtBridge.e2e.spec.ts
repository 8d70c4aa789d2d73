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
import { startTestService, type TestService, validAccount } from '../../support/service.js';
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

describe('MetaTrader bridge in the service (e2e, fake terminal)', () => {
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
    env = { ACCOUNT_TYPE_VENUES: `2=mtbridge:${port}`, MT_BRIDGE_HOST: '127.0.0.1', MT_BRIDGE_ATTACH_TIMEOUT_MS: '3000', MT_BRIDGE_REQUEST_TIMEOUT_MS: '1000' };
    t = await startTestService({ env });
    broker = SimulatedVenue.create({ clock: { now: () => Date.now() }, seed: 'mt-bridge-e2e' });
    for (const login of ['7001', '7002']) broker.openAccount({ login, password: 'broker', balance: 10_000, leverage: 100, marginMode: 'hedging' });
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
    await bookWhere(t, slave, (b) => b.length === 0, 'the close recorded', 15_000);
    const closes = async () => {
      let n = 0;
      for await (const e of t.service.services.store.readStream(positionsStream(slave))) if (e.event.type === 'PositionClosed') n++;
      return n;
    };
    expect(await closes()).to.equal(1);
    // The terminal drops and comes back: nothing is recorded again.
    fake.drop();
    await eventually(async () => (fake.isWelcomed ? undefined : true), 3000, 'the drop');
    await fake.welcome();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await closes()).to.equal(1);
  });
});
