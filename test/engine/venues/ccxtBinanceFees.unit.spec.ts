// Binance's fees in the ccxt adapter (engine/venues/ccxt/fees.ts): its orders carry none, its account
// trade lists do (spot /api/v3/myTrades, USDⓈ-M /fapi/v1/userTrades). Polled here (the stream's side is in
// ccxtStream.unit), against the fake exchange, whose fills charge feeRate of their value. Nothing leaves
// 127.0.0.1.
import { expect } from 'chai';
import type { CcxtConnection } from '../../../engine/venues/ccxt/connection.js';
import type { ClosedTrade, OpenPosition } from '../../../engine/venues/port.js';
import { ccxtSpecHarness } from '../../support/ccxtVenue.js';
import type { FakeDialect } from '../../support/fakeExchange.js';

const CASES: readonly { dialect: FakeDialect; tradeList: string }[] = [
  { dialect: 'binance', tradeList: 'GET /api/v3/myTrades' },
  { dialect: 'binanceusdm', tradeList: 'GET /fapi/v1/userTrades' },
];
const ALL_TIME = ['2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z'] as const;

for (const c of CASES) {
  describe(`ccxt venue: ${c.dialect}'s fees from its trade list`, () => {
    const spec = ccxtSpecHarness({ dialect: c.dialect, settings: { CCXT_STREAM: 'off' } });
    beforeEach(() => {
      spec.fake.feeRate = 0.001;
    });
    const connect = async (): Promise<CcxtConnection> => {
      const connection = await spec.connect();
      connection.follow(['BTCUSDT']);
      return connection;
    };
    const tradeReads = () => spec.fake.requests.filter((r) => r === c.tradeList).length;
    const openPosition = async (connection: CcxtConnection) => (await connection.positions()).find((p): p is OpenPosition => p.kind === 'position');
    const trades = async (connection: CcxtConnection) =>
      (await connection.history(...ALL_TIME)).filter((h): h is ClosedTrade => h.kind === 'trade').map((t) => ({ id: t.id, commission: t.commission }));

    it("charges the position its opening fill's commission and the closed trade both, the same after a restart", async () => {
      const first = await connect();
      await first.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'fees-open');
      const position = await openPosition(first);
      const [buyFee] = spec.fake.orders.map((o) => o.fee);
      expect(buyFee, 'the fake charged a fee').to.be.greaterThan(0.5);
      expect(position!.commission).to.be.closeTo(-buyFee!, 1e-8);
      const trade = await first.closePosition(position!.id, undefined, 'fees-close');
      const sellFee = spec.fake.orders[1]!.fee;
      expect(trade.commission).to.be.closeTo(-(buyFee! + sellFee), 1e-8);
      await first.disconnect();

      const later = await connect();
      expect(await trades(later)).to.deep.equal([{ id: trade.id, commission: trade.commission }]);
    });

    it('reads a fill once: each poll asks for the fills after the last one read, one request a market', async () => {
      const connection = await connect();
      await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'once-open');
      const position = await openPosition(connection);
      await connection.closePosition(position!.id, undefined, 'once-close');
      const before = tradeReads();
      await connection.refresh();
      await connection.refresh();
      expect(tradeReads() - before).to.equal(2);
      expect(spec.fake.requests.filter((r) => r.startsWith(`${c.tradeList}`)).length).to.be.at.least(2);
      const [trade] = await trades(connection);
      expect(trade!.commission).to.be.closeTo(-(spec.fake.orders[0]!.fee + spec.fake.orders[1]!.fee), 1e-8);
    });

    it('leaves a commission paid in a third coin (BNB) uncounted', async () => {
      spec.fake.feeAsset = 'BNB';
      spec.fake.addAccount('key-1', 'secret-1', { USDT: 10_000, BNB: 10 });
      const connection = await connect();
      await connection.placeOrder({ symbol: 'BTCUSDT', orderType: 'buy', volume: 0.01 }, 'bnb-open');
      expect(spec.fake.balance('key-1', 'BNB')).to.be.below(10);
      const position = await openPosition(connection);
      expect(position!.commission).to.equal(0);
      const trade = await connection.closePosition(position!.id, undefined, 'bnb-close');
      expect(trade.commission).to.equal(0);
    });
  });
}
