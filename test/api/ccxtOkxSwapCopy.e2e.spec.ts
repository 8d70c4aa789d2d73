// End to end with OKX swaps: account type 15 routed to the ccxt target okxswap (OKX's USDT-margined
// perpetual swaps through ccxt's okx class), ccxt pointed at the local fake OKX (nothing leaves
// 127.0.0.1). One contract of BTC-USDT-SWAP is 0.01 BTC (ctVal), so a copy that converts by contract
// size turns the master's BTC into contracts, rounded to lotSz; the master's stop loss and take profit
// reach the swap as OKX's algo order and follow the master's changes.
import { expect } from 'chai';
import { ccxtServiceEnv, copierWithMapping, startedExchangeAccount } from '../support/ccxtService.js';
import { FakeExchange } from '../support/fakeExchange.js';
import { okxAlgos } from '../support/fakeExchangeOkxAlgo.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, marketHoursClock, modifyPosition, openPosition, pinQuotes, startedAccount } from '../support/trading.js';

const SWAP = 'BTC-USDT-SWAP';

describe('ccxt venue end to end (fake OKX swaps, okxswap)', function () {
  this.timeout(120_000);
  let fake: FakeExchange;
  let t: TestService;
  const clock = marketHoursClock();
  const liveLegs = () =>
    okxAlgos(fake)
      .filter((a) => a.state === 'live')
      .map((a) => [a.slTriggerPx, a.tpTriggerPx]);

  before(async function () {
    this.timeout(300_000);
    await import('ccxt');
  });
  beforeEach(async () => {
    fake = new FakeExchange('okx');
    await fake.start();
    fake.addAccount('key-good', 'secret-good', { USDT: 10_000 }, 'pass-good');
    t = await startTestService({ clock, env: ccxtServiceEnv(fake, '15=ccxt:okxswap') });
    await pinQuotes(t, { BTCUSD: [65000, 65010] });
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  it("copies a simulated master's open with its stops in contracts of ctVal, follows a stop change, and closes it", async () => {
    const master = await startedAccount(t, 'Master');
    const slave = await startedExchangeAccount(t, { alias: 'okx swaps', type: 15, login: 'key-good', password: 'secret-good:pass-good' });
    await copierWithMapping(t, slave, master, { multiplier: 1.2345, ignoreContractSize: false }, { slaveSymbol: SWAP });

    const masterPosition = await openPosition(t, master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01, stopLoss: 60000, takeProfit: 70000 });
    const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the copy at the exchange', 20_000);
    // 0.01 BTC × 1.2345 = 0.012345 BTC = 1.2345 contracts of 0.01 BTC, rounded down to lotSz 0.01.
    expect(copy).to.include({ symbol: SWAP, orderType: 'Buy', volume: 1.23, stopLoss: 60000, takeProfit: 70000 });
    expect(fake.orders.map((o) => [o.side, o.type, o.origQty])).to.deep.equal([['BUY', 'MARKET', 1.23]]);
    expect(liveLegs()).to.deep.equal([[60000, 70000]]);

    const moved = await modifyPosition(t, master, masterPosition, { stopLoss: 61000 });
    expect(moved.status, JSON.stringify(moved.body)).to.be.oneOf([200, 204]);
    await bookWhere(t, slave, (book) => book[0]?.stopLoss === 61000, "the copy's stop loss moved", 20_000);
    expect(liveLegs()).to.deep.equal([[61000, 70000]]);

    expect((await t.call('DELETE', `/accounts/${master}/positions/${masterPosition}`)).status).to.be.oneOf([200, 204]);
    await bookWhere(t, slave, (book) => book.length === 0, 'the copy closed at the exchange', 20_000);
    expect(fake.orders.map((o) => [o.side, o.origQty])).to.deep.equal([
      ['BUY', 1.23],
      ['SELL', 1.23],
    ]);
    await eventually(async () => (liveLegs().length === 0 ? true : undefined), 20_000, 'no stop left on the flat swap');
  });

  it('places a stop order through the Trading API as a trigger algo order, and reads back the closes it and a take profit made with their reasons', async () => {
    const account = await startedExchangeAccount(t, { alias: 'okx stops', type: 15, login: 'key-good', password: 'secret-good:pass-good' });
    const closes = async (count: number) =>
      eventually(
        async () => {
          const res = await t.call('GET', `/accounts/${account}/history/positions?start=2000-01-01T00:00:00Z&stop=2100-01-01T00:00:00Z`);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          const entries = res.body as { placedType: string; closeReason: string; volume: number }[];
          return entries.length >= count ? entries.map((e) => [e.placedType, e.closeReason, e.volume]) : undefined;
        },
        20_000,
        `${count} closes in the history`,
      );
    await openPosition(t, account, { symbol: SWAP, orderType: 'Buy', volume: 1 });
    const stop = await openPosition(t, account, { symbol: SWAP, orderType: 'SellStop', volume: 1, openPrice: 64000 });
    await bookWhere(
      t,
      account,
      (book) => book.some((p) => p.id === stop && p.orderType === 'SellStop' && p.openPrice === 64000),
      'the stop order pending',
      20_000,
    );
    expect(okxAlgos(fake).map((a) => [a.ordType, a.side, a.triggerPx, a.sz, a.state])).to.deep.equal([['trigger', 'sell', 64000, 1, 'live']]);
    // The stop order the service placed closes the position: not a stop loss of the position's, and placed by the service.
    fake.setPrice(SWAP, 63900, 63900.1);
    await bookWhere(t, account, (book) => book.length === 0, 'the position closed by the stop order', 20_000);
    expect(await closes(1)).to.deep.equal([['ByExpert', 'manual', 1]]);
    await openPosition(t, account, { symbol: SWAP, orderType: 'Sell', volume: 2, takeProfit: 63000 });
    fake.setPrice(SWAP, 62900, 62900.1);
    await bookWhere(t, account, (book) => book.length === 0, 'the short closed by its take profit', 20_000);
    expect((await closes(2)).sort()).to.deep.equal([
      ['ByExpert', 'manual', 1],
      ['OnTP', 'takeProfit', 2],
    ]);
  });
});
