// The ccxt adapter's private order stream (engine/venues/ccxt/stream.ts) against the fake exchange's
// WebSocket streams (test/support/fakeExchangeStream.ts) in each dialect it reads: Binance spot's
// WebSocket API, Binance USDⓈ-M's listenKey stream, Bybit v5's and OKX v5's private streams. The poll is slowed to
// 10 minutes while the stream is live, so a change told in time came through the stream. Nothing leaves
// 127.0.0.1.
import { expect } from 'chai';
import type { CcxtConnection } from '../../../engine/venues/ccxt/connection.js';
import type { VenueChange } from '../../../engine/venues/port.js';
import { ccxtSpecHarness, until } from '../../support/ccxtVenue.js';
import type { FakeDialect, FakeExchange } from '../../support/fakeExchange.js';

/** The ccxt base class every pro exchange makes its WebSocket clients with (Exchange.client). */
let ccxtModule: { Exchange: { prototype: unknown } } | null = null;
const ccxtBase = () => ccxtModule!.Exchange.prototype as { client: (url: string) => { keepAlive: number } };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Until the fake has had no request for half a second (the poll made when the stream opened is over). */
const quiet = async (fake: FakeExchange): Promise<void> => {
  for (let seen = -1; seen !== fake.requests.length;) {
    seen = fake.requests.length;
    await pause(500);
  }
};

const CASES: readonly { dialect: FakeDialect; server: string; orderList: RegExp; symbol?: string; passphrase?: string }[] = [
  { dialect: 'binance', server: 'sandbox', orderList: /^GET \/api\/v3\/(allOrders|openOrders|account)/ },
  { dialect: 'binanceusdm', server: 'demo', orderList: /^GET \/fapi\/v\d\/(allOrders|openOrders|positionRisk)/ },
  // Bybit's positions are read at a streamed fill (their own stops): the orders are not.
  { dialect: 'bybit', server: 'demo', orderList: /^GET \/v5\/order\// },
  { dialect: 'okx', server: 'demo', orderList: /^GET \/api\/v5\/(trade\/orders|account\/balance)/, symbol: 'BTC-USDT', passphrase: 'pass-1' },
];

for (const c of CASES) {
  const symbol = c.symbol ?? 'BTCUSDT';
  describe(`ccxt order stream against the fake ${c.dialect}`, function () {
    this.timeout(60_000);
    const spec = ccxtSpecHarness({
      dialect: c.dialect,
      settings: { CCXT_POLL_MS: '100', CCXT_STREAM_POLL_MS: '600000' },
      server: c.server,
    });
    const { infos, warnings } = spec;

    const connect = async (): Promise<{ connection: CcxtConnection; changes: VenueChange[] }> => {
      const connection = spec.connection();
      const changes: VenueChange[] = [];
      connection.subscribe((change) => changes.push(change));
      await connection.connect();
      connection.follow([symbol]);
      return { connection, changes };
    };

    before(async () => {
      ccxtModule = (await import('ccxt')) as unknown as { Exchange: { prototype: unknown } };
    });
    it('tells a fill made at the exchange from the stream, without reading the orders, and once when the poll reads it again or the stream repeats it', async () => {
      const { connection, changes } = await connect();
      await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
      expect(connection.statusMessage).to.equal('connected; order stream live');
      await quiet(spec.fake); // the next poll is in 10 minutes
      const before = spec.fake.requests.length;
      spec.fake.streams.repeat = true;
      spec.fake.placeManually('key-1', symbol, 'BUY', 0.01);
      await until('the fill told', () => changes.some((ch) => ch.type === 'positionOpened'));
      expect(
        spec.fake.requests.slice(before).filter((r) => c.orderList.test(r)),
        'no order read',
      ).to.deep.equal([]);
      expect(spec.fake.streams.sent).to.be.at.least(4);
      await connection.refresh(); // the poll reads the same fill
      spec.fake.placeManually('key-1', symbol, 'SELL', 0.01);
      await until('the close told', () => changes.some((ch) => ch.type === 'positionClosed'));
      await connection.refresh();
      expect(changes.map((ch) => ch.type)).to.deep.equal(['positionOpened', 'positionClosed']);
      const [opened, closed] = changes as [Extract<VenueChange, { type: 'positionOpened' }>, Extract<VenueChange, { type: 'positionClosed' }>];
      expect(opened.position).to.include({ symbol, orderType: 'buy', volume: 0.01 });
      expect(closed.trade).to.include({ positionId: opened.position.id, volume: 0.01 });
    });

    it('says the stream is down, polls meanwhile, reconnects with backoff and tells each fill once across the outage', async () => {
      const { connection, changes } = await connect();
      await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
      spec.fake.streams.down = true;
      await until('the stream down', () => /order stream down after \d+ failures/.test(connection.statusMessage));
      expect(connection.statusMessage).to.match(/^connected; order stream down after \d+ failures \(.+\); polling meanwhile, reconnecting with backoff$/);
      expect(warnings.some((w) => /the order stream failed/.test(w))).to.equal(true);
      spec.fake.placeManually('key-1', symbol, 'BUY', 0.01);
      await until('the fill polled', () => changes.some((ch) => ch.type === 'positionOpened'));
      spec.fake.streams.down = false;
      await until('the stream live again', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage), 40_000);
      await until('the reconnection logged', () => infos.some((m) => /order stream is open again after \d+ failures; polling once for what it missed/.test(m)));
      await quiet(spec.fake);
      const before = spec.fake.requests.length;
      spec.fake.placeManually('key-1', symbol, 'SELL', 0.01);
      await until('the close streamed', () => changes.some((ch) => ch.type === 'positionClosed'));
      expect(
        spec.fake.requests.slice(before).filter((r) => c.orderList.test(r)),
        'no order read',
      ).to.deep.equal([]);
      await connection.refresh();
      expect(changes.map((ch) => ch.type)).to.deep.equal(['positionOpened', 'positionClosed']);
    });

    it('answers the keep-alive pings, and a socket that stops answering them is dropped and opened again', async () => {
      // ccxt pings every keepAlive (Bybit's op ping, OKX's text ping, Binance's protocol ping frames) and
      // gives up on a socket after two unanswered: shortened here so the spec sees several rounds.
      const base = ccxtBase();
      const made = base.client;
      base.client = function (this: unknown, url: string) {
        const ws = made.call(this, url);
        ws.keepAlive = 300;
        return ws;
      };
      try {
        const { connection } = await connect();
        await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
        const heard = spec.fake.streams.pings;
        const warned = warnings.length;
        await until('pings heard and answered', () => spec.fake.streams.pings >= heard + 4);
        expect(connection.statusMessage, 'still live after several keep-alive rounds').to.equal('connected; order stream live');
        expect(warnings.slice(warned)).to.deep.equal([]);
        spec.fake.streams.deaf = true;
        await until('the dead socket dropped', () => warnings.slice(warned).some((w) => /the order stream failed \(.*ping-pong keepalive/.test(w)));
        spec.fake.streams.deaf = false;
        await until('the stream live again', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage), 40_000);
        await until('the reconnection logged', () => infos.some((m) => /order stream is open again after \d+ failures/.test(m)));
      } finally {
        base.client = made;
      }
    });

    // OKX and Bybit tell an order's cumulative fee on the order itself, streamed or listed; Binance each
    // fill's commission, in its trade list and on the streamed fill (fees.ts), so the stream reads no list
    // (and a repeated event is not charged twice).
    it("puts the streamed fill's fee in the position's commission and the closed trade's, as the poll reads them", async () => {
      spec.fake.feeRate = 0.001;
      const { connection, changes } = await connect();
      await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
      await quiet(spec.fake);
      spec.fake.streams.repeat = true;
      const before = spec.fake.requests.length;
      const buy = spec.fake.placeManually('key-1', symbol, 'BUY', 0.01);
      await until('the fill told', () => changes.some((ch) => ch.type === 'positionOpened'));
      // Binance and OKX spot took the buy's fee from the coins bought (0.00999 held): what is held is sold.
      const held = c.dialect === 'binance' || c.dialect === 'okx' ? Math.round(spec.fake.balance('key-1', 'BTC') * 1e8) / 1e8 : 0.01;
      const sell = spec.fake.placeManually('key-1', symbol, 'SELL', held);
      await until('the close told', () => changes.some((ch) => ch.type === 'positionClosed'));
      expect(
        spec.fake.requests.slice(before).filter((r) => c.orderList.test(r) || /myTrades|userTrades/.test(r)),
        'no order or trade list read',
      ).to.deep.equal([]);
      expect(buy.fee).to.be.greaterThan(0);
      const [opened, closed] = changes as [Extract<VenueChange, { type: 'positionOpened' }>, Extract<VenueChange, { type: 'positionClosed' }>];
      expect(opened.position.commission).to.be.closeTo(-buy.fee, 1e-8);
      expect(opened.position.volume).to.equal(held);
      expect(closed.trade.volume).to.equal(held);
      expect(closed.trade.commission).to.be.closeTo(-(buy.fee + sell.fee), 1e-8);
      // The poll reads the same fees: nothing new, and the same trade in the history.
      await connection.refresh();
      expect(changes.map((ch) => ch.type)).to.deep.equal(['positionOpened', 'positionClosed']);
      const history = await connection.history('2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');
      expect(history.map((t) => t.kind === 'trade' && t.commission)).to.deep.equal([closed.trade.commission]);
    });

    // Bybit's stop loss and take profit are the position's: set there, the order stream does not tell them.
    if (c.dialect === 'bybit') {
      it('opens the stream without asking again over REST whether the account is unified', async () => {
        const { connection } = await connect();
        await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
        // ccxt asks both at once, so they may arrive in either order.
        const asked = spec.fake.requests.filter((r) => r === 'GET /v5/user/query-api' || r === 'GET /v5/account/info').sort();
        expect(asked, 'asked by the REST client only').to.deep.equal(['GET /v5/account/info', 'GET /v5/user/query-api']);
      });

      it("reads the position's own stop loss and take profit once on a streamed fill, without reading the orders", async () => {
        const { connection, changes } = await connect();
        await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
        await quiet(spec.fake);
        const before = spec.fake.requests.length;
        spec.fake.placeManually('key-1', symbol, 'BUY', 0.01);
        await until('the fill told', () => changes.some((ch) => ch.type === 'positionOpened'));
        // The owner sets them on the position at Bybit, then adds to it.
        Object.assign(spec.fake.accounts.get('key-1')!.positions.get(symbol)!, { stopLoss: 60_000, takeProfit: 70_000 });
        spec.fake.placeManually('key-1', symbol, 'BUY', 0.01);
        await until('the addition told', () => changes.some((ch) => ch.type === 'positionIncreased'));
        const increased = changes.find((ch) => ch.type === 'positionIncreased') as Extract<VenueChange, { type: 'positionIncreased' }>;
        expect(increased.position).to.include({ volume: 0.02, stopLoss: 60_000, takeProfit: 70_000 });
        const read = spec.fake.requests.slice(before);
        expect(
          read.filter((r) => /^GET \/v5\/order\//.test(r)),
          'no order read',
        ).to.deep.equal([]);
        expect(read.filter((r) => r === 'GET /v5/position/list').length, 'the positions read once a fill').to.equal(2);
        await connection.refresh();
        expect(changes.map((ch) => ch.type)).to.deep.equal(['positionOpened', 'positionIncreased']);
      });
    }

    // USDⓈ-M's stream is opened with a listenKey the REST key asks for: no signature of its own to refuse.
    if (c.dialect !== 'binanceusdm') {
      it('a stream whose login is refused says it is down, with the reason, and is not open', async () => {
        const { connection } = await connect();
        await until('the stream is live', () => spec.fake.streams.open === 1 && /order stream live/.test(connection.statusMessage));
        // The key's secret (OKX: its passphrase) changed at the exchange, then the stream dropped.
        spec.fake.addAccount('key-1', 'secret-2', { USDT: 10_000 }, c.passphrase ? 'pass-2' : null);
        spec.fake.streams.down = true;
        spec.fake.streams.down = false;
        // Bybit asks its REST API (account info) before the stream's auth: refused there first.
        if (c.dialect !== 'bybit') await until('the login refused', () => spec.fake.streams.refused > 0);
        await until('the stream down', () => /order stream (down|reconnecting) after \d+ failures/.test(connection.statusMessage));
        expect(spec.fake.streams.open).to.equal(0);
        expect(warnings.some((w) => /the order stream failed/.test(w))).to.equal(true);
      });
    }
  });
}
