// The CopierDTO members of the reference that the engine honours, end to end over HTTP against the
// simulated venue, each with a copier as a reference client would create it: skipPendingOrders,
// copyStopLoss / copyTakeProfit, maxOpenPositions, maxSlippage, openRetry with
// openRetryTimeoutInMinutes 0. The rules themselves: test/domain/copy/decision.unit.spec.ts and
// sizing.unit.spec.ts.
import { expect } from 'chai';
import { simulatedLogin } from '../../../engine/venues/host.js';
import { startTestService, type TestService } from '../../support/service.js';
import { bookWhere, copyPair, logWith, marketHoursClock, modifyPosition, openPosition, pinQuotes, positionsOf } from '../../support/trading.js';

describe('copier members of the reference, end to end', function () {
  this.timeout(60_000);
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock: marketHoursClock(), openRetryIntervalMs: 200 });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], XAUUSD: [2350, 2350.25] });
  });
  after(() => t?.stop());

  const open = (accountId: string, body: Record<string, unknown>) => openPosition(t, accountId, body);
  const closeAll = (accountId: string) => t.call('POST', `/accounts/${accountId}/actions/closeAllPositions`);

  it('skipPendingOrders (the default): a pending order is not copied, the log says why, and its fill is copied as a position', async () => {
    const { master, slave } = await copyPair(t, 'pending', { scaleType: { id: 4 }, multiplier: 2 });
    await open(master, { symbol: 'EURUSD', orderType: 'BuyLimit', volume: 0.1, openPrice: 1.08 });
    const skip = await logWith(t, slave, 'PENDING_ORDER_SKIPPED');
    expect(skip.text).to.match(/pending orders are not copied \(skipPendingOrders\); its fill will be copied as a position/);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    await pinQuotes(t, { EURUSD: [1.0799, 1.08] });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the fill copied as a position');
    expect(copy).to.deep.include({ orderType: 'Buy', volume: 0.2 });
    await closeAll(master);
    await bookWhere(t, slave, (b) => b.length === 0, 'the close');
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
  });

  it('copyStopLoss false and copyTakeProfit true: the copy has the take profit only, and follows its changes', async () => {
    const { master, slave } = await copyPair(t, 'stops', { copyStopLoss: false, copyTakeProfit: true });
    const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.08, takeProfit: 1.09 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    expect(copy).to.deep.include({ stopLoss: 0, takeProfit: 1.09 }); // PositionDTO: 0 = none
    expect((await modifyPosition(t, master, id, { stopLoss: 1.081, takeProfit: 1.095 })).status).to.equal(204);
    const [moved] = await bookWhere(t, slave, (b) => b[0]?.takeProfit === 1.095, 'the take profit move');
    expect(moved!.stopLoss).to.equal(0);
    await closeAll(master);
    await bookWhere(t, slave, (b) => b.length === 0, 'the close');
  });

  it('maxOpenPositions: an open beyond the copies held is skipped with the reason; a close frees a place', async () => {
    const { master, slave } = await copyPair(t, 'max-open', { maxOpenPositions: 1 });
    const first = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the first copy');
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.01 });
    const skip = await logWith(t, slave, 'MAX_OPEN_POSITIONS_REACHED');
    expect(skip.text).to.match(/holds 1 open copies, its maxOpenPositions is 1/);
    expect(await t.call('DELETE', `/accounts/${master}/positions/${first}`)).to.have.property('status', 204);
    await bookWhere(t, slave, (b) => b.length === 0, 'the first copy closed');
    await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1 && b[0]!.orderType === 'Sell', 'a copy in the freed place');
    await closeAll(master);
    await bookWhere(t, slave, (b) => b.length === 0, 'the close');
  });

  it('maxSlippage: a market copy at the master price is placed (the slave quote is read for it)', async () => {
    const { master, slave } = await copyPair(t, 'slippage', { maxSlippage: 30 });
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.01 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy within the slippage');
    expect(copy).to.deep.include({ symbol: 'XAUUSD', orderType: 'Buy' });
    await closeAll(master);
    await bookWhere(t, slave, (b) => b.length === 0, 'the close');
  });

  it('openRetry with openRetryTimeoutInMinutes 0 resends while the master holds the position, and ends when it closes', async () => {
    const { master, slave } = await copyPair(t, 'retry-endless', { openRetry: true, openRetryTimeoutInMinutes: 0 });
    const slaveLogin = simulatedLogin((await t.call('GET', `/accounts/${slave}`)).body);
    await t.service.services.venues.desk((venue) => venue.deposit(slaveLogin, -9_990, 'leave 10 USD'));
    const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
    const refused = await logWith(t, slave, '[NOT_ENOUGH_MONEY]');
    expect(refused.text).to.match(/retrying every 30 seconds while the master holds the position/);
    expect(await t.call('DELETE', `/accounts/${master}/positions/${id}`)).to.have.property('status', 204);
    const ended = await logWith(t, slave, 'OPEN_RETRY_EXPIRED');
    expect(ended.text).to.match(/no longer retried: the master closed the position/);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
  });
});
