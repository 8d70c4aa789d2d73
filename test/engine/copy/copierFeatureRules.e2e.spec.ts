// Copier features at work, over HTTP against the simulated venue: the lot filter, the cooldown, the
// spread filter (with retry through the open-retry window), the trailing stop, the TP/SL management
// and a delayed execution.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, logsOf, movableClock, pinQuotes, positionsOf } from '../../support/trading.js';

describe('copier feature rules end to end', function () {
  this.timeout(60_000);
  let t: TestService;
  const clock = movableClock();

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009], XAUUSD: [2350, 2350.25] });
  });
  after(() => t?.stop());

  const pair = (name: string) => trading.copyPair(t, name);
  const feature = (slave: string, copierId: string, featureSetting: Record<string, unknown>) =>
    trading.addFeature(t, `/accounts/${slave}/copiers/${copierId}`, featureSetting);
  const open = (accountId: string, body: Record<string, unknown>) => trading.openPosition(t, accountId, body);
  const logWith = (accountId: string, code: string, timeoutMs = 5000) => trading.logWith(t, accountId, code, timeoutMs);

  it('the lot filter copies master lots inside its range and says why it skips the others', async () => {
    const { master, slave, copierId } = await pair('lot-filter');
    await feature(slave, copierId, { type: 'FeatureCopierFilterDTO', minLotSize: 0.1, maxLotSize: 1 });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.05 });
    const skip = await logWith(slave, 'LOT_FILTERED');
    expect(skip.text).to.match(/master lot 0\.05 is below the filter's minimum 0\.1/);
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.5 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy inside the range');
    expect(copy!.volume).to.equal(0.5);
  });

  it('the cooldown skips an open on the symbol just traded and its correlated partner, not another symbol', async () => {
    const { master, slave, copierId } = await pair('cooldown');
    await feature(slave, copierId, { type: 'FeatureTradeCooldownDTO', cooldownMinutes: 10, cooldownAnchor: 'OPEN', correlationGroups: [['EURUSD', 'GBPUSD']] });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the first copy');
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    const skip = await logWith(slave, 'COOLDOWN');
    expect(skip.text).to.match(/a Buy on EURUSD opened at .*: cooldown of 10 minutes until/);
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.01 });
    await bookWhere(t, slave, (b) => b.length === 2 && b.some((p) => p.symbol === 'XAUUSD'), 'the uncorrelated copy');
  });

  it('the spread filter holds an open back while the spread is too wide and copies it once it narrows within the open-retry window', async () => {
    const { master, slave, copierId } = await pair('spread');
    await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { openRetry: true, openRetryTimeoutInMinutes: 5 } });
    await feature(slave, copierId, { type: 'FeatureSpreadFilterDTO', threshold: 15, retryOnBlock: true });
    await pinQuotes(t, { GBPUSD: [1.27, 1.2705] });
    await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    const held = await logWith(slave, 'FeatureSpreadFilterDTO');
    expect(held.text).to.match(/held back by FeatureSpreadFilterDTO until/);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    // The spread narrows; the deferral falls due 30 s later on the service clock: move the clock on.
    await pinQuotes(t, { GBPUSD: [1.27, 1.27009] });
    clock.advance(31_000);
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy after the spread narrowed', 10_000);
    expect(copy).to.deep.include({ symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
  });

  it('the spread filter without retry skips at once and says how wide the spread was', async () => {
    const { master, slave, copierId } = await pair('spread-skip');
    await feature(slave, copierId, { type: 'FeatureSpreadFilterDTO', threshold: 15 });
    await pinQuotes(t, { XAUUSD: [2350, 2351] });
    await open(master, { symbol: 'XAUUSD', orderType: 'Sell', volume: 0.01 });
    const skip = await logWith(slave, 'SPREAD_TOO_WIDE');
    expect(skip.text).to.match(/slave spread is 100 points, above 15/);
    await pinQuotes(t, { XAUUSD: [2350, 2350.25] });
  });

  it('the trailing stop opens the copy with its initial stop and moves it behind the price once the gain reaches the threshold', async () => {
    const { master, slave, copierId } = await pair('trailing');
    await feature(slave, copierId, {
      type: 'FeatureTrailingStopDTO',
      activationThresholdPoints: 300,
      initialStopLossPoints: 100,
      minimumDistancePoints: 200,
      trailingStepPoints: 50,
      symbolsConfiguration: { XAUUSD: { initialStopLossPoints: 500 } },
    });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    // Entry at the ask 1.0851: the initial stop 100 points (0.00100) below it.
    const [opened] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    expect(opened!.stopLoss).to.equal(1.0841);
    await pinQuotes(t, { EURUSD: [1.0905, 1.0906] });
    // Gain 540 points >= 300: the stop trails 200 points behind the bid.
    const [trailed] = await bookWhere(t, slave, (b) => b[0]?.stopLoss === 1.0885, 'the trailed stop loss', 10_000);
    expect(trailed!.stopLoss).to.equal(1.0885);
    expect((await positionsOf(t, master))[0]!.stopLoss).to.equal(0);
    await pinQuotes(t, { EURUSD: [1.085, 1.0851] });
    // Gold has its own initial stop: 500 points (5.00) below the ask 2350.25.
    await pinQuotes(t, { XAUUSD: [2350, 2350.25] });
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.01 });
    const gold = await bookWhere(t, slave, (b) => b.some((p) => p.symbol === 'XAUUSD'), 'the gold copy');
    expect(gold.find((p) => p.symbol === 'XAUUSD')!.stopLoss).to.equal(2345.25);
  });

  it('the skip position judges a trade on a configured symbol by its own members and the others by the general ones', async () => {
    const { master, slave, copierId } = await pair('skip-per-symbol');
    await feature(slave, copierId, {
      type: 'FeatureSkipPositionDTO',
      ifTpNotDefined: true,
      symbolsConfiguration: { EURUSD: { ifTpNotDefined: false, ifSlNotDefined: true } },
    });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, takeProfit: 1.09 });
    const skipped = await logWith(slave, 'POSITION_SKIPPED');
    expect(skipped.text).to.match(/EURUSD.*it has no stop loss/);
    await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.26 });
    await eventually(
      async () => ((await logsOf(t, slave)).filter((l) => l.code === 'POSITION_SKIPPED').length === 2 ? true : undefined),
      5000,
      'the GBPUSD skip',
    );
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.08 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the EURUSD copy with a stop loss');
    expect(copy).to.deep.include({ symbol: 'EURUSD', stopLoss: 1.08 });
  });

  it("the TP/SL management widens the master's stops by its extra points, at the open and at the master's later change", async () => {
    const { master, slave, copierId } = await pair('tpsl-extra');
    await feature(slave, copierId, { type: 'FeatureTpSlManagementDTO', additionalSlPoints: 50, additionalTpPoints: 30 });
    await pinQuotes(t, { XAUUSD: [2350, 2350.25] });
    const id = await open(master, { symbol: 'XAUUSD', orderType: 'Sell', volume: 0.01, stopLoss: 2360, takeProfit: 2340 });
    // Gold has 2 digits: 50 points are 0.50, 30 points 0.30; a sell's stop loss goes up, its take profit down.
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the widened copy');
    expect(copy).to.deep.include({ stopLoss: 2360.5, takeProfit: 2339.7 });
    expect((await trading.modifyPosition(t, master, id, { stopLoss: 2355, takeProfit: 2330 })).status).to.equal(204);
    await bookWhere(t, slave, (b) => b[0]?.stopLoss === 2355.5 && b[0]?.takeProfit === 2329.7, 'the widened change');
  });

  it("the TP/SL management keeps the master's distances from a copy that opened at another price", async () => {
    const { master, slave, copierId } = await pair('tpsl-distance');
    await feature(slave, copierId, { type: 'FeatureTpSlManagementDTO', adjustWithMasterDistance: true });
    await feature(slave, copierId, { type: 'FeatureDelayedExecutionDTO', minDelayOpen: 2, maxDelayOpen: 2 });
    await pinQuotes(t, { GBPUSD: [1.27, 1.27009] });
    const id = await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.268, takeProfit: 1.275 });
    await logWith(slave, 'FeatureDelayedExecutionDTO');
    // The market moves while the open is held back: the copy opens 100 points higher.
    await pinQuotes(t, { GBPUSD: [1.271, 1.27109] });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the delayed copy', 10_000);
    expect(copy).to.deep.include({ openPrice: 1.27109, stopLoss: 1.269, takeProfit: 1.276 });
    // The master moves its stop to 100 points below its entry: the copy's goes 100 points below its own.
    expect((await trading.modifyPosition(t, master, id, { stopLoss: 1.26909 })).status).to.equal(204);
    await bookWhere(t, slave, (b) => b[0]?.stopLoss === 1.27009, 'the change at the same distance');
    await pinQuotes(t, { GBPUSD: [1.27, 1.27009] });
  });

  it('a delayed execution copies the open only when its delay has run out', async () => {
    const { master, slave, copierId } = await pair('delayed');
    await feature(slave, copierId, { type: 'FeatureDelayedExecutionDTO', minDelayOpen: 3, maxDelayOpen: 3 });
    await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.2 });
    await logWith(slave, 'FeatureDelayedExecutionDTO');
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the delayed copy', 10_000);
    expect(copy).to.deep.include({ orderType: 'Sell', volume: 0.2 });
  });
});
