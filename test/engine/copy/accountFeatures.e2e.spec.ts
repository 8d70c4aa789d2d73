// Account-scope features at work, over HTTP against the simulated venue, with a service clock the spec
// moves: the risk per trade (sizing by the stop loss, the auto-close), trading windows (in a time zone,
// with the close at the window's end), approvals (approve, reject, expire, a volume override, the count
// in the account information, a restart that keeps a waiting approval), a maintenance window (entry actions on two
// accounts, the copier modes given back afterwards) and an account's scheduled close and reopen over
// two copiers. One lot of EURUSD at 5 digits moves 1 USD a point.
import { expect } from 'chai';
import { DateTime } from 'luxon';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, movableClock, pinQuotes, positionsOf, startedAccount } from '../../support/trading.js';

const QUOTES = { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] } as const;

describe('account features end to end', function () {
  this.timeout(120_000);
  // A Wednesday morning, UTC: forex markets are open.
  const clock = movableClock(Date.parse('2026-01-07T10:00:05.000Z'));
  let t: TestService;

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, QUOTES);
  });
  after(() => t?.stop());

  const copier = async (master: string, slave: string) => {
    const res = await t.call('POST', `/accounts/${slave}/copiers`, { body: { fromAccountId: master } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.id as string;
  };
  const pair = async (name: string) => {
    const master = await startedAccount(t, `${name}-master`);
    const slave = await startedAccount(t, `${name}-slave`);
    return { master, slave, copierId: await copier(master, slave) };
  };
  const accountFeature = (accountId: string, featureSetting: Record<string, unknown>) => trading.addFeature(t, `/accounts/${accountId}`, featureSetting);
  const open = (accountId: string, body: Record<string, unknown>) => trading.openPosition(t, accountId, body);
  const logs = (accountId: string) => trading.logsOf(t, accountId);
  const logWith = (accountId: string, code: string, timeoutMs = 8000) => trading.logWith(t, accountId, code, timeoutMs);
  /** A whole minute at least `lead` seconds ahead of the service clock. */
  const minuteAhead = (lead: number) => Math.ceil((clock().getTime() + lead * 1000) / 60_000) * 60_000;
  /** Moves the service clock to `seconds` before `at`. */
  const moveTo = (at: number, seconds = 0) => clock.advance(Math.max(0, at - seconds * 1000 - clock().getTime()));
  const hhmm = (at: number, zone = 'UTC') => DateTime.fromMillis(at, { zone }).toFormat('HH:mm');

  describe('FeatureRiskPerTradeDTO', () => {
    it('sizes a copy with a stop loss so that its loss there is relativeRisk of the balance, and keeps the copier lot without one', async () => {
      const { master, slave } = await pair('risk-size');
      await accountFeature(slave, {
        type: 'FeatureRiskPerTradeDTO',
        relativeRisk: 1,
        correctLotSizeBasedOnTheStopLoss: true,
        autoCloseOnRiskThresholdReached: false,
      });
      // Bought at the ask 1.0851, stop loss 500 points below: 1 % of 10,000 = 100 USD over 500 USD a lot.
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1, stopLoss: 1.0801 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the sized copy');
      expect(copy).to.deep.include({ symbol: 'EURUSD', volume: 0.2, stopLoss: 1.0801 });
      await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.3 });
      const book = await bookWhere(t, slave, (b) => b.length === 2, 'the copy without a stop loss');
      expect(book.find((p) => p.symbol === 'GBPUSD')!.volume).to.equal(0.3);
    });

    it("a symbol's own relativeRisk (symbolsConfiguration) sizes its copies; other symbols keep the general one", async () => {
      const { master, slave } = await pair('risk-symbols');
      await accountFeature(slave, {
        type: 'FeatureRiskPerTradeDTO',
        relativeRisk: 1,
        correctLotSizeBasedOnTheStopLoss: true,
        autoCloseOnRiskThresholdReached: false,
        symbolsConfiguration: { EURUSD: { absoluteRisk: 0, relativeRisk: 0.5 } },
      });
      // 0.5 % of 10,000 = 50 USD over 500 points at 1 USD a point of one lot: 0.1 lots.
      await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1, stopLoss: 1.0801 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the sized copy');
      expect(copy).to.deep.include({ symbol: 'EURUSD', volume: 0.1, stopLoss: 1.0801 });
      // GBPUSD at the general 1 %: 100 USD over about 500 points: about 0.2 lots (twice EURUSD's rate).
      await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 1, stopLoss: 1.275 });
      const book = await bookWhere(t, slave, (b) => b.length === 2, 'the GBPUSD copy');
      expect(book.find((p) => p.symbol === 'GBPUSD')!.volume).to.be.within(0.18, 0.2);
    });

    it('closes a copy without a stop loss once its loss reaches absoluteRisk; the master keeps its position', async () => {
      const { master, slave } = await pair('risk-close');
      await accountFeature(slave, { type: 'FeatureRiskPerTradeDTO', absoluteRisk: 25, correctLotSizeBasedOnTheStopLoss: true });
      const held = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 1 });
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
      // 10 USD down (the spread): under the threshold; 30 USD down: over it.
      await new Promise((r) => setTimeout(r, 1500));
      expect(await positionsOf(t, slave)).to.have.length(1);
      await pinQuotes(t, { EURUSD: [1.0821, 1.0822] });
      try {
        await bookWhere(t, slave, (b) => b.length === 0, 'the auto-close', 10_000);
      } finally {
        await pinQuotes(t, QUOTES);
      }
      expect((await positionsOf(t, master)).map((p) => p.id)).to.deep.equal([held]);
      const closed = await eventually(async () => (await logs(slave)).find((l) => l.text.includes(`close #${copy!.id}`)), 5000, 'the close in the log');
      expect(closed.text).to.match(/^Copied from master .*: close #\S+ \(1\)$/);
    });
  });

  it("FeatureTradingWindowsDTO copies opens only inside its window (written at +09:00), a symbol's own window aside, and closes the copies at its end", async () => {
    const { master, slave } = await pair('windows');
    const start = minuteAhead(30);
    const end = start + 120_000;
    const tokyo = (at: number) => `2025-01-01 ${hhmm(at, 'Asia/Tokyo')}:00+09:00`;
    await accountFeature(slave, {
      type: 'FeatureTradingWindowsDTO',
      tradingWindows: [{ startTime: tokyo(start), endTime: tokyo(end) }],
      // Gold trades all day: a window of 24 hours.
      symbolsConfiguration: { XAUUSD: { tradingWindows: [{ startTime: '2025-01-01 00:00:00+00:00', endTime: '2025-01-01 00:00:00+00:00' }] } },
    });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const outside = await logWith(slave, 'OUTSIDE_TRADING_WINDOW');
    expect(outside.text).to.include(
      `outside the trading windows; the next opens at ${DateTime.fromMillis(start, { zone: 'UTC' }).toISO({ suppressMilliseconds: true })}`,
    );
    await open(master, { symbol: 'XAUUSD', orderType: 'Buy', volume: 0.01 });
    await bookWhere(t, slave, (b) => b.length === 1 && b[0]!.symbol === 'XAUUSD', 'the gold copy in its own window');

    moveTo(start, 0);
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.2 });
    await bookWhere(t, slave, (b) => b.length === 2 && b.some((p) => p.symbol === 'GBPUSD'), 'the copy inside the window');
    // closePositionsAtWindowEnd is true by default: the GBPUSD copy closes, gold's window goes on.
    moveTo(end, 1);
    await bookWhere(t, slave, (b) => b.length === 1 && b[0]!.symbol === 'XAUUSD', 'the close at the end of the window', 10_000);
    expect(await positionsOf(t, master)).to.have.length(3);
  });

  it('FeatureTradingWindowsDTO on a copier with temporarilySkipUntilNextWindow holds an open back until its window opens', async () => {
    const { master, slave, copierId } = await pair('windows-hold');
    const start = minuteAhead(30);
    const utc = (at: number) => `2025-01-01T${hhmm(at)}:00Z`;
    await trading.addFeature(t, `/accounts/${slave}/copiers/${copierId}`, {
      type: 'FeatureTradingWindowsDTO',
      tradingWindows: [{ startTime: utc(start), endTime: utc(start + 600_000) }],
      temporarilySkipUntilNextWindow: true,
      closePositionsAtWindowEnd: false,
    });
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    const held = await logWith(slave, 'FeatureTradingWindowsDTO');
    expect(held.text).to.match(/held back by FeatureTradingWindowsDTO until/);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    moveTo(start, 0);
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy when the window opened', 10_000);
    expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
  });

  describe('FeatureApprovalDTO', () => {
    const pending = async (slave: string) => {
      const res = await t.call('GET', `/accounts/${slave}/approvals`);
      expect(res.status).to.equal(200);
      return res.body as { approvalId: string; masterAccountId: string; masterPositionId: string; symbol: string; volume: number; expiresAt: string }[];
    };
    /** An ApprovalDTO naming the approval as the reference does: the master account and the position's ticket. */
    const named = (approval: { masterAccountId: string; masterPositionId: string }) => ({
      accountFromId: approval.masterAccountId,
      ticket: Number(approval.masterPositionId),
    });
    const waiting = (slave: string, count: number) =>
      eventually(async () => ((await pending(slave)).length === count ? pending(slave) : undefined), 8000, `${count} waiting approvals`);
    const information = async (slave: string) =>
      (await t.call('GET', `/accounts/${slave}/information`)).body as { pendingApprovals: { accountFromId: string; ticket: number }[] };
    const decide = (slave: string, body: Record<string, unknown>) => t.call('POST', `/accounts/${slave}/approvals`, { body });

    it('holds an open until it is approved, counts it in the information, then copies it', async () => {
      const { master, slave } = await pair('approve');
      await accountFeature(slave, { type: 'FeatureApprovalDTO', expirySeconds: 120 });
      const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.4 });
      const [approval] = await waiting(slave, 1);
      expect(approval).to.deep.include({ masterPositionId: id, symbol: 'EURUSD', volume: 0.4 });
      expect(Date.parse(approval!.expiresAt) - clock().getTime()).to.be.within(100_000, 120_000);
      expect((await information(slave)).pendingApprovals).to.have.length(1);
      expect(await positionsOf(t, slave)).to.deep.equal([]);

      expect((await decide(slave, named(approval!))).status).to.equal(204);
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the approved copy');
      expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.4 });
      expect((await information(slave)).pendingApprovals).to.have.length(0);
      const again = await decide(slave, { ...named(approval!), approved: false });
      expect([again.status, again.body.error]).to.deep.equal([409, '[APPROVAL_ALREADY_DECIDED]']);
    });

    it('skips a rejected open with APPROVAL_REJECTED, named by the master position', async () => {
      const { master, slave } = await pair('reject');
      await accountFeature(slave, { type: 'FeatureApprovalDTO' });
      const id = await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
      await waiting(slave, 1);
      expect((await decide(slave, { accountFromId: master, ticket: Number(id), approved: false })).status).to.equal(204);
      const skip = await logWith(slave, 'APPROVAL_REJECTED');
      expect(skip.text).to.match(/not copied: the copy was rejected/);
      expect(await positionsOf(t, slave)).to.deep.equal([]);
      expect(await pending(slave)).to.deep.equal([]);
    });

    it('releases a waiting open when the feature is removed: it is copied at once', async () => {
      const { master, slave } = await pair('approval-removed');
      const featureId = await accountFeature(slave, { type: 'FeatureApprovalDTO', expirySeconds: 600 });
      await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.3 });
      const [approval] = await waiting(slave, 1);
      expect((await t.call('DELETE', `/accounts/${slave}/features/${featureId}`)).status).to.equal(200);
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the released copy', 8000);
      expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Sell', volume: 0.3 });
      const late = await decide(slave, { ...named(approval!), approved: false });
      expect([late.status, late.body.error]).to.deep.equal([409, '[APPROVAL_NOT_PENDING]']);
    });

    it('refuses what names no approval and an incomplete name', async () => {
      const { master, slave } = await pair('approval-refusals');
      const unknown = await decide(slave, { accountFromId: crypto.randomUUID(), ticket: 1 });
      expect([unknown.status, unknown.body.error]).to.deep.equal([404, '[APPROVAL_NOT_FOUND]']);
      const noTicket = await decide(slave, { accountFromId: master, approved: true });
      expect([noTicket.status, noTicket.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
      expect((await decide(slave, { ticket: 1 })).status).to.equal(400);
      const negative = await decide(slave, { accountFromId: master, ticket: 1, volume: -0.5 });
      expect([negative.status, negative.body.error]).to.deep.equal([400, '[VALIDATION_FAILED]']);
    });

    it("places an approved copy with the volume override, rounded to the lot step within the copier's maxLotSize", async () => {
      const { master, slave } = await pair('approval-volume');
      await accountFeature(slave, { type: 'FeatureApprovalDTO', expirySeconds: 120 });
      const id = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.4 });
      const [approval] = await waiting(slave, 1);
      const withRejection = await decide(slave, { ...named(approval!), approved: false, volume: 0.2 });
      expect([withRejection.status, withRejection.body.error]).to.deep.equal([400, '[VOLUME_WITHOUT_APPROVAL]']);
      expect(await pending(slave)).to.have.length(1);
      // The reference's own shape: accountFromId, ticket, volume.
      expect((await decide(slave, { accountFromId: master, ticket: Number(id), volume: 0.237 })).status).to.equal(204);
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy with the chosen lot');
      expect(copy).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.23 });
    });

    it("caps a volume override at the copier's maxLotSize; 0 means the copier's own sizing", async () => {
      const { master, slave, copierId } = await pair('approval-volume-cap');
      const put = await t.call('PUT', `/accounts/${slave}/copiers/${copierId}`, { body: { maxLotSize: 0.5 } });
      expect(put.status).to.equal(200);
      await accountFeature(slave, { type: 'FeatureApprovalDTO', expirySeconds: 120 });
      const capped = await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
      const sized = await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.3 });
      await waiting(slave, 2);
      expect((await decide(slave, { accountFromId: master, ticket: Number(capped), volume: 3 })).status).to.equal(204);
      expect((await decide(slave, { accountFromId: master, ticket: Number(sized), volume: 0 })).status).to.equal(204);
      const book = await bookWhere(t, slave, (b) => b.length === 2, 'both approved copies');
      expect(book.map((p) => [p.symbol, p.volume]).sort()).to.deep.equal([
        ['EURUSD', 0.5],
        ['GBPUSD', 0.3],
      ]);
    });

    it('skips an open nobody decided with APPROVAL_EXPIRED once expirySeconds pass, and refuses a late decision', async () => {
      const { master, slave } = await pair('expire');
      await accountFeature(slave, { type: 'FeatureApprovalDTO', expirySeconds: 30 });
      await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
      const [approval] = await waiting(slave, 1);
      clock.advance(31_000);
      const skip = await logWith(slave, 'APPROVAL_EXPIRED');
      expect(skip.text).to.match(/no decision on the copy before the approval expired/);
      expect((await information(slave)).pendingApprovals).to.have.length(0);
      const late = await decide(slave, named(approval!));
      expect([late.status, late.body.error]).to.deep.equal([409, '[APPROVAL_EXPIRED]']);
      expect(await positionsOf(t, slave)).to.deep.equal([]);
    });

    it('keeps a waiting approval across a restart, and copies it when approved afterwards', async () => {
      const { master, slave } = await pair('approval-restart');
      await accountFeature(slave, { type: 'FeatureApprovalDTO', expirySeconds: 600 });
      await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.2 });
      const [before] = await waiting(slave, 1);

      const { databaseUrl, dataDir } = t;
      await t.stop();
      t = await startTestService({ databaseUrl, dataDir, clock });
      expect((await information(slave)).pendingApprovals).to.have.length(1);
      const [after] = await pending(slave);
      expect(after).to.deep.equal(before);
      expect((await decide(slave, named(after!))).status).to.equal(204);
      const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy approved after the restart', 10_000);
      expect(copy).to.deep.include({ symbol: 'GBPUSD', orderType: 'Buy', volume: 0.2 });
    });
  });

  it('FeatureMaintenanceWindowDTO switches the copiers of two accounts to monitor-only, closes their positions, and after a restart gives the modes back at its end', async () => {
    const master = await startedAccount(t, 'maintenance-master');
    const slave = await startedAccount(t, 'maintenance-slave');
    const other = await startedAccount(t, 'maintenance-other');
    // Of another account type: accountType leaves it out.
    const excluded = await startedAccount(t, 'maintenance-excluded', { type: { id: 2 } });
    const copierId = await copier(master, slave);
    const otherCopier = await copier(master, other);
    // The other account's copier is inactive: it stays so, and is given back as it was.
    expect((await t.call('PUT', `/accounts/${other}/copiers/${otherCopier}`, { body: { active: false } })).status).to.equal(200);
    await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    await open(other, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    await open(excluded, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });

    const startsAt = clock().getTime() + 20_000;
    const endsAt = startsAt + 120_000;
    const featureId = await accountFeature(slave, {
      type: 'FeatureMaintenanceWindowDTO',
      startTime: new Date(startsAt).toISOString(),
      endTime: new Date(endsAt).toISOString(),
      closeAllPositions: true,
      broker: '.*',
      affectedAccountIds: [other, excluded],
      accountType: { id: 1 },
      entryActionsExecuted: true,
    });
    const feature = async () => (await t.call('GET', `/accounts/${slave}/features/${featureId}`)).body.setting as Record<string, unknown>;
    // Sent read-only members are ignored.
    expect(await feature()).to.deep.include({ entryActionsExecuted: false, affectedCopierStates: [], positionsClosedForAccounts: [] });
    const mode = async (accountId: string, id: string) => {
      const body = (await t.call('GET', `/accounts/${accountId}/copiers/${id}`)).body as { active: boolean; monitorOnly: boolean };
      return { active: body.active, monitorOnly: body.monitorOnly };
    };

    moveTo(startsAt);
    const entered = await eventually(
      async () => {
        const setting = await feature();
        return setting.entryActionsExecuted === true ? setting : undefined;
      },
      10_000,
      'the entry actions',
    );
    expect(entered.affectedCopierStates).to.have.deep.members([
      { copierId, active: true, monitorOnly: false },
      { copierId: otherCopier, active: false, monitorOnly: false },
    ]);
    expect(entered.positionsClosedForAccounts).to.have.members([slave, other]);
    expect(await mode(slave, copierId)).to.deep.equal({ active: true, monitorOnly: true });
    expect(await mode(other, otherCopier)).to.deep.equal({ active: false, monitorOnly: false });
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    expect(await positionsOf(t, other)).to.deep.equal([]);
    expect(await positionsOf(t, excluded)).to.have.length(1);
    expect(await positionsOf(t, master)).to.have.length(1);
    // During the window the slave's copier only watches.
    await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    await logWith(slave, 'MONITOR_ONLY');
    expect((await logWith(other, 'MAINTENANCE_WINDOW')).text).to.match(/positions and pending orders closed/);

    // A new service on the same database: the recorded modes come from the window's events.
    const { databaseUrl, dataDir } = t;
    await t.stop();
    t = await startTestService({ databaseUrl, dataDir, clock });
    moveTo(endsAt);
    await eventually(async () => ((await mode(slave, copierId)).monitorOnly === false ? true : undefined), 10_000, 'the copier given back its mode');
    expect(await mode(slave, copierId)).to.deep.equal({ active: true, monitorOnly: false });
    expect(await mode(other, otherCopier)).to.deep.equal({ active: false, monitorOnly: false });
    const ended = await eventually(async () => (await logs(slave)).find((l) => l.text.startsWith('Maintenance window ended')), 5000, 'the end in the log');
    expect(ended.text).to.equal('Maintenance window ended: 2 copiers got their modes back');
  });

  it('FeatureScheduledCloseReopenDTO on an account closes and reopens the copies of each of its copiers', async () => {
    const masterA = await startedAccount(t, 'scheduled-a');
    const masterB = await startedAccount(t, 'scheduled-b');
    const slave = await startedAccount(t, 'scheduled-slave');
    const copierA = await copier(masterA, slave);
    const copierB = await copier(masterB, slave);
    const close = minuteAhead(20);
    const reopen = close + 60_000;
    await accountFeature(slave, {
      type: 'FeatureScheduledCloseReopenDTO',
      schedules: [{ label: 'both', closeTime: hhmm(close), reopenTime: hhmm(reopen), skipNewTradesUntilReopen: true }],
    });
    await open(masterA, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await open(masterB, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.2 });
    await bookWhere(t, slave, (b) => b.length === 2, 'both copies');

    moveTo(close, 1);
    await bookWhere(t, slave, (b) => b.length === 0, 'both copies closed at closeTime', 10_000);
    const closedBy = await eventually(
      async () => {
        const rows = await t.service.services.db.selectFrom('copies').select(['copier_id', 'closed_by']).where('slave_account_id', '=', slave).execute();
        return rows.every((r) => r.closed_by === 'FeatureScheduledCloseReopenDTO') ? rows : undefined;
      },
      5000,
      'the closes in the history',
    );
    expect(closedBy).to.have.deep.members([
      { copier_id: copierA, closed_by: 'FeatureScheduledCloseReopenDTO' },
      { copier_id: copierB, closed_by: 'FeatureScheduledCloseReopenDTO' },
    ]);
    await open(masterB, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await logWith(slave, 'SCHEDULED_PAUSE');

    moveTo(reopen, 1);
    const book = await bookWhere(t, slave, (b) => b.length === 2, 'both copies reopened', 10_000);
    expect(book.map((p) => [p.symbol, p.orderType, p.volume]).sort()).to.deep.equal([
      ['EURUSD', 'Buy', 0.1],
      ['GBPUSD', 'Sell', 0.2],
    ]);
  });
});
