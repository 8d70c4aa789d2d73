// End to end with a crypto exchange's private order stream (engine/venues/ccxt/stream.ts): a master at
// the fake exchange (Binance spot, Binance USDⓈ-M, Bybit v5, OKX v5, each speaking its WebSocket protocol:
// test/support/fakeExchangeStream.ts) trades by hand at the exchange, and its slave at the simulated
// venue copies it. The poll is slowed to 10 minutes while the stream is live, so a copy made in time
// came from the stream; the fill is one PositionOpened however often the stream and the poll tell it.
// When the stream drops, the account says so and the poll takes over; when it is back, it says live.
import { expect } from 'chai';
import { positionsStream } from '../../domain/positions/events.js';
import { ccxtServiceEnv, copierWithMapping, startedExchangeAccount } from '../support/ccxtService.js';
import { type FakeDialect, FakeExchange } from '../support/fakeExchange.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, marketHoursClock, pinQuotes, startedAccount } from '../support/trading.js';

const DIALECTS: readonly { dialect: FakeDialect; type: number; server: string; symbol?: string; passphrase?: string }[] = [
  { dialect: 'binance', type: 11, server: 'sandbox' },
  { dialect: 'binanceusdm', type: 12, server: 'demo' },
  { dialect: 'bybit', type: 13, server: 'demo' },
  { dialect: 'okx', type: 14, server: 'demo', symbol: 'BTC-USDT', passphrase: 'pass-good' },
];

for (const d of DIALECTS) {
  const symbol = d.symbol ?? 'BTCUSDT';
  describe(`ccxt order stream end to end (fake ${d.dialect})`, function () {
    this.timeout(120_000);
    let fake: FakeExchange;
    let t: TestService;
    const clock = marketHoursClock();

    const statusOf = async (account: string): Promise<string> => (await t.call('GET', `/accounts/${account}`)).body.statusMessage as string;
    const opened = async (account: string): Promise<number> => {
      let count = 0;
      for await (const { event } of t.service.services.store.readStream(positionsStream(account))) if (event.type === 'PositionOpened') count += 1;
      return count;
    };

    before(async function () {
      this.timeout(300_000);
      await import('ccxt');
    });
    beforeEach(async () => {
      fake = new FakeExchange(d.dialect);
      await fake.start();
      fake.addAccount('key-good', 'secret-good', { USDT: 10_000 }, d.passphrase ?? null);
      t = await startTestService({ clock, env: { ...ccxtServiceEnv(fake, `${d.type}=ccxt:${d.dialect}`), CCXT_STREAM_POLL_MS: '600000' } });
      await pinQuotes(t, { BTCUSD: [65000, 65010] });
    });
    afterEach(async () => {
      await t.stop();
      await fake.stop();
    });

    it('copies fills made at the exchange as the stream tells them, once each, and polls while the stream is down', async () => {
      const master = await startedExchangeAccount(t, {
        alias: 'Exchange master',
        type: d.type,
        loginServer: d.server,
        login: 'key-good',
        password: d.passphrase ? `secret-good:${d.passphrase}` : 'secret-good',
      });
      const slave = await startedAccount(t, 'Simulated slave');
      await copierWithMapping(t, slave, master, { multiplier: 1 }, { masterSymbol: symbol, slaveSymbol: 'BTCUSD' });
      await eventually(async () => ((await statusOf(master)) === 'connected; order stream live' ? true : undefined), 30_000, 'the stream live');

      fake.streams.repeat = true;
      fake.placeManually('key-good', symbol, 'BUY', 0.01);
      const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy of the streamed fill', 30_000);
      expect(copy).to.include({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 });
      // The poll reads the same fill (positions are read from the exchange): still one position, one copy.
      const positions = await t.call('GET', `/accounts/${master}/positions`);
      expect(positions.status).to.equal(200);
      expect(await opened(master)).to.equal(1);
      expect(await opened(slave)).to.equal(1);

      fake.streams.repeat = false;
      fake.streams.down = true;
      const down = await eventually(
        async () => {
          const status = await statusOf(master);
          return /order stream down after \d+ failures/.test(status) ? status : undefined;
        },
        30_000,
        'the stream down in statusMessage',
      );
      expect(down).to.match(/^connected; order stream down after \d+ failures \(.+\); polling meanwhile, reconnecting with backoff$/);
      fake.placeManually('key-good', symbol, 'SELL', 0.01);
      await bookWhere(t, slave, (book) => book.length === 0, 'the close copied from the poll', 30_000);
      fake.streams.down = false;
      await eventually(async () => ((await statusOf(master)) === 'connected; order stream live' ? true : undefined), 60_000, 'the stream live again');
      expect(await opened(master)).to.equal(1);
      expect(await opened(slave)).to.equal(1);
    });
  });
}
