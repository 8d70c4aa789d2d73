// Timing features at work, over HTTP against the simulated venue, with a service clock the spec moves:
// the scheduled close and reopen (a copier's and an account's, across a restart between the two), the
// pause of new trades until the reopen, the minimum holding time (a deferred close), the live delay (the
// first orders of a symbol skipped, counted across a restart) and the keep-alive trade (placed and closed
// on the clock, once across a restart).
import { expect } from 'chai';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, featureBody, movableClock, pinQuotes, positionsOf } from '../../support/trading.js';

const SCHEDULED = 'FeatureScheduledCloseReopenDTO';

describe('timing features end to end', function () {
  this.timeout(90_000);
  // A Wednesday morning, UTC: forex markets are open.
  const clock = movableClock(Date.parse('2026-01-07T10:00:05.000Z'));
  let t: TestService;

  const started = async () => {
    const service = await startTestService({ clock });
    await pinQuotes(service, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] });
    return service;
  };
  before(async () => {
    t = await started();
  });
  after(() => t?.stop());

  const pair = (name: string) => trading.copyPair(t, name);
  const feature = (path: string, featureSetting: Record<string, unknown>) => trading.addFeature(t, path, featureSetting);
  const open = (accountId: string, body: Record<string, unknown>) => trading.openPosition(t, accountId, body);
  const logsOf = (accountId: string) => trading.logsOf(t, accountId);
  const logWith = (accountId: string, code: string, timeoutMs = 5000) => trading.logWith(t, accountId, code, timeoutMs);
  /** Who closed the copier's copy of the master position, as the history shows it. */
  const closedBy = async (copierId: string, masterPositionId: string) =>
    await t.service.services.db
      .selectFrom('copies')
      .select(['status', 'closed_by', 'close_price'])
      .where('copier_id', '=', copierId)
      .where('master_position_id', '=', masterPositionId)
      .executeTakeFirst();

  /** A whole minute at least `lead` seconds ahead of the service clock, as HH:mm and as a time. */
  const minuteAhead = (lead: number) => {
    const at = Math.ceil((clock().getTime() + lead * 1000) / 60_000) * 60_000;
    return { at, hhmm: new Date(at).toISOString().slice(11, 16) };
  };
  /** Moves the service clock to `seconds` before `at`. */
  const moveTo = (at: number, seconds: number) => clock.advance(Math.max(0, at - seconds * 1000 - clock().getTime()));

  it("a copier's schedule closes the copy at closeTime, skips new trades meanwhile and reopens it with the master's stops", async () => {
    const { master, slave, copierId } = await pair('scheduled');
    const close = minuteAhead(20);
    const reopen = { at: close.at + 60_000, hhmm: new Date(close.at + 60_000).toISOString().slice(11, 16) };
    await feature(`/accounts/${slave}/copiers/${copierId}`, {
      type: SCHEDULED,
      schedules: [{ label: 'lunch', closeTime: close.hhmm, reopenTime: reopen.hhmm, skipNewTradesUntilReopen: true }],
    });
    const held = await open(master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.08, takeProfit: 1.095 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy');

    moveTo(close.at, 2);
    await bookWhere(t, slave, (b) => b.length === 0, 'the scheduled close', 10_000);
    expect((await positionsOf(t, master)).map((p) => p.id)).to.deep.equal([held]);
    // The history names the feature as the closer (the venue's own report of the close may come first).
    const record = await eventually(
      async () => {
        const row = await closedBy(copierId, held);
        return row?.closed_by === SCHEDULED ? row : undefined;
      },
      5000,
      'the close in the history',
    );
    expect(record).to.deep.include({ status: 'closed', close_price: 1.085 });

    // Between the close and the reopen a new master trade is not copied.
    await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    const pause = await logWith(slave, 'SCHEDULED_PAUSE');
    expect(pause.text).to.match(/schedule 'lunch' closed at .*: new trades wait for the reopen at/);

    moveTo(reopen.at, 2);
    const [reopened] = await bookWhere(t, slave, (b) => b.length === 1, 'the reopened copy', 10_000);
    expect(reopened).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.1, stopLoss: 1.08, takeProfit: 1.095 });
    expect(reopened!.id).not.to.equal(copy!.id);
    // Once: the next seconds reopen nothing more, and the copy is the copier's live copy again.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await positionsOf(t, slave)).to.have.length(1);
    expect(await closedBy(copierId, held)).to.deep.include({ status: 'open', closed_by: null });
  });

  it('refuses a schedule time that is no time, a reopen before its close, and a symbol pattern that could stall the engine', async () => {
    const { slave, copierId } = await pair('refused');
    const post = (featureSetting: Record<string, unknown>) =>
      t.call('POST', `/accounts/${slave}/copiers/${copierId}/features`, { body: featureBody(featureSetting) });
    const badTime = await post({ type: SCHEDULED, schedules: [{ label: 'x', closeTime: '24:00' }] });
    expect(badTime.status).to.equal(400);
    const backwards = await post({ type: SCHEDULED, schedules: [{ label: 'x', closeTime: '22:00', reopenTime: '21:00' }] });
    expect(backwards.status).to.equal(400);
    expect(JSON.stringify(backwards.body)).to.match(/reopenTime 21:00 must be after closeTime 22:00/);
    const nested = await post({ type: 'FeaturePermittedSymbolsDTO', whitelist: ['^(E+)+U'] });
    expect(nested.status).to.equal(400);
    expect(JSON.stringify(nested.body)).to.match(/whitelist: '\^\(E\+\)\+U' repeats a group that holds a quantifier/);
    expect((await t.call('GET', `/accounts/${slave}/copiers/${copierId}/features`)).body).to.deep.equal([]);
  });

  it("a minimum holding time holds the master's close back until the copy is old enough", async () => {
    const { master, slave, copierId } = await pair('holding');
    await feature(`/accounts/${slave}/copiers/${copierId}`, { type: 'FeatureMinimumHoldingTimeDTO', minimumHoldSeconds: 30 });
    const id = await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.2 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');
    expect((await t.call('DELETE', `/accounts/${master}/positions/${id}`)).status).to.equal(204);
    const held = await logWith(slave, 'FeatureMinimumHoldingTimeDTO');
    expect(held.text).to.match(/close of master #.* not copied yet: FeatureMinimumHoldingTimeDTO holds it until/);
    expect(await positionsOf(t, slave)).to.have.length(1);
    clock.advance(31_000);
    await bookWhere(t, slave, (b) => b.length === 0, 'the close once the copy is old enough', 10_000);
  });

  it('a live delay skips the first orders on each master symbol, keeps its count across a restart, and starts again once the master is flat', async () => {
    const { master, slave, copierId } = await pair('live-delay');
    await feature(`/accounts/${slave}/copiers/${copierId}`, { type: 'FeatureLiveDelayDTO', skipOrdersCount: 2, resetOnPositionClose: true });
    const first = await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    const second = await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.2 });
    // Another symbol has its own count.
    await open(master, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.1 });
    const skips = await eventually(
      async () => {
        const lines = (await logsOf(slave)).filter((l) => l.code === 'LIVE_DELAY');
        return lines.length === 3 ? lines.map((l) => l.text.replace(/.* not copied: /, '')).sort() : undefined;
      },
      5000,
      'three live delay skips',
    );
    expect(skips).to.have.length(3);
    expect(skips[0]).to.match(/^live delay: master order 1 of the first 2 on EURUSD is skipped \(counted since the feature was added at /);
    expect(skips[1]).to.match(/^live delay: master order 1 of the first 2 on GBPUSD is skipped/);
    expect(skips[2]).to.match(/^live delay: master order 2 of the first 2 on GBPUSD is skipped/);
    expect(await positionsOf(t, slave)).to.deep.equal([]);

    // A new service on the same database: the count is the master's history, not the old one's memory.
    const { databaseUrl, dataDir } = t;
    await t.stop();
    t = await startTestService({ databaseUrl, dataDir, clock });
    const third = await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.3 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the third GBPUSD order copied', 10_000);
    expect(copy).to.deep.include({ symbol: 'GBPUSD', orderType: 'Buy', volume: 0.3 });

    // The master closes every GBPUSD position: the next GBPUSD order is order 1 again.
    for (const id of [first, second, third]) expect((await t.call('DELETE', `/accounts/${master}/positions/${id}`)).status).to.equal(204);
    await bookWhere(t, slave, (b) => b.length === 0, "the copy closed with the master's", 10_000);
    await open(master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.4 });
    const again = await eventually(
      async () => (await logsOf(slave)).find((l) => l.code === 'LIVE_DELAY' && /since the master's last GBPUSD position closed/.test(l.text)),
      5000,
      'the count started again',
    );
    expect(again.text).to.match(/master order 1 of the first 2 on GBPUSD is skipped \(counted since the master's last GBPUSD position closed at /);
    expect(await positionsOf(t, slave)).to.deep.equal([]);
  });

  it("an account's schedule closes its copiers' copies, and a restart between close and reopen still reopens them", async () => {
    const { master, slave, copierId } = await pair('account-schedule');
    const close = minuteAhead(20);
    const reopen = { at: close.at + 60_000, hhmm: new Date(close.at + 60_000).toISOString().slice(11, 16) };
    await feature(`/accounts/${slave}`, {
      type: SCHEDULED,
      schedules: [{ label: 'account', closeTime: close.hhmm, reopenTime: reopen.hhmm, restoreSlTp: false }],
    });
    const held = await open(master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1, stopLoss: 1.28 });
    await bookWhere(t, slave, (b) => b.length === 1, 'the copy');

    moveTo(close.at, 2);
    await bookWhere(t, slave, (b) => b.length === 0, 'the scheduled close', 10_000);
    await eventually(async () => ((await closedBy(copierId, held))?.closed_by === SCHEDULED ? true : undefined), 5000, 'the close in the history');

    // A new service on the same database: nothing it needs was in the old one's memory.
    const { databaseUrl, dataDir } = t;
    await t.stop();
    t = await startTestService({ databaseUrl, dataDir, clock });
    moveTo(reopen.at, 2);
    const [reopened] = await bookWhere(t, slave, (b) => b.length === 1, 'the reopen after the restart', 15_000);
    expect(reopened).to.deep.include({ symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1, stopLoss: 0 });
  });

  it('a keep-alive trade opens at its due time, is no copy to a resync or a restart, and closes closeAfterInSeconds later, once', async () => {
    const { slave, copierId } = await pair('keep-alive');
    await feature(`/accounts/${slave}/copiers/${copierId}`, {
      type: 'FeatureKeepAliveTradeDTO',
      symbol: 'EURUSD',
      volume: 0.02,
      cronExpressions: ['0 0 * ? * *'],
      closeAfterInSeconds: 60,
    });
    const hour = Math.ceil((clock().getTime() + 5000) / 3_600_000) * 3_600_000;
    moveTo(hour, 2);
    const [placed] = await bookWhere(t, slave, (b) => b.length === 1, 'the keep-alive trade', 10_000);
    expect(placed).to.deep.include({ symbol: 'EURUSD', orderType: 'Buy', volume: 0.02, stopLoss: 0, takeProfit: 0 });
    const due = new Date(hour).toISOString();
    const openedLog = await eventually(async () => (await logsOf(slave)).find((l) => l.text.startsWith('Keep-alive trade due')), 5000, 'the open in the log');
    expect(openedLog.text).to.equal(
      `Keep-alive trade due at ${due} (to close after 60 seconds): Buy 0.02 EURUSD opened as #${placed!.id} at ${placed!.openPrice}`,
    );

    // No copy: a resync leaves it open, and a new service places it no second time.
    expect((await t.call('POST', `/accounts/${slave}/copiers/${copierId}/resync`)).status).to.equal(204);
    const { databaseUrl, dataDir } = t;
    await t.stop();
    t = await startTestService({ databaseUrl, dataDir, clock });
    await new Promise((r) => setTimeout(r, 2500));
    expect((await positionsOf(t, slave)).map((p) => p.id)).to.deep.equal([placed!.id]);

    clock.advance(61_000);
    await bookWhere(t, slave, (b) => b.length === 0, 'the close after 60 seconds', 10_000);
    const closedLog = await eventually(
      async () => (await logsOf(slave)).find((l) => l.text.startsWith(`Keep-alive trade #${placed!.id}`)),
      5000,
      'the close in the log',
    );
    expect(closedLog.text).to.match(
      new RegExp(`^Keep-alive trade #${placed!.id} \\(Buy 0.02 EURUSD, opened at .*, held 60 seconds\\) closed at [0-9.]+, result -?[0-9]+\\.[0-9]{2}$`),
    );
    // Once: the rest of the hour places nothing more.
    await new Promise((r) => setTimeout(r, 2500));
    expect(await positionsOf(t, slave)).to.deep.equal([]);
    expect((await logsOf(slave)).filter((l) => l.text.startsWith('Keep-alive trade due'))).to.have.length(1);
  });
});
