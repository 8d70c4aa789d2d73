// End to end with cTrader's pending orders and protection, over the Trading API, against the local fake
// Open API endpoint (test/support/fakeCTrader.ts; nothing leaves 127.0.0.1): limit and stop orders
// placed (ProtoOANewOrderReq), amended (ProtoOAAmendOrderReq), cancelled (ProtoOACancelOrderReq) and
// filled when the price reaches them; a market position opened with stop loss and take profit (relative
// distances at cTrader), changed and removed (ProtoOAAmendPositionSLTPReq) and closed by its stop; refusals
// answered with the Trading API's codes and nothing changed; and a master at the simulated venue copied
// to a cTrader slave with its pending order and its protection.
import { expect } from 'chai';
import { positionsStream } from '../../domain/positions/events.js';
import { ORDER_TYPE, PT } from '../../engine/venues/ctrader/protocol.js';
import { CTID, ctraderAccount, ctraderEnv, startedFakeCTrader } from '../support/ctraderService.js';
import type { FakeCTrader } from '../support/fakeCTrader.js';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, marketHoursClock, modifyPosition, openPosition, pinQuotes, positionRequest, startedAccount } from '../support/trading.js';

describe('cTrader pending orders and stop loss / take profit end to end (fake Open API endpoint)', function () {
  this.timeout(120_000);
  let fake: FakeCTrader;
  let t: TestService;
  const clock = marketHoursClock();

  beforeEach(async () => {
    fake = await startedFakeCTrader(clock);
    t = await startTestService({ clock, env: ctraderEnv(fake) });
    await pinQuotes(t, { EURUSD: [1.085, 1.0852] });
  });
  afterEach(async () => {
    await t.stop();
    await fake.stop();
  });

  const eventTypes = async (account: string): Promise<string[]> => {
    const types: string[] = [];
    for await (const { event } of t.service.services.store.readStream(positionsStream(account))) types.push(event.type);
    return types;
  };

  it('places a limit order with its protection, amends it, cancels it, and refuses one on the wrong side of the market', async () => {
    const { id: account } = await ctraderAccount(t, 'cTrader', '7001', 'token-good');
    const orderId = await openPosition(t, account, { symbol: 'EURUSD', orderType: 'BuyLimit', volume: 0.1, openPrice: 1.08, stopLoss: 1.07, takeProfit: 1.1 });
    const [sent] = fake.pendingOf(CTID);
    expect(sent).to.deep.include({ orderType: ORDER_TYPE.LIMIT, limitPrice: 1.08, stopLoss: 1.07, takeProfit: 1.1 });
    expect(String(sent!.orderId)).to.equal(orderId);
    const [pending] = await bookWhere(t, account, (book) => book.length === 1, 'the pending order');
    expect(pending).to.include({ id: orderId, orderType: 'BuyLimit', volume: 0.1, openPrice: 1.08, stopLoss: 1.07, takeProfit: 1.1 });

    // Volume, price and take profit change; the stop loss is removed (0).
    const amended = await modifyPosition(t, account, orderId, { volume: 0.2, openPrice: 1.079, stopLoss: 0, takeProfit: 1.095 });
    expect(amended.status).to.equal(204);
    const [now] = fake.pendingOf(CTID);
    expect(now).to.deep.include({ limitPrice: 1.079, takeProfit: 1.095 });
    expect(now!.stopLoss).to.equal(undefined);
    expect(now!.tradeData.volume).to.equal(2_000_000);
    const [changed] = await bookWhere(t, account, (book) => book[0]?.openPrice === 1.079, 'the amended order');
    expect(changed).to.include({ volume: 0.2, stopLoss: 0, takeProfit: 1.095 });

    // A buy limit above the ask: cTrader refuses it, nothing is placed.
    const refused = await t.call('POST', `/accounts/${account}/positions`, {
      body: positionRequest({ symbol: 'EURUSD', orderType: 'BuyLimit', volume: 0.1, openPrice: 1.09 }),
    });
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.equal('[INVALID_PRICE]');
    expect(fake.pendingOf(CTID)).to.have.length(1);

    expect((await t.call('DELETE', `/accounts/${account}/positions/${orderId}`)).status).to.equal(204);
    expect(fake.pendingOf(CTID)).to.have.length(0);
    await bookWhere(t, account, (book) => book.length === 0, 'the order cancelled');
    expect((await t.call('DELETE', `/accounts/${account}/positions/${orderId}`)).status).to.equal(404);
    const types = await eventTypes(account);
    expect(types.filter((type) => type.startsWith('PendingOrder'))).to.deep.equal(['PendingOrderPlaced', 'PendingOrderModified', 'PendingOrderCancelled']);
  });

  it('fills a stop order when the price reaches it, as a position with the order protection', async () => {
    const { id: account } = await ctraderAccount(t, 'cTrader', '7001', 'token-good');
    const orderId = await openPosition(t, account, {
      symbol: 'EURUSD',
      orderType: 'SellStop',
      volume: 0.05,
      openPrice: 1.08,
      stopLoss: 1.09,
      takeProfit: 1.07,
    });
    expect(fake.pendingOf(CTID)[0]).to.deep.include({ orderType: ORDER_TYPE.STOP, stopPrice: 1.08 });
    fake.setPrice('EURUSD', 1.0798, 1.08);
    const [position] = await bookWhere(t, account, (book) => book.length === 1 && book[0]!.orderType === 'Sell', 'the filled stop order', 20_000);
    expect(position).to.include({ volume: 0.05, openPrice: 1.0798, stopLoss: 1.09, takeProfit: 1.07 });
    expect(position!.id).to.not.equal(orderId);
    const types = await eventually(
      async () => ((await eventTypes(account)).includes('PositionOpened') ? eventTypes(account) : undefined),
      20_000,
      'the fill recorded',
    );
    expect(types.filter((type) => type.startsWith('Pending') || type.startsWith('Position'))).to.deep.equal([
      'PendingOrderPlaced',
      'PendingOrderFilled',
      'PositionOpened',
    ]);
  });

  it('opens a market position with stop loss and take profit as relative distances, changes and removes them, and closes at its stop', async () => {
    const { id: account } = await ctraderAccount(t, 'cTrader', '7001', 'token-good');
    const positionId = await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.08, takeProfit: 1.09 });
    // Entry at the ask 1.0852: the stop loss 520 and the take profit 480 hundred-thousandths away.
    const [sent] = fake.frames.filter((frame) => frame.payloadType === PT.NEW_ORDER_REQ).map((frame) => frame.payload as Record<string, unknown>);
    expect(sent).to.include({ orderType: ORDER_TYPE.MARKET, relativeStopLoss: 520, relativeTakeProfit: 480 });
    expect(sent).to.not.have.any.keys('stopLoss', 'takeProfit');
    const [position] = await bookWhere(t, account, (book) => book.length === 1, 'the position');
    expect(position).to.include({ id: positionId, stopLoss: 1.08, takeProfit: 1.09 });
    expect(fake.positionsOf(CTID)[0]).to.deep.include({ stopLoss: 1.08, takeProfit: 1.09 });

    expect((await modifyPosition(t, account, positionId, { stopLoss: 1.081, takeProfit: 0 })).status).to.equal(204);
    const [atVenue] = fake.positionsOf(CTID);
    expect(atVenue!.stopLoss).to.equal(1.081);
    expect(atVenue!.takeProfit).to.equal(undefined);
    await bookWhere(t, account, (book) => book[0]?.stopLoss === 1.081 && book[0].takeProfit === 0, 'the changed protection');

    // A buy's stop loss above the market: cTrader refuses it; the position keeps its stop.
    const refused = await modifyPosition(t, account, positionId, { stopLoss: 1.09 });
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.equal('[INVALID_STOPS]');
    expect(fake.positionsOf(CTID)[0]!.stopLoss).to.equal(1.081);
    const amends = fake.requests.filter((type) => type === PT.AMEND_POSITION_SLTP_REQ).length;

    fake.setPrice('EURUSD', 1.0808, 1.081);
    await bookWhere(t, account, (book) => book.length === 0, 'the stop reached', 20_000);
    expect(fake.positionsOf(CTID)).to.have.length(0);
    const types = await eventually(
      async () => ((await eventTypes(account)).includes('PositionClosed') ? eventTypes(account) : undefined),
      20_000,
      'the close recorded',
    );
    expect(types.filter((type) => type === 'PositionModified')).to.have.length(1);
    expect(types.filter((type) => type === 'PositionClosed')).to.have.length(1);
    expect(amends).to.equal(2);
  });

  it('copies a master pending order with its protection to a cTrader slave, its change and its cancel', async () => {
    const master = await startedAccount(t, 'Master');
    const { id: slave } = await ctraderAccount(t, 'Slave', '7001', 'token-good');
    const copier = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, multiplier: 1, skipPendingOrders: false } });
    expect(copier.status).to.equal(200);
    const masterOrder = await openPosition(t, master, {
      symbol: 'EURUSD',
      orderType: 'BuyLimit',
      volume: 0.1,
      openPrice: 1.08,
      stopLoss: 1.07,
      takeProfit: 1.1,
    });
    const [copy] = await bookWhere(t, slave, (book) => book.length === 1, 'the pending copy at cTrader', 20_000);
    expect(copy).to.include({ orderType: 'BuyLimit', volume: 0.1, openPrice: 1.08, stopLoss: 1.07, takeProfit: 1.1 });
    expect(fake.pendingOf(CTID)[0]).to.deep.include({ limitPrice: 1.08, stopLoss: 1.07, takeProfit: 1.1 });
    expect((await modifyPosition(t, master, masterOrder, { openPrice: 1.079, stopLoss: 1.069, takeProfit: 1.1 })).status).to.equal(204);
    await bookWhere(t, slave, (book) => book[0]?.openPrice === 1.079 && book[0].stopLoss === 1.069, 'the copy amended', 20_000);
    expect((await t.call('DELETE', `/accounts/${master}/positions/${masterOrder}`)).status).to.equal(204);
    await bookWhere(t, slave, (book) => book.length === 0, 'the copy cancelled', 20_000);
    expect(fake.pendingOf(CTID)).to.have.length(0);
    expect(fake.requests.filter((type) => type === PT.NEW_ORDER_REQ)).to.have.length(1);
  });
});
