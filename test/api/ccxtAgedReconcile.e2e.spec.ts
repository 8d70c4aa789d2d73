// End to end (service, PostgreSQL, the fake Binance USDⓈ-M): a copy at the exchange whose opening and
// closing orders are both older than the 7 days allOrders answers by default is reconciled at a restart:
// the service tells the exchange adapter the position it knows open, the adapter reads the exchange's
// history back to its open time, and the close becomes one PositionClosed, not a position left open
// and told "gone at the venue without a closing trade" (engine/venues/ccxt/history.ts OlderOrders). The exchange keeps the
// service's clock (FakeExchange.clock): the copy is opened and seen while both read the same time, the
// position is closed at the exchange while the service is down, then the clock moves 9 days for both, so
// at the restart the opening and the closing order are older than the exchange's 7-day list.
// Nothing leaves 127.0.0.1.
import { expect } from 'chai';
import { positionsStream } from '../../domain/positions/events.js';
import type { ClosedTradeData } from '../../domain/positions/position.js';
import { ccxtServiceEnv, copierWithMapping, startedExchangeAccount } from '../support/ccxtService.js';
import { FakeExchange } from '../support/fakeExchange.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, movableClock, openPosition, pinQuotes, startedAccount } from '../support/trading.js';

const DAY = 86_400_000;

describe("ccxt venue end to end: a close older than the exchange's 7-day list, reconciled at a restart (fake Binance USDⓈ-M)", function () {
  this.timeout(180_000);
  let fake: FakeExchange;
  let t: TestService;
  const clock = movableClock();
  // The order stream off: every poll (200 ms) lists allOrders, so the spec can count polls.
  const env = () => ({ ...ccxtServiceEnv(fake, '12=ccxt:binanceusdm'), CCXT_STREAM: 'off' });

  before(async function () {
    this.timeout(300_000);
    await import('ccxt');
  });
  beforeEach(async () => {
    fake = new FakeExchange('binanceusdm');
    await fake.start();
    fake.addAccount('key-good', 'secret-good', { USDT: 10_000 });
    fake.clock = () => clock().getTime();
    t = await startTestService({ clock, env: env() });
    await pinQuotes(t, { BTCUSD: [65000, 65010] });
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  it('records once, at the restart, the close of a known position made 9 days ago while the service was down', async () => {
    const master = await startedAccount(t, 'Master');
    const slave = await startedExchangeAccount(t, { alias: 'Binance USDⓈ-M', type: 12, login: 'key-good', password: 'secret-good' });
    await copierWithMapping(t, slave, master, { multiplier: 1 }, { slaveSymbol: 'BTCUSDT' });
    await openPosition(t, master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
    const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy at the exchange', 30_000);
    expect(copy).to.include({ symbol: 'BTCUSDT', volume: 0.01 });
    const opening = fake.orders[0]!;

    const { databaseUrl, dataDir } = t;
    await t.stop();
    const closing = fake.placeManually('key-good', 'BTCUSDT', 'SELL', 0.01);
    clock.advance(9 * DAY);
    expect(fake.now() - opening.time, 'the opening order is older than allOrders answers by default').to.be.greaterThan(8 * DAY);
    expect(fake.now() - closing.time, 'so is the closing one').to.be.greaterThan(8 * DAY);
    t = await startTestService({ clock, env: env(), databaseUrl, dataDir });

    await bookWhere(t, slave, (book) => book.length === 0, 'the close reconciled', 30_000);
    // A few polls more (each lists allOrders once): nothing is recorded twice, nothing read back again.
    const polled = fake.requests.filter((r) => r === 'GET /fapi/v1/allOrders').length;
    await eventually(
      async () => (fake.requests.filter((r) => r === 'GET /fapi/v1/allOrders').length >= polled + 6 ? true : undefined),
      30_000,
      'three more polls',
    );
    const events: { type: string; data: unknown }[] = [];
    for await (const { event } of t.service.services.store.readStream(positionsStream(slave))) events.push(event);
    expect(events.filter((e) => e.type === 'PositionOpened')).to.have.length(1);
    const closes = events.filter((e) => e.type === 'PositionClosed').map((e) => (e.data as { trade: ClosedTradeData }).trade);
    expect(closes).to.have.length(1);
    // The trade under the copy's id, closed when and at what the exchange did 9 days ago: the close is
    // the fill, so its time is the order's updateTime (set when it filled, which on a moving clock can
    // be a millisecond after the order's `time`, its placing).
    expect(closes[0]).to.include({ positionId: copy!.id, volume: 0.01, closeTime: new Date(closing.updateTime).toISOString() });
    // Without the close found, reconcile.ts would record PositionGoneWithoutTrade instead (a warning in
    // the account's log, "gone at the venue without a closing trade").
    expect(events.filter((e) => e.type === 'PositionGoneWithoutTrade')).to.deep.equal([]);
  });
});
