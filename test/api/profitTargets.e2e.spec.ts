// Profit targets end to end (spec "Profit target lock", FeatureDaily/Weekly/MonthlyProfitTargetDTO as the
// reference defines them, FeatureOverallTargetDTO): over HTTP against the simulated venue with pinned
// prices, with the reference's own example values: on a balance of 1000, dailyRelativeProfitTarget 300
// and dailyAbsoluteProfitTarget 1300 both lock at 1300, and the default dailyProfitTarget 2 at 1020.
// US500: no spread, no commission, 10 USD per point and lot (a slave of 1000 copies a 1-lot master at
// 0.1 lot: 1 USD per point); BTCUSD (every day of the week): 0.1 USD per dollar and 0.1 lot. TIME_ZONE
// is America/New_York: weeks and months begin at 05:00 UTC in winter; the daily target's days begin at
// its resetTime, 00:00 UTC by default.
import { expect } from 'chai';
import { simulatedLogin } from '../../engine/venues/host.js';
import { v5 as uuidv5 } from 'uuid';
import { type ProtectionEvent, protectionEventKey, protectionStream } from '../../domain/protection/events.js';
import { PROTECTION_EVENT_NAMESPACE } from '../../engine/protection/monitor.js';
import { loadReference, referenceComponentValidator, referenceErrors } from '../support/reference.js';
import { startTestService, type TestService } from '../support/service.js';
import {
  bookWhere,
  eventually,
  dataCollectorBody,
  featureBody,
  movableClock,
  pinQuotes,
  positionRequest,
  positionsOf,
  startedAccount,
} from '../support/trading.js';

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

const DEFAULT = '2023-12-30 00:00:00+00:00';

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
  const pair = async (name: string, copier: Record<string, unknown> = {}) => {
    const master = await startedAccount(t, `${name}-master`);
    const slave = await startedAccount(t, `${name}-slave`);
    accounts.push(master, slave);
    expect((await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master, ...copier } })).status).to.equal(200);
    return { master, slave };
  };
  /**
   * A pair whose slave has a balance of 1000 (9000 withdrawn before any target is set), as the
   * reference's examples; its copier scales by balance (scaleType 1): a 1-lot master is copied at 0.1 lot.
   */
  const pairOfThousand = async (name: string) => {
    const p = await pair(name, { scaleType: { id: 1 } });
    await withdraw(p.slave, 9_000);
    return p;
  };
  const withdraw = async (accountId: string, amount: number) => {
    const login = simulatedLogin((await t.call('GET', `/accounts/${accountId}`)).body);
    await t.service.services.venues.desk((venue) => venue.deposit(login, -amount, 'withdrawal'));
  };
  const logs = async (accountId: string): Promise<LogEntry[]> => (await t.call('GET', `/accounts/${accountId}/logs?limit=1000`)).body as LogEntry[];
  const logWith = (accountId: string, code: string, category: string, timeoutMs = 10_000) =>
    eventually(async () => (await logs(accountId)).find((l) => l.code === code && l.category === category), timeoutMs, `a ${code} log entry`);
  /** A period target's answered setting is the reference's branch: every member it defines, with its types. */
  const expectReferenceSetting = (type: string, setting: Record<string, unknown>) => {
    const validate = referenceComponentValidator(type);
    expect(validate(setting), referenceErrors(validate)).to.equal(true);
    expect(Object.keys(setting)).to.include.members(Object.keys(loadReference().components!.schemas![type]!.properties!));
  };
  const addTarget = async (accountId: string, featureSetting: Record<string, unknown>) => {
    const res = await t.call('POST', `/accounts/${accountId}/features`, { body: featureBody(featureSetting) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    if (featureSetting.type !== 'FeatureOverallTargetDTO') expectReferenceSetting(String(featureSetting.type), res.body.setting);
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

  it('dailyRelativeProfitTarget 300 on a balance of 1000 locks at 1300 (not at 300), closing every position, skipping new opens, until 00:00 UTC', async () => {
    const { master, slave } = await pairOfThousand('daily');
    const feature = await addTarget(slave, { type: 'FeatureDailyProfitTargetDTO', dailyProfitTarget: 0, dailyRelativeProfitTarget: 300 });
    expect(feature.setting).to.deep.equal({
      dailyProfitTarget: 0,
      dailyRelativeProfitTarget: 300,
      dailyAbsoluteProfitTarget: 0,
      autoResetIfBalanceIsBelow: false,
      resetTime: DEFAULT,
      pauseInsteadOfClose: false,
      resetOnBalanceChange: false,
      trackByOpenDate: false,
    });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    expect(copy!.volume, 'balance 1000 against 10000').to.equal(0.1);

    await pinQuotes(t, { US500: [5499, 5499] });
    await ticks(2);
    expect(await locks(slave), 'equity 1299 is below 1300').to.deep.equal([]);
    const status = async () => (await t.call('GET', `/accounts/${slave}/information`)).body.profitTargetsStatus as Record<string, unknown>[];
    const [open0] = await status();
    expect(open0).to.deep.include({ profitTargetFeatureId: feature.featureId, profitTargetIsHit: false, referenceBalance: 1_000 });
    expect(open0!.balanceLastUpdate).to.be.a('string');

    await pinQuotes(t, { US500: [5500, 5500] });
    const [lock] = await locksWhere(slave, 1);
    expect(lock).to.deep.include({
      profitTargetFeatureId: feature.featureId,
      type: 'FeatureDailyProfitTargetDTO',
      level: 'TARGET',
      measured: 300,
      action: 'CLOSE_ALL',
      until: '2026-01-08T00:00:00.000Z',
    });
    expect(await status()).to.deep.equal([{ ...open0, profitTargetIsHit: true }]);
    await bookWhere(t, slave, (b) => b.length === 0, 'every position closed by the lock');
    expect((await logWith(slave, 'PROFIT_TARGET_LOCKED', 'PROTECTION')).text).to.match(
      /equity 1300\.00 USD, 300\.00 USD above the balance at the start of day 2026-01-07, reached dailyRelativeProfitTarget 300\.00 above the balance 1000\.00 \(1300\.00 USD\)/,
    );

    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await logWith(slave, 'PROFIT_TARGET_LOCKED', 'COPY');
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    await flat(master);

    moveTo('2026-01-07T23:59:50.000Z');
    await ticks();
    expect(await locks(slave), '23:59:50 UTC').to.have.length(1);
    moveTo('2026-01-08T00:00:05.000Z');
    await locksWhere(slave, 0);
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again on the next day');
    await flat(master, slave);
  });

  it('in close mode the lock closes positions placed outside the service too, also those opened while it lasts, each logged', async () => {
    const { master, slave } = await pairOfThousand('daily-outside');
    await addTarget(slave, { type: 'FeatureDailyProfitTargetDTO', dailyProfitTarget: 0, dailyRelativeProfitTarget: 300 });
    const login = simulatedLogin((await t.call('GET', `/accounts/${slave}`)).body);
    /** A trade placed in the broker's terminal (no client order id of ours), as the service's venue session reports it. */
    const terminalTrade = async (volume: number): Promise<string> => {
      const placed = await t.service.services.venues.desk((venue) => venue.terminalTrade(login, { symbol: 'US500', orderType: 'buy', volume }));
      const id = placed.status === 'filled' ? placed.positionId : null;
      if (id === null) throw new Error(`terminal trade: ${JSON.stringify(placed)}`);
      return id;
    };
    // The spec before this one leaves US500 at 5500: open at 5200, as the arithmetic below expects.
    await pinQuotes(t, { US500: [5200, 5200] });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    const before = await terminalTrade(0.1);
    await bookWhere(t, slave, (b) => b.length === 2, 'the copy and the outside position');
    // Two 0.1-lot positions: 2 USD per point; 1000 + 2 x 150 = 1300.
    await pinQuotes(t, { US500: [5350, 5350] });
    await locksWhere(slave, 1);
    await bookWhere(t, slave, (b) => b.length === 0, 'the copy and the outside position closed by the lock');
    const closedByLock = await logWith(slave, 'PROTECTION_POSITIONS_CLOSED', 'PROTECTION');
    expect(closedByLock.text).to.include(`#${before}`);

    const during = await terminalTrade(0.2);
    await bookWhere(t, slave, (b) => b.length === 0, 'the position opened outside the service while locked, closed', 10_000);
    const closedWhileLocked = await logWith(slave, 'PROTECTION_LOCKED_POSITION_CLOSED', 'PROTECTION');
    expect(closedWhileLocked.text).to.match(
      new RegExp(
        `^Protection .* \\(FeatureDailyProfitTargetDTO\\) locks the account until 2026-01-0\\dT00:00:00\\.000Z, closing what opens meanwhile: closed position #${during} \\(0\\.2 lots US500, placed outside the service\\)$`,
      ),
    );
    await ticks(2);
    expect(
      (await logs(slave)).filter((l) => l.code === 'PROTECTION_LOCKED_POSITION_CLOSED'),
      'logged once',
    ).to.have.length(1);
    await flat(master);
  });

  it('finishes a close while locked that a crash cut short, with the same client request id: the venue closes once, the log says it once', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const slave = await startedAccount(t, 'lock-crash');
    accounts.push(slave);
    await withdraw(slave, 9_000);
    const feature = await addTarget(slave, { type: 'FeatureDailyProfitTargetDTO', dailyProfitTarget: 0, dailyRelativeProfitTarget: 300 });
    const login = simulatedLogin((await t.call('GET', `/accounts/${slave}`)).body);
    const placed = await t.service.services.venues.desk((venue) => venue.terminalTrade(login, { symbol: 'US500', orderType: 'buy', volume: 0.1 }));
    const positionId = placed.status === 'filled' ? placed.positionId! : '';
    await bookWhere(t, slave, (b) => b.length === 1, 'the outside position');
    // As if an earlier run, its account locked, decided the close, sent it, and died before recording the outcome.
    const requestId = crypto.randomUUID();
    const decided: ProtectionEvent = {
      type: 'ProtectionLockedCloseDecided',
      data: {
        accountId: slave,
        triggerId: `${feature.featureId}|crash|TARGET|*`,
        ruleId: feature.featureId,
        ruleType: 'FeatureDailyProfitTargetDTO',
        positionId,
        kind: 'position',
        symbol: 'US500',
        volume: 0.1,
        outside: true,
        until: null,
        requestId,
        at: clock().toISOString(),
      },
    };
    await t.service.services.store.appendToStream(protectionStream(slave), [
      { id: uuidv5(protectionEventKey(decided), PROTECTION_EVENT_NAMESPACE), type: decided.type, data: decided.data, metadata: {} },
    ]);
    const venue = t.service.services.venues.venueFor(1).connection({ login, password: 'secret-password' });
    await venue.connect();
    await venue.closePosition(positionId, undefined, requestId);
    await venue.disconnect();
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by the cut-short run');
    // The monitor watches the account (it has a target) and finishes the decision with its request id.
    const entry = await logWith(slave, 'PROTECTION_LOCKED_POSITION_CLOSED', 'PROTECTION');
    expect(entry.text).to.equal(
      `Protection ${feature.featureId} (FeatureDailyProfitTargetDTO) locks the account until it is reset, closing what opens meanwhile: closed position #${positionId} (0.1 lots US500, placed outside the service)`,
    );
    await ticks(2);
    expect((await logs(slave)).filter((l) => l.code === 'PROTECTION_LOCKED_POSITION_CLOSED')).to.have.length(1);
    const trades = await t.service.services.venues.desk(async (v) => {
      const c = v.connection({ login, password: 'secret-password' });
      await c.connect();
      const entries = await c.history(new Date(0).toISOString(), new Date(clock().getTime() + 86_400_000).toISOString());
      await c.disconnect();
      return entries.filter((e) => e.kind === 'trade' && e.positionId === positionId);
    });
    expect(trades, 'one closing trade').to.have.length(1);
  });

  it('finishes a close a crash cut short after its lock ended and its rule went: recorded as done, in the log once', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const slave = await startedAccount(t, 'lock-ended');
    accounts.push(slave);
    await withdraw(slave, 9_000);
    const feature = await addTarget(slave, { type: 'FeatureDailyProfitTargetDTO', dailyProfitTarget: 0, dailyRelativeProfitTarget: 300 });
    const login = simulatedLogin((await t.call('GET', `/accounts/${slave}`)).body);
    const placed = await t.service.services.venues.desk((venue) => venue.terminalTrade(login, { symbol: 'US500', orderType: 'buy', volume: 0.1 }));
    const positionId = placed.status === 'filled' ? placed.positionId! : '';
    await bookWhere(t, slave, (b) => b.length === 1, 'the outside position');
    // The target goes: the monitor has no rule of the account left to look at.
    expect((await t.call('DELETE', `/accounts/${slave}/features/${feature.featureId}`)).status).to.be.oneOf([200, 204]);
    await ticks(2);
    // As if an earlier run decided the close while locked, sent it and died; the lock ended before the restart.
    const requestId = crypto.randomUUID();
    const triggerId = `${feature.featureId}|ended|TARGET|*`;
    const decided: ProtectionEvent = {
      type: 'ProtectionLockedCloseDecided',
      data: {
        accountId: slave,
        triggerId,
        ruleId: feature.featureId,
        ruleType: 'FeatureDailyProfitTargetDTO',
        positionId,
        kind: 'position',
        symbol: 'US500',
        volume: 0.1,
        outside: true,
        until: null,
        requestId,
        at: clock().toISOString(),
      },
    };
    const ended: ProtectionEvent = {
      type: 'ProtectionCleared',
      data: { accountId: slave, ruleId: feature.featureId, triggerIds: [triggerId], reason: 'RULE_REMOVED', at: clock().toISOString() },
    };
    const venue = t.service.services.venues.venueFor(1).connection({ login, password: 'secret-password' });
    await venue.connect();
    await venue.closePosition(positionId, undefined, requestId);
    await venue.disconnect();
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by the cut-short run');
    await t.service.services.store.appendToStream(
      protectionStream(slave),
      [decided, ended].map((e) => ({ id: uuidv5(protectionEventKey(e), PROTECTION_EVENT_NAMESPACE), type: e.type, data: e.data, metadata: {} })),
    );
    const entry = await logWith(slave, 'PROTECTION_LOCKED_POSITION_CLOSED', 'PROTECTION');
    expect(entry.text).to.equal(
      `Protection ${feature.featureId} (FeatureDailyProfitTargetDTO) locks the account until it is reset, closing what opens meanwhile: closed position #${positionId} (0.1 lots US500, placed outside the service)`,
    );
    await ticks(2);
    expect((await logs(slave)).filter((l) => l.code === 'PROTECTION_LOCKED_POSITION_CLOSED')).to.have.length(1);
  });

  it("dailyAbsoluteProfitTarget 1300 on a balance of 1000 with pauseInsteadOfClose keeps positions and follows the master's closes; a reset at the level locks again, one below it resumes copying the same day", async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await pairOfThousand('pause');
    const feature = await addTarget(slave, {
      type: 'FeatureDailyProfitTargetDTO',
      dailyProfitTarget: 0,
      dailyAbsoluteProfitTarget: 1_300,
      pauseInsteadOfClose: true,
    });
    const a = await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 2, 'two copies');

    await pinQuotes(t, { US500: [5349, 5349] });
    await ticks(2);
    expect(await locks(slave), 'equity 1298').to.deep.equal([]);
    await pinQuotes(t, { US500: [5350, 5350] });
    const [lock] = await locksWhere(slave, 1);
    expect(lock).to.deep.include({ action: 'STOP_COPYING', measured: 300 });
    expect((await logWith(slave, 'PROFIT_TARGET_LOCKED', 'PROTECTION')).text).to.match(/reached dailyAbsoluteProfitTarget 1300\.00 USD\./);
    await ticks();
    expect(await positionsOf(t, slave), 'kept while paused').to.have.length(2);
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await logWith(slave, 'PROFIT_TARGET_LOCKED', 'COPY');
    expect((await t.call('DELETE', `/accounts/${master}/positions/${a}`)).status).to.equal(204);
    const [kept] = await bookWhere(t, slave, (b) => b.length === 1, "the master's close copied while locked");
    // The Trading API of the locked account: opens refused with the lock's code, closes allowed.
    for (const path of ['positions', 'orders']) {
      const refused = await t.call('POST', `/accounts/${slave}/${path}`, { body: positionRequest({ symbol: 'US500', orderType: 'Buy', volume: 0.1 }) });
      expect(refused.status, path).to.equal(409);
      expect(refused.body.error, path).to.equal('[PROFIT_TARGET_LOCKED]');
      expect(refused.body.message, path).to.match(/^the account is locked, nothing new opens on it until the lock ends or is reset: Profit target .* locked/);
    }
    expect(await positionsOf(t, slave), 'nothing opened').to.have.length(1);
    expect((await t.call('DELETE', `/accounts/${slave}/positions/${kept!.id}`)).status, 'a close while locked').to.equal(204);
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by hand while locked');

    const unknown = await t.call('PUT', `/accounts/${slave}/profitTargets/${crypto.randomUUID()}/reset`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error).to.equal('[FEATURE_NOT_FOUND]');
    const collector = await t.call('POST', `/accounts/${slave}/features`, { body: dataCollectorBody() });
    expect((await t.call('PUT', `/accounts/${slave}/profitTargets/${collector.body.featureId}/reset`)).status, 'not a profit target').to.equal(404);

    const reset = async (unlockedAfter = true) => {
      const res = await t.call('PUT', `/accounts/${slave}/profitTargets/${feature.featureId}/reset`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      if (unlockedAfter) expect(await locks(slave)).to.deep.equal([]);
    };
    // The balance is 1300 now: the absolute target is an equity level, so a reset measures from 1300
    // and the next look locks again, at 0 above the balance at the reset. That look may come before
    // the locks are read here, so no empty list is asserted: the new lock (measured 0) shows the reset.
    await reset(false);
    await logWith(slave, 'PROTECTION_RESET', 'PROTECTION');
    const [again] = await locksWhere(slave, 1);
    expect(again, 'locked again by the equity at the level').to.deep.include({ action: 'STOP_COPYING', measured: 0, threshold: 1300 });
    // Below the level the reset holds: looked at twice afterwards, and copying resumes.
    await withdraw(slave, 100);
    await reset();
    await ticks(2);
    expect(await locks(slave), 'a balance of 1200 after the reset').to.deep.equal([]);
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying resumed the same day');
    await open(slave, { symbol: 'US500', orderType: 'Buy', volume: 0.1 });
    await flat(master, slave);
  });

  it('the default dailyProfitTarget 2 locks a balance of 1000 at 1020; with autoResetIfBalanceIsBelow a withdrawal below the target resets it', async () => {
    await pinQuotes(t, { US500: [5200, 5200] });
    const { master, slave } = await pairOfThousand('default');
    const feature = await addTarget(slave, { type: 'FeatureDailyProfitTargetDTO', autoResetIfBalanceIsBelow: true });
    expect(feature.setting).to.deep.include({
      dailyProfitTarget: 2,
      dailyRelativeProfitTarget: 0,
      dailyAbsoluteProfitTarget: 0,
      autoResetIfBalanceIsBelow: true,
    });
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await pinQuotes(t, { US500: [5220, 5220] });
    const [lock] = await locksWhere(slave, 1);
    expect(lock).to.deep.include({ action: 'CLOSE_ALL', measured: 20, thresholdMember: 'dailyProfitTarget', threshold: 2 });
    await bookWhere(t, slave, (b) => b.length === 0, 'closed by the lock: the balance is 1020');
    await flat(master);
    await ticks(2);
    expect(await locks(slave), 'the balance at the target: still locked').to.have.length(1);

    await withdraw(slave, 500);
    const resetLog = await logWith(slave, 'PROTECTION_RESET', 'PROTECTION');
    expect(resetLog.text).to.match(/the balance 520\.00 USD fell below the target 1020\.00 \(autoResetIfBalanceIsBelow\)/);
    expect(await locks(slave)).to.deep.equal([]);
    await open(master, { symbol: 'US500', orderType: 'Buy', volume: 1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'copying again the same day');
    await flat(master, slave);
  });

  it('refuses what the reference does not allow, changing nothing: a percent above 100, a number for autoResetIfBalanceIsBelow, a resetTime that is no date-time, every target 0', async () => {
    const slave = await startedAccount(t, 'refusals');
    accounts.push(slave);
    const refused = async (setting: Record<string, unknown>, pattern: RegExp) => {
      const res = await t.call('POST', `/accounts/${slave}/features`, { body: featureBody({ type: 'FeatureDailyProfitTargetDTO', ...setting }) });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error).to.equal('[VALIDATION_FAILED]');
      expect(JSON.stringify(res.body)).to.match(pattern);
    };
    await refused({ dailyProfitTarget: 100.5 }, /dailyProfitTarget/);
    await refused({ autoResetIfBalanceIsBelow: 900 }, /autoResetIfBalanceIsBelow/);
    await refused({ resetTime: '25:00' }, /resetTime/);
    await refused({ dailyProfitTarget: 0 }, /set dailyProfitTarget, dailyRelativeProfitTarget or dailyAbsoluteProfitTarget above 0/);
    const weekly = await t.call('POST', `/accounts/${slave}/features`, { body: featureBody({ type: 'FeatureWeeklyProfitTargetDTO', resetTime: DEFAULT }) });
    expect(weekly.status, "resetTime is the daily target's only").to.equal(400);
    expect((await t.call('GET', `/accounts/${slave}/features`)).body).to.deep.equal([]);
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
    await addTarget(slave, { type: 'FeatureWeeklyProfitTargetDTO', weeklyProfitTarget: 2 });
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
    await addTarget(slave, { type: 'FeatureMonthlyProfitTargetDTO', monthlyProfitTarget: 0, monthlyRelativeProfitTarget: 200 });
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
