// End to end with cTrader: account type 4 (the reference's cTrader type) routed to the cTrader adapter
// (ACCOUNT_TYPE_VENUES=4=ctrader:openapi), its endpoints pointed at the local fake Open API
// (CTRADER_DEMO_URL; nothing leaves 127.0.0.1): good and bad tokens, a master at the simulated venue
// copied to a cTrader slave with the volume rounded to the symbol's step, a skip below its minimum with
// the reason in the logs, and a close and an open made in cTrader while the service was down recorded once at the restart.
import { expect } from 'chai';
import { positionsStream } from '../../domain/positions/events.js';
import { ctraderAccount as createAccount, ctraderEnv, startedFakeCTrader } from '../support/ctraderService.js';
import type { FakeCTrader } from '../support/fakeCTrader.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, type LogEntry, marketHoursClock, openPosition, pinQuotes, startedAccount } from '../support/trading.js';

describe('cTrader venue end to end (fake Open API endpoint)', function () {
  this.timeout(120_000);
  let fake: FakeCTrader;
  let t: TestService;
  const clock = marketHoursClock();
  const env = (): Record<string, string> => ctraderEnv(fake);
  const ctraderAccount = (alias: string, login: string, token: string, start = true) => createAccount(t, alias, login, token, start);

  const copyTo = async (slave: string, master: string, body: Record<string, unknown>) => {
    const copier = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, ...body } });
    expect(copier.status).to.equal(200);
    return copier.body.id as string;
  };

  const logsOf = async (account: string): Promise<LogEntry[]> => (await t.call('GET', `/accounts/${account}/logs?limit=1000`)).body as LogEntry[];

  beforeEach(async () => {
    fake = await startedFakeCTrader(clock);
    t = await startTestService({ clock, env: env() });
    await pinQuotes(t, { EURUSD: [1.085, 1.0852] });
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  it('starts an account with a good access token (DEMO, native) and refuses a bad one with [INVALID_CREDENTIALS]', async () => {
    const good = await ctraderAccount('cTrader', '7001', 'token-good|refresh-token');
    expect(good.started!.status).to.equal(200);
    const info = await t.call('GET', `/accounts/${good.id}/information`);
    expect(info.body).to.include({ connected: true, currency: 'USD', balance: 10_000, environment: 'DEMO', isNative: true });
    // statusMessage is the link's state, and says what is wrong while the link is down.
    expect(good.started!.body.statusMessage).to.equal('connected');
    fake.down = true;
    fake.dropAll();
    const lost = await eventually(
      async () => {
        const body = (await t.call('GET', `/accounts/${good.id}`)).body as {
          status: unknown;
          statusMessage: string;
          accountInformation: { connected: boolean };
        };
        return body.accountInformation.connected === false && /^reconnecting: the link to cTrader closed/.test(body.statusMessage) ? body : undefined;
      },
      10_000,
      'the lost link in statusMessage',
    );
    expect(lost.status).to.deep.equal({ id: 2, name: 'Active' });
    fake.down = false;
    await eventually(
      async () => ((await t.call('GET', `/accounts/${good.id}`)).body.statusMessage === 'connected' ? true : undefined),
      15_000,
      'the link back',
    );
    const bad = await ctraderAccount('Wrong token', '7001', 'not-the-token');
    expect(bad.started!.status).to.equal(400);
    expect(bad.started!.body.error).to.equal('[INVALID_CREDENTIALS]');
  });

  it('copies a master at the simulated venue to a cTrader slave, open and close, rounding to the symbol step', async () => {
    const master = await startedAccount(t, 'Master');
    const { id: slave } = await ctraderAccount('Slave', '7001', 'token-good');
    await copyTo(slave, master, { multiplier: 0.123 });
    const masterPosition = await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    // 0.1 × 0.123 = 0.0123 lot, rounded down to the step 0.01 lot = 1 000 units = 100 000 cents.
    const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy at cTrader', 20_000);
    expect(copy).to.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.01 });
    const orders = fake.ordersOf(42_001);
    expect(orders).to.have.length(1);
    expect(orders[0]!.tradeData).to.include({ volume: 100_000, tradeSide: 1 });
    expect(orders[0]!.clientOrderId).to.be.a('string');
    expect((await t.call('DELETE', `/accounts/${master}/positions/${masterPosition}`)).status).to.be.oneOf([200, 204]);
    await bookWhere(t, slave, (book) => book.length === 0, 'the copy closed at cTrader', 20_000);
    expect(fake.positionsOf(42_001)).to.have.length(0);
    expect(fake.ordersOf(42_001)).to.have.length(2);
  });

  it('skips a copy below the symbol minimum volume, with the reason in the slave logs', async () => {
    const master = await startedAccount(t, 'Master');
    const { id: slave } = await ctraderAccount('Slave', '7001', 'token-good');
    await copyTo(slave, master, { multiplier: 0.05, forceMinTrade: false });
    await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    // 0.005 lot is below cTrader's minimum 100 000 cents = 0.01 lot.
    const skip = await eventually(async () => (await logsOf(slave)).find((l) => /below the minimum 0\.01 of EURUSD/.test(l.text)), 20_000, 'the skip');
    expect(skip.text).to.match(/forceMinTrade is off/);
    expect(fake.ordersOf(42_001)).to.have.length(0);
  });

  it('records once, at the restart, a close and an open made in cTrader while the service was down', async () => {
    const master = await startedAccount(t, 'Master');
    const { id: slave } = await ctraderAccount('Slave', '7001', 'token-good');
    await copyTo(slave, master, { multiplier: 1 });
    await openPosition(t, master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy at cTrader', 20_000);
    const { databaseUrl, dataDir } = t;
    await t.stop();
    // While the service is down the user closes the copy in cTrader and opens a position of their own.
    fake.closeManually(42_001, Number(copy!.id));
    const own = fake.openManually(42_001, 'BTCUSD', 'buy', 25);
    t = await startTestService({ clock, env: env(), databaseUrl, dataDir });
    const [left] = await bookWhere(t, slave, (book) => book.length === 1 && book[0]!.symbol === 'BTCUSD', 'the close and the open reconciled', 20_000);
    expect(left).to.include({ id: String(own), volume: 0.25, orderType: 'Buy' });
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a reconnect or a late event records nothing twice
    const types: string[] = [];
    for await (const { event } of t.service.services.store.readStream(positionsStream(slave))) types.push(event.type);
    expect(types.filter((type) => type === 'PositionOpened')).to.have.length(2);
    expect(types.filter((type) => type === 'PositionClosed')).to.have.length(1);
    expect(copy!.volume).to.equal(0.1);
    expect(fake.ordersOf(42_001)).to.have.length(3);
  });
});
