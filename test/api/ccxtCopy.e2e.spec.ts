// End to end with a crypto exchange: account type 11 routed to ccxt's binance (ACCOUNT_TYPE_VENUES),
// ccxt pointed at the local fake Binance (CCXT_BASE_URL; nothing leaves 127.0.0.1), a master at the
// simulated venue copied to a slave at the exchange, a close made at the exchange while the service was
// down reconciled once at the restart, and the exchange's precision and minimum notional in the sizes.
import { expect } from 'chai';
import { positionsStream } from '../../domain/positions/events.js';
import { ccxtServiceEnv, copierWithMapping, startedExchangeAccount } from '../support/ccxtService.js';
import { FakeExchange } from '../support/fakeExchange.js';
import { startTestService, type TestService, validAccount } from '../support/service.js';
import { bookWhere, eventually, type LogEntry, marketHoursClock, openPosition, pinQuotes, startedAccount } from '../support/trading.js';

describe('ccxt venue end to end (fake Binance)', function () {
  this.timeout(120_000);
  let fake: FakeExchange;
  let t: TestService;
  const clock = marketHoursClock();
  const env = () => ccxtServiceEnv(fake, '11=ccxt:binance');

  const exchangeAccount = async (alias: string, key: string, secret: string, start = true) => {
    const created = await t.call('POST', '/accounts', {
      body: validAccount({ alias, type: { id: 11 }, loginServer: 'sandbox', loginAccountNumber: key, loginAccountPassword: secret }),
    });
    expect(created.status).to.equal(200);
    const id = created.body.id as string;
    return { id, started: start ? await t.call('POST', `/accounts/${id}/actions/start`) : null };
  };

  const copyTo = (slave: string, master: string, body: Record<string, unknown>) => copierWithMapping(t, slave, master, body, { slaveSymbol: 'BTCUSDT' });

  const logsOf = async (account: string): Promise<LogEntry[]> => (await t.call('GET', `/accounts/${account}/logs?limit=1000`)).body as LogEntry[];

  // ccxt is a large package that the adapter loads when a venue first connects: load it once up front,
  // so its import time does not count against the first test.
  before(async function () {
    this.timeout(300_000);
    await import('ccxt');
  });
  beforeEach(async () => {
    fake = new FakeExchange();
    await fake.start();
    fake.addAccount('key-good', 'secret-good', { USDT: 10_000 });
    t = await startTestService({ clock, env: env() });
    await pinQuotes(t, { BTCUSD: [65000, 65010] });
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  it('starts an account with good API keys (environment DEMO for a sandbox login, native) and refuses bad ones with [INVALID_CREDENTIALS]', async () => {
    const good = await exchangeAccount('Binance', 'key-good', 'secret-good');
    expect(good.started!.status).to.equal(200);
    expect(good.started!.body.statusMessage, "the exchange link's state").to.match(/^connected; order stream (live|connecting)$/);
    const info = await t.call('GET', `/accounts/${good.id}/information`);
    expect(info.body).to.include({ connected: true, currency: 'USDT', balance: 10_000, environment: 'DEMO', isNative: true });
    const bad = await exchangeAccount('Wrong secret', 'key-good', 'not-the-secret');
    expect(bad.started!.status).to.equal(400);
    expect(bad.started!.body.error).to.equal('[INVALID_CREDENTIALS]');
    expect(fake.requests.length).to.be.greaterThan(0);
  });

  it('copies a master at the simulated venue to a slave at the exchange, open and close, rounding to the exchange step', async () => {
    const master = await startedAccount(t, 'Master');
    const { id: slave } = await exchangeAccount('Slave', 'key-good', 'secret-good');
    await copyTo(slave, master, { multiplier: 0.12345 });
    const masterPosition = await openPosition(t, master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    // 0.01 x 0.12345 = 0.0012345 BTC, rounded down to the exchange's step 0.00001.
    const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy at the exchange', 20_000);
    expect(copy).to.include({ symbol: 'BTCUSDT', orderType: 'Buy', volume: 0.00123 });
    expect(fake.orders).to.have.length(1);
    expect(fake.orders[0]).to.include({ side: 'BUY', type: 'MARKET', origQty: 0.00123 });
    expect((await t.call('DELETE', `/accounts/${master}/positions/${masterPosition}`)).status).to.be.oneOf([200, 204]);
    await bookWhere(t, slave, (book) => book.length === 0, 'the copy closed at the exchange', 20_000);
    expect(fake.orders.map((o) => o.side)).to.deep.equal(['BUY', 'SELL']);
    expect(fake.balance('key-good', 'BTC')).to.be.closeTo(0, 1e-12);
  });

  it('skips a copy below the exchange minimum notional, with the reason in the slave logs', async () => {
    const master = await startedAccount(t, 'Master');
    const { id: slave } = await exchangeAccount('Slave', 'key-good', 'secret-good');
    await copyTo(slave, master, { multiplier: 0.005, forceMinTrade: false });
    await openPosition(t, master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    // 0.00005 BTC is worth about 3.25 USDT, below the 5 USDT minimum notional: the minimum lot is 0.00008.
    const skip = await eventually(async () => (await logsOf(slave)).find((l) => /below the minimum 0\.00008 of BTCUSDT/.test(l.text)), 20_000, 'the skip');
    expect(skip.text).to.match(/forceMinTrade is off/);
    expect(fake.orders).to.have.length(0);
  });

  it('records once, at the restart, a close made at the exchange while the service was down', async () => {
    const master = await startedAccount(t, 'Master');
    const { id: slave } = await exchangeAccount('Slave', 'key-good', 'secret-good');
    await copyTo(slave, master, { multiplier: 1 });
    await openPosition(t, master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy at the exchange', 20_000);
    const { databaseUrl, dataDir } = t;
    await t.stop();
    fake.placeManually('key-good', 'BTCUSDT', 'SELL', 0.01);
    t = await startTestService({ clock, env: env(), databaseUrl, dataDir });
    await bookWhere(t, slave, (book) => book.length === 0, 'the close reconciled', 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // a few polls more: nothing is recorded twice
    const types: string[] = [];
    for await (const { event } of t.service.services.store.readStream(positionsStream(slave))) types.push(event.type);
    expect(types.filter((type) => type === 'PositionOpened')).to.have.length(1);
    expect(types.filter((type) => type === 'PositionClosed')).to.have.length(1);
    expect(copy!.volume).to.equal(0.01);
    expect(fake.orders).to.have.length(2);
  });
});

// The same copy through Bybit v5, OKX and Binance USDⓈ-M (each routed to its own account type), each with
// its own precision and minimum: the copy is rounded to the exchange's step, and a copy below the
// exchange's minimum is skipped with its reason in the slave's logs.
const DIALECTS = [
  // qtyStep 0.001: 0.012345 → 0.012; minimum 0.001 BTC.
  { dialect: 'bybit', type: 13, symbol: 'BTCUSDT', password: 'secret-good', rounded: 0.012, skipSymbol: 'BTCUSDT', minimum: '0\\.001' },
  // lotSz 1e-8: 0.012345 stays; the skip is on ETH-USDT (minSz 0.001), as 0.00001 BTC is BTC-USDT's minimum itself.
  { dialect: 'okx', type: 14, symbol: 'BTC-USDT', password: 'secret-good:pass-good', rounded: 0.012345, skipSymbol: 'ETH-USDT', minimum: '0\\.001' },
  // stepSize 0.001: 0.012345 → 0.012; minimum notional 100 USDT at 65,000.1 → 0.002.
  { dialect: 'binanceusdm', type: 12, symbol: 'BTCUSDT', password: 'secret-good', rounded: 0.012, skipSymbol: 'BTCUSDT', minimum: '0\\.002' },
] as const;

for (const d of DIALECTS) {
  describe(`ccxt venue end to end (fake ${d.dialect})`, function () {
    this.timeout(120_000);
    let fake: FakeExchange;
    let t: TestService;
    const clock = marketHoursClock();

    const slaveAt = () => startedExchangeAccount(t, { alias: d.dialect, type: d.type, login: 'key-good', password: d.password });
    const copyTo = (slave: string, master: string, body: Record<string, unknown>, slaveSymbol: string = d.symbol) =>
      copierWithMapping(t, slave, master, body, { slaveSymbol });

    before(async function () {
      this.timeout(300_000);
      await import('ccxt');
    });
    beforeEach(async () => {
      fake = new FakeExchange(d.dialect);
      await fake.start();
      fake.addAccount('key-good', 'secret-good', { USDT: 10_000 }, d.dialect === 'okx' ? 'pass-good' : null);
      t = await startTestService({ clock, env: ccxtServiceEnv(fake, `${d.type}=ccxt:${d.dialect}`) });
      await pinQuotes(t, { BTCUSD: [65000, 65010] });
    });
    afterEach(async () => {
      await t.stop();
      await fake.stop();
    });

    it("copies a simulated master's open and close, rounded to the exchange's step, and skips a copy below its minimum with the reason", async () => {
      const master = await startedAccount(t, 'Master');
      const slave = await slaveAt();
      await copyTo(slave, master, { multiplier: 1.2345 });
      const masterPosition = await openPosition(t, master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
      const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy at the exchange', 20_000);
      expect(copy).to.include({ symbol: d.symbol, orderType: 'Buy', volume: d.rounded });
      expect(fake.orders.map((o) => [o.side, o.type, o.origQty])).to.deep.equal([['BUY', 'MARKET', d.rounded]]);
      expect((await t.call('DELETE', `/accounts/${master}/positions/${masterPosition}`)).status).to.be.oneOf([200, 204]);
      await bookWhere(t, slave, (book) => book.length === 0, 'the copy closed at the exchange', 20_000);
      expect(fake.orders.map((o) => o.side)).to.deep.equal(['BUY', 'SELL']);
      // /metrics times the order round trips at this venue kind.
      const text = await (await fetch(`${t.url.replace(/\/rest\/api\/v1$/, '')}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('copytrade_venue_order_duration_seconds_count{') &&
            l.includes(`venue="ccxt:${d.dialect}"`) &&
            l.includes('operation="placeOrder"') &&
            l.includes('outcome="ok"'),
        );
      expect(Number(line?.split(' ').pop())).to.be.at.least(1);

      const small = await startedAccount(t, 'Small master');
      await copyTo(slave, small, { multiplier: 0.001, forceMinTrade: false }, d.skipSymbol);
      await openPosition(t, small, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
      const logs = async (): Promise<LogEntry[]> => (await t.call('GET', `/accounts/${slave}/logs?limit=1000`)).body as LogEntry[];
      const pattern = new RegExp(`below the minimum ${d.minimum} of ${d.skipSymbol}`);
      const skip = await eventually(async () => (await logs()).find((l) => pattern.test(l.text)), 20_000, 'the skip');
      expect(skip.text).to.match(/forceMinTrade is off/);
      expect(fake.orders).to.have.length(2);
    });
  });
}
