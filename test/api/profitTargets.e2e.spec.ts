// Profit targets end to end (spec "Profit target lock", FeatureDaily/Weekly/MonthlyProfitTargetDTO,
// FeatureOverallTargetDTO): over HTTP against the simulated venue with pinned prices. US500: no spread,
// no commission, 10 USD per point and lot; BTCUSD (every day of the week): 0.1 USD per dollar and 0.1
// lot. TIME_ZONE is America/New_York: the day begins at 05:00 UTC in winter.
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/service.js';
import { bookWhere, eventually, featureBody, movableClock, pinQuotes, positionRequest, positionsOf, startedAccount } from '../support/trading.js';

interface LogEntry {
  readonly text: string;
  readonly code: string | null;
  readonly category: string;
}

interface Lock {
  readonly profitTargetFeatureId: string;
  readonly type: string;
  readonly level: string;
  readonly symbol: string | null;
  readonly until: string | null;
  readonly measured: number;
  readonly action: string;
}

describe('profit targets end to end', function () {
  this.timeout(120_000);
  // Wednesday 7 January 2026, 10:00 in New York.
  const clock = movableClock(Date.parse('2026-01-07T15:00:00.000Z'));
  let t: TestService;
  const moveTo = (iso: string) => clock.advance(Math.max(0, Date.parse(iso) - clock().getTime()));

  before(async () => {
    t = await startTestService({ clock, env: { TIME_ZONE: 'America/New_York' } });
    await pinQuotes(t, { US500: [5200, 5200], BTCUSD: [65_000, 65_000] });
  });
  after(() => t?.stop());

  const open = async (accountId: string, body: Record<string, unknown>) => {
    const res = await t.call('POST', `/accounts/${accountId}/positions`, { body: positionRequest(body) });
    expect(res.status, JSON.stringify(res.body)).to.equal(204);
    return res.headers.get('x-position-id')!;
  };
  const flat = async (...accounts: string[]) => {
    for (const id of accounts) {
      expect((await t.call('POST', `/accounts/${id}/actions/closeAllPositions`)).status).to.equal(204);
      await bookWhere(t, id, (b) => b.length === 0, 'a flat account');
    }
  };
  /** Every account of the specs: flat after each, so a failed spec leaves no position to slow the venue's catching up with the clock. */
  const accounts: string[] = [];
  afterEach(async () => {
    for (const id of accounts.splice(0)) await t.call('POST', `/accounts/${id}/actions/closeAllPositions`).catch(() => undefined);
  });
  const pair = async (name: string) => {
    const master = await startedAccount(t, `${name}-master`);
    const slave = await startedAccount(t, `${name}-slave`);
    accounts.push(master, slave);
    expect((await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master } })).status).to.equal(200);
    return { master, slave };
  };
  const logs = async (accountId: string): Promise<LogEntry[]> => (await t.call('GET', `/accounts/${accountId}/logs?limit=1000`)).body as LogEntry[];
  const logWith = (accountId: string, code: string, category: string, timeoutMs = 10_000) =>
    eventually(async () => (await logs(accountId)).find((l) => l.code === code && l.category === category), timeoutMs, `a ${code} log entry`);
  const addTarget = async (accountId: string, featureSetting: Record<string, unknown>) => {
    const res = await t.call('POST', `/accounts/${accountId}/features`, { body: featureBody(featureSetting) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    await logWith(accountId, featureSetting.type === 'FeatureOverallTargetDTO' ? 'OVERALL_REFERENCE' : 'PERIOD_REFERENCE', 'PROTECTION');
    return res.body as { featureId: string; setting: Record<string, unknown> };
  };
  const locks = async (accountId: string): Promise<Lock[]> => {
    const res = await t.call('GET', `/accounts/${accountId}/information`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.profitTargetsLocked as Lock[];
  };
  const locksWhere = (accountId: string, count: number) =>
    eventually(
      async () => {
        const now = await locks(accountId);
        return now.length === count ? now : undefined;
      },
      10_000,
      `${count} locked profit target(s)`,
    );
  const ticks = async (n = 1) => {
    for (let i = 0; i < n; i++) await t.service.protection.afterNextTick();
  };
  const skips = async (accountId: string, code: string) => (await logs(accountId)).filter((l) => l.code === code && l.category === 'COPY').length;

  it('a daily target stays open below it, locks at it closing every position, skips new opens, and unlocks on the next New York day', async () => {
    const { master, slave } = await pair('daily');
    const feature = await addTarget(slave, { type: 'FeatureDailyProfitTargetDTO', dailyAbsoluteProfitTarget: 300 });
    expect(feature.setting).to.deep.equal({
      dailyAbsoluteProfitTarget: 300,
      dailyRelativeProfitTarget: 0,
      autoResetIfBalanceIsBelow: 0,
      resetOnBalanceChange: false,
      pauseInsteadOfClose: false,
      trackByOpenDate: false,
    });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');

    await pinQuotes(t, { US500: [5220, 5220] });
    await ticks();
    expect(await locks(slave), 'a profit of 200 is below 300').to.deep.equal([]);
    const status = async () => (await t.call('GET', `/accounts/${slave}/information`)).body.profitTargetsStatus as Record<string, unknown>[];
    const [open0] = await status();
    expect(open0).to.deep.include({ profitTargetFeatureId: feature.featureId, profitTargetIsHit: false, referenceBalance: 10_000 });
    expect(open0!.balanceLastUpdate).to.be.a('string');

    await pinQuotes(t, { US500: [5230, 5230] });
    const [lock] = await locksWhere(slave, 1);
    expect(lock).to.deep.include({
      profitTargetFeatureId: feature.featureId,
      type: 'FeatureDailyProfitTargetDTO',
      level: 'TARGET',
      measured: 300,
      action: 'CLOSE_ALL',
      until: '2026-01-08T05:00:00.000Z',
    });
    expect(await status()).to.deep.equal([{ ...open0, profitTargetIsHit: true }]);
    await bookWhere(t, slave, (b) => b.length === 0, 'every position closed by the lock');
    expect((await logWith(slave, 'PROFIT_TARGET_LOCKED', 'PROTECTION')).text).to.match(
      /profit 300\.00 USD since the start of day 2026-01-07 reached dailyAbsoluteProfitTarget 300\.00 USD/,
    );

    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await logWith(slave, 'PROFIT_TARGET_LOCKED', 'COPY');
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    await flat(master);

    moveTo('2026-01-08T04:59:50.000Z');
    await ticks();
    expect(await locks(slave), '23:59:50 in New York').to.have.length(1);
    moveTo('2026-01-08T05:00:05.000Z');
    await locksWhere(slave, 0);
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again on the next day');
    await flat(master, slave);
  });

  it("with pauseInsteadOfClose keeps positions and follows the master's closes; the reset resumes copying the same day", async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await pair('pause');
    const feature = await addTarget(slave, { type: 'FeatureDailyProfitTargetDTO', dailyAbsoluteProfitTarget: 300, pauseInsteadOfClose: true });
    const a = await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'two copies');

    await pinQuotes(t, { US500: [5215, 5215] });
    const [lock] = await locksWhere(slave, 1);
    expect(lock).to.deep.include({ action: 'STOP_COPYING', measured: 300 });
    await ticks();
    expect(await positionsOf(t, slave), 'kept while paused').to.have.length(2);
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await logWith(slave, 'PROFIT_TARGET_LOCKED', 'COPY');
    expect((await t.call('DELETE', `/accounts/${master}/positions/${a}`)).status).to.equal(204);
    await bookWhere(t, slave, (b) => b.length === 1, "the master's close copied while locked");

    const unknown = await t.call('PUT', `/accounts/${slave}/profitTargets/${crypto.randomUUID()}/reset`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error).to.equal('[FEATURE_NOT_FOUND]');
    const collector = await t.call('POST', `/accounts/${slave}/features`, { body: featureBody({ type: 'FeatureDataCollectorDTO' }) });
    expect((await t.call('PUT', `/accounts/${slave}/profitTargets/${collector.body.featureId}/reset`)).status, 'not a profit target').to.equal(404);

    const reset = await t.call('PUT', `/accounts/${slave}/profitTargets/${feature.featureId}/reset`);
    expect(reset.status, JSON.stringify(reset.body)).to.equal(200);
    expect(await locks(slave)).to.deep.equal([]);
    await logWith(slave, 'PROTECTION_RESET', 'PROTECTION');
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'copying resumed the same day');
    await flat(master, slave);
  });

  it('the overall target locks one symbol at its own target, then the whole account at the loss limit, again after a reset while still beyond', async () => {
    await pinQuotes(t, { US500: [5200, 5200], BTCUSD: [65_000, 65_000] });
    const { master, slave } = await pair('overall');
    const feature = await addTarget(slave, {
      type: 'FeatureOverallTargetDTO',
      referenceBalance: 10_000,
      lossLimitAmount: 250,
      symbolsConfiguration: [{ symbol: 'US500', profitTargetAmount: 100 }],
    });
    expect(feature.setting).to.deep.include({
      referenceMode: 'EQUITY',
      pauseInsteadOfClose: false,
      adjustReferenceOnBalanceChange: true,
      profitTargetAmount: 0,
    });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await open(master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.05 });
    await bookWhere(t, slave, (b) => b.length === 2, 'two copies');

    await pinQuotes(t, { US500: [5210, 5210] });
    const [symbolLock] = await locksWhere(slave, 1);
    expect(symbolLock).to.deep.include({ type: 'FeatureOverallTargetDTO', level: 'TARGET', symbol: 'US500', until: null, measured: 100 });
    const [left] = await bookWhere(t, slave, (b) => b.length === 1, 'the US500 copy closed, BTCUSD kept');
    expect(left!.symbol).to.equal('BTCUSD');
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 0.1 });
    await logWith(slave, 'OVERALL_TARGET_REACHED', 'COPY');
    await open(master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.05 });
    await bookWhere(t, slave, (b) => b.length === 2, 'BTCUSD still copied');

    // +100 realised; 0.1 lot of BTCUSD down 3,500: -350 floating; equity 9,750
    await pinQuotes(t, { BTCUSD: [61_500, 61_500] });
    const both = await locksWhere(slave, 2);
    expect(both.map((l) => [l.level, l.symbol])).to.deep.equal([
      ['TARGET', 'US500'],
      ['LOSS_LIMIT', null],
    ]);
    await bookWhere(t, slave, (b) => b.length === 0, 'everything closed at the loss limit');
    expect((await logWith(slave, 'OVERALL_LOSS_LIMIT_REACHED', 'PROTECTION')).text).to.match(
      /^Overall loss limit reached: equity 9750\.00 is 250\.00 USD below the reference 10000\.00/,
    );

    expect((await t.call('PUT', `/accounts/${slave}/profitTargets/${feature.featureId}/reset`)).status).to.equal(200);
    const again = await locksWhere(slave, 1);
    expect(again[0], 'still 250 below: locked again at the next check').to.deep.include({ level: 'LOSS_LIMIT' });
    const widened = await t.call('PUT', `/accounts/${slave}/features/${feature.featureId}`, {
      body: featureBody({ type: 'FeatureOverallTargetDTO', referenceBalance: 10_000, lossLimitAmount: 500 }),
    });
    expect(widened.status, JSON.stringify(widened.body)).to.equal(200);
    expect((await t.call('PUT', `/accounts/${slave}/profitTargets/${feature.featureId}/reset`)).status).to.equal(200);
    await ticks();
    expect(await locks(slave)).to.deep.equal([]);
    const before = await skips(slave, 'OVERALL_TARGET_REACHED');
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again after raising the loss limit');
    expect(await skips(slave, 'OVERALL_TARGET_REACHED')).to.equal(before);
    await flat(master, slave);
  });

  it('a weekly target locks until Monday 00:00 in New York', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await pair('weekly');
    await addTarget(slave, { type: 'FeatureWeeklyProfitTargetDTO', weeklyRelativeProfitTarget: 2 });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { US500: [5220, 5220] });
    const [lock] = await locksWhere(slave, 1);
    expect(lock).to.deep.include({ type: 'FeatureWeeklyProfitTargetDTO', measured: 200, until: '2026-01-12T05:00:00.000Z' });
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by the lock');
    await flat(master);

    moveTo('2026-01-12T04:59:50.000Z');
    await ticks();
    expect(await locks(slave)).to.have.length(1);
    moveTo('2026-01-12T05:00:05.000Z');
    await locksWhere(slave, 0);
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again in the new week');
    await flat(master, slave);
  });

  it('a monthly target locks until the 1st of the next month in New York', async () => {
    await pinQuotes(t, { BTCUSD: [65_000, 65_000] });
    const { master, slave } = await pair('monthly');
    await addTarget(slave, { type: 'FeatureMonthlyProfitTargetDTO', monthlyAbsoluteProfitTarget: 200 });
    await open(master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { BTCUSD: [67_000, 67_000] });
    const [lock] = await locksWhere(slave, 1);
    expect(lock).to.deep.include({ type: 'FeatureMonthlyProfitTargetDTO', measured: 200, until: '2026-02-01T05:00:00.000Z' });
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by the lock');
    await flat(master);

    moveTo('2026-02-01T04:59:50.000Z');
    await ticks();
    expect(await locks(slave)).to.have.length(1);
    moveTo('2026-02-01T05:00:05.000Z');
    await locksWhere(slave, 0);
    await open(master, { symbol: 'BTCUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again in February');
    await flat(master, slave);
  });
});
