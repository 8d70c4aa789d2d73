// The copier members and operations that need the engine, end to end over HTTP against the simulated
// venue: copyOpenPositions, resync, symbol mappings, openRetry, what the venue does by itself (stops,
// positions opened elsewhere), a stopped slave, balance ratios, and positionMismatch.
import { expect } from 'chai';
import { simulatedLogin } from '../../../engine/venues/host.js';
import { startTestService, type TestService } from '../../support/service.js';
import { bookWhere, eventually, marketHoursClock, pinQuotes, positionRequest, positionsOf, startedAccount } from '../../support/trading.js';

interface LogEntry {
  readonly text: string;
  readonly code: string | null;
  readonly logTypeId: number;
  readonly category: string;
}

describe('copier features end to end', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock(), openRetryIntervalMs: 200 });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009], XAUUSD: [2350, 2350.25] });
  });
  after(() => t?.stop());

  const open = async (accountId: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', `/accounts/${accountId}/positions`, { body: positionRequest(body) });
    expect(res.status, JSON.stringify(res.body)).to.equal(204);
    return res.headers.get('x-position-id')!;
  };
  const copier = async (slave: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', `/accounts/${slave}/copiers`, { body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  const logsOf = async (accountId: string, query = ''): Promise<LogEntry[]> => (await t.call('GET', `/accounts/${accountId}/logs${query}`)).body;
  const logWith = (accountId: string, code: string) =>
    eventually(async () => (await logsOf(accountId)).find((l) => l.code === code), 5000, `a ${code} log entry`);
  const venueLogin = async (accountId: string) => simulatedLogin((await t.call('GET', `/accounts/${accountId}`)).body);
  const pair = async (name: string) => ({ master: await startedAccount(t, `${name}-master`), slave: await startedAccount(t, `${name}-slave`) });

  it('copyOpenPositions copies what the master already holds when the copier is created, and nothing twice', async () => {
    const { master, slave } = await pair('existing');
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.2, comment: 'before' });
    await open(master, { symbol: 'GBPUSD', orderType: 'SellLimit', volume: 0.1, openPrice: 1.28 });
    const copierId = await copier(slave, { fromAccountId: master, copyOpenPositions: true, skipPendingOrders: false });
    // The copier's answer waits for the engine: the copies are there at once.
    const book = await positionsOf(t, slave);
    expect(book.map((p) => [p.symbol, p.orderType, p.volume]).sort()).to.deep.equal([
      ['EURUSD', 'Buy', 0.2],
      ['GBPUSD', 'SellLimit', 0.1],
    ]);
    // Deactivated and activated again: copyOpenPositions runs again and finds both copied.
    await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { active: false } });
    await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { active: true } });
    expect((await positionsOf(t, slave)).map((p) => p.id).sort()).to.deep.equal(book.map((p) => p.id).sort());
  });

  it('without copyOpenPositions, a new copier copies only later trades', async () => {
    const { master, slave } = await pair('later-only');
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.2 });
    await copier(slave, { fromAccountId: master });
    await open(master, { symbol: 'XAUUSD', orderType: 'Sell', volume: 0.1 });
    const book = await bookWhere(t, slave, (b) => b.length === 1, 'the later trade');
    expect(book[0]).to.deep.include({ symbol: 'XAUUSD', orderType: 'Sell' });
  });

  it('resync reopens on the slave what was closed there while the master still holds it', async () => {
    const { master, slave } = await pair('resync');
    const copierId = await copier(slave, { fromAccountId: master, multiplier: 2 });
    await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    expect((await t.call('DELETE', `/accounts/${slave}/positions/${copy!.id}`)).status).to.equal(204);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    const info = await t.call('GET', `/accounts/${slave}/information`);
    expect(info.body.positionMismatch).to.equal(true);

    expect((await t.call('POST', `/accounts/${slave}/copiers/${copierId}/resync`)).status).to.equal(204);
    const book = await positionsOf(t, slave);
    expect(book.map((p) => [p.symbol, p.orderType, p.volume])).to.deep.equal([['EURUSD', 'Sell', 0.2]]);
    expect((await t.call('GET', `/accounts/${slave}/information`)).body.positionMismatch).to.equal(false);
    // A second resync finds nothing missing.
    await t.call('POST', `/accounts/${slave}/copiers/${copierId}/resync`);
    expect(await positionsOf(t, slave)).to.have.length(1);
  });

  it('symbol mappings: explicit ones win, current shows every master symbol with its source', async () => {
    const { master, slave } = await pair('mapping');
    const copierId = await copier(slave, { fromAccountId: master });
    const base = `/accounts/${slave}/copiers/${copierId}/symbolMappings`;
    expect((await t.call('GET', base)).body).to.deep.equal([]);
    const automatic = (await t.call('GET', `${base}/current`)).body as { from: string; to: string; slaveSymbol: string | null; source: string }[];
    expect(automatic.find((m) => m.from === 'EURUSD')).to.deep.include({ to: 'EURUSD', slaveSymbol: 'EURUSD', source: 'AUTOMATIC' });

    const set = await t.call('PUT', base, { body: [{ masterSymbol: 'EURUSD', slaveSymbol: 'GBPUSD' }] });
    expect(set.body).to.deep.equal([{ masterSymbol: 'EURUSD', slaveSymbol: 'GBPUSD', source: 'EXPLICIT' }]);
    const current = (await t.call('GET', `${base}/current`)).body as { from: string; to: string; slaveSymbol: string | null; source: string }[];
    expect(current.find((m) => m.from === 'EURUSD')).to.deep.include({ to: 'GBPUSD', slaveSymbol: 'GBPUSD', source: 'EXPLICIT' });

    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the mapped copy');
    expect(copy!.symbol).to.equal('GBPUSD');

    // A mapping to a symbol the slave does not offer: not copied, and the log says why.
    await t.call('PUT', base, { body: [{ masterSymbol: 'XAUUSD', slaveSymbol: 'GOLD.pro' }] });
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.01 });
    const skip = await logWith(slave, 'SYMBOL_NOT_MAPPED');
    expect(skip.text).to.match(/no unique slave symbol for XAUUSD/);

    const twice = await t.call('PUT', base, {
      body: [
        { masterSymbol: 'EURUSD', slaveSymbol: 'GBPUSD' },
        { masterSymbol: 'eurusd', slaveSymbol: 'EURUSD' },
      ],
    });
    expect(twice.status).to.equal(400);
    expect((await t.call('PUT', base, { body: [] })).body).to.deep.equal([]);
  });

  it('openRetry resends a refused open every interval until the broker takes it', async () => {
    const { master, slave } = await pair('retry');
    await copier(slave, { fromAccountId: master, openRetry: true, openRetryTimeoutInMinutes: 5 });
    const slaveLogin = await venueLogin(slave);
    await t.service.services.venues.desk((venue) => venue.deposit(slaveLogin, -9_990, 'leave 10 USD'));
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
    const refused = await logWith(slave, '[NOT_ENOUGH_MONEY]');
    expect(refused.logTypeId).to.equal(1);
    expect(refused.text).to.match(/retrying every 30 seconds until/);
    expect(await positionsOf(t, slave)).to.deep.equal([]);

    await t.service.services.venues.desk((venue) => venue.deposit(slaveLogin, 10_000, 'top up'));
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the retried copy');
    expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
  });

  it('without openRetry a refused open is logged once and not resent', async () => {
    const { master, slave } = await pair('no-retry');
    await copier(slave, { fromAccountId: master });
    const slaveLogin = await venueLogin(slave);
    await t.service.services.venues.desk((venue) => venue.deposit(slaveLogin, -9_990, 'leave 10 USD'));
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
    const refused = await logWith(slave, '[NOT_ENOUGH_MONEY]');
    expect(refused.text).not.to.match(/retrying/);
    await t.service.services.venues.desk((venue) => venue.deposit(slaveLogin, 10_000, 'top up'));
    await new Promise((r) => setTimeout(r, 600));
    expect(await positionsOf(t, slave)).to.deep.equal([]);
  });

  it('copies what the venue does by itself: a stop loss hit on the master closes the copy', async () => {
    const { master, slave } = await pair('stops');
    await copier(slave, { fromAccountId: master });
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.1, stopLoss: 2340 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { XAUUSD: [2339, 2339.25] });
    // The copy's own stop (2340 too) may fire first at the same tick: either way the slave ends flat.
    await bookWhere(t, slave, (b) => b.length === 0, 'the copy closed');
    expect(await positionsOf(t, master)).to.deep.equal([]);
    await pinQuotes(t, { XAUUSD: [2350, 2350.25] });
  });

  it('copies a position opened at the venue by other means, not through this service', async () => {
    const { master, slave } = await pair('elsewhere');
    await copier(slave, { fromAccountId: master, multiplier: 3 });
    const login = await venueLogin(master);
    // A second terminal on the same login, as a trader at the broker's own platform would have.
    const terminal = t.service.services.venues.simulated.connection({ login, password: 'secret-password' });
    await terminal.connect();
    await terminal.placeOrder({ symbol: 'EURUSD', orderType: 'sell', volume: 0.1 }, 'from-the-terminal');
    await t.service.services.venues.persist();
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy of the outside trade');
    expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Sell', volume: 0.3 });
    await terminal.disconnect();
  });

  it('a master close after the slave closed its copy by itself is logged, not an error', async () => {
    const { master, slave } = await pair('closed-first');
    await copier(slave, { fromAccountId: master });
    const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await t.call('DELETE', `/accounts/${slave}/positions/${copy!.id}`);
    await t.call('DELETE', `/accounts/${master}/positions/${id}`);
    const skip = await logWith(slave, 'NO_SLAVE_POSITION');
    expect(skip.text).to.match(/the slave holds no copy of that position/);
  });

  it('a stopped slave copies nothing and says why', async () => {
    const { master, slave } = await pair('stopped');
    await copier(slave, { fromAccountId: master });
    await t.call('POST', `/accounts/${slave}/actions/stop`);
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const skip = await logWith(slave, 'SLAVE_NOT_CONNECTED');
    expect(skip.text).to.match(/not started/);
  });

  it('scale type 1 (Balance) sizes by the two balances at the venue', async () => {
    const { master, slave } = await pair('ratio');
    await copier(slave, { fromAccountId: master, scaleType: { id: 1 } });
    // Master 10,000, slave 25,000: a 0.1 lot becomes 0.25.
    const slaveLogin = await venueLogin(slave);
    await t.service.services.venues.desk((venue) => venue.deposit(slaveLogin, 15_000, 'second deposit'));
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the sized copy');
    expect(copy!.volume).to.equal(0.25);
  });
});
