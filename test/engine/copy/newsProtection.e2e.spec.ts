// FeatureNewsProtectionDTO at work (issue 18): a calendar imported from a file, the engine's clock moved
// across the event. The copies on an affected symbol close closeBeforeMinutes before it and reopen per
// reopenMode after it (SAME_VOLUME with the lots they had; RESYNC_WITH_MASTER only while the master
// holds the position; NONE never), a restart inside the window changes nothing, and the guards hold a
// reopen back.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { importCalendar } from '../../../app/calendar.js';
import { DEFAULT_PROJECT_ID } from '../../../domain/project/decider.js';
import { fileSource } from '../../../engine/calendar/source.js';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, movableClock, pinQuotes } from '../../support/trading.js';
import { tempDir } from '../../support/tempDirs.js';

const CSV = [
  'date,title,currency,impact,forecast,previous,actual',
  '2026-01-07T11:00:00Z,Official Bank Rate,GBP,High,3.75%,4.00%,',
  '2026-01-07T11:00:00Z,Retail Sales m/m,EUR,Low,0.2%,0.1%,',
].join('\n');

describe('news protection (FeatureNewsProtectionDTO) driven by an imported calendar', function () {
  this.timeout(300_000);
  let t: TestService;
  // 10:30: the GBP release at 11:00 is 30 minutes away.
  const clock = movableClock(Date.parse('2026-01-07T10:30:00.000Z'));
  const setClock = (iso: string) => clock.advance(Date.parse(iso) - clock().getTime());

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] });
    const file = path.join(tempDir('ct-news-protection-'), 'week.csv');
    writeFileSync(file, CSV);
    expect(await importCalendar(t.service.services, fileSource(file))).to.include({ read: 2, published: 2 });
    await eventually(async () => {
      const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/economicCalendar?from=2026-01-07&to=2026-01-08`);
      return res.body.totalElements === 2 ? true : undefined;
    });
  });
  after(() => t?.stop());

  it('closes before the event, survives a restart in the window, and reopens per mode after it', async () => {
    const same = await trading.copyPair(t, 'news-protection-same');
    const resync = await trading.copyPair(t, 'news-protection-resync');
    const none = await trading.copyPair(t, 'news-protection-none');
    const protect = (accountId: string, members: Record<string, unknown>) =>
      trading.addFeature(t, `/accounts/${accountId}`, { type: 'FeatureNewsProtectionDTO', closeBeforeMinutes: 10, reopenAfterMinutes: 5, ...members });
    await protect(same.slave, { reopenMode: 'SAME_VOLUME' });
    await protect(resync.slave, { reopenMode: 'RESYNC_WITH_MASTER' });
    await protect(none.slave, {});
    const masters: Record<string, string> = {};
    for (const [name, pair] of Object.entries({ same, resync, none })) {
      masters[name] = await trading.openPosition(t, pair.master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.2 });
      await trading.openPosition(t, pair.master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
      await bookWhere(t, pair.slave, (b) => b.length === 2, `the ${name} copies`);
    }
    // 10:45: outside the window (10:50 to 11:00), nothing closes.
    setClock('2026-01-07T10:45:00.000Z');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await trading.positionsOf(t, same.slave)).to.have.length(2);

    // 10:51: the GBPUSD copies close; EURUSD (only a LOW EUR release) stays.
    setClock('2026-01-07T10:51:00.000Z');
    for (const [name, pair] of Object.entries({ same, resync, none })) {
      const book = await bookWhere(t, pair.slave, (b) => b.length === 1, `the ${name} GBPUSD copy closed`, 15_000);
      expect(book[0]!.symbol).to.equal('EURUSD');
    }
    const closed = await eventually(async () =>
      (await trading.logsOf(t, same.slave)).find((l) => l.text.includes('closed 10 min before GBP Official Bank Rate (HIGH) at 2026-01-07T11:00:00.000Z')),
    );
    expect(closed.text).to.match(/^news protection: #.* closed 10 min before .*; reopens 5 min after it \(SAME_VOLUME\) closed at /);

    // The master of the RESYNC pair closes its position inside the window: nothing to resync.
    expect((await t.call('DELETE', `/accounts/${resync.master}/positions/${masters.resync}`)).status).to.equal(204);

    // A restart inside the window: what was closed is in the events.
    const { databaseUrl, dataDir } = t;
    await t.stop();
    setClock('2026-01-07T10:55:00.000Z');
    t = await startTestService({ clock, databaseUrl, dataDir });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await trading.positionsOf(t, same.slave)).map((p) => p.symbol)).to.deep.equal(['EURUSD']);

    // 11:05, five minutes after the event: SAME_VOLUME reopens with the lots it had.
    setClock('2026-01-07T11:05:00.000Z');
    const [reopened] = (await bookWhere(t, same.slave, (b) => b.some((p) => p.symbol === 'GBPUSD'), 'the SAME_VOLUME reopen', 15_000)).filter(
      (p) => p.symbol === 'GBPUSD',
    );
    expect(reopened).to.deep.include({ orderType: 'Buy', volume: 0.2 });
    // RESYNC_WITH_MASTER: the master no longer holds it, so no reopen, and the log says why.
    const why = await trading.logWith(t, resync.slave, 'MASTER_CLOSED_BEFORE_REOPEN', 15_000);
    expect(why.text).to.contain('the master closed the position');
    // NONE: never reopened.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await trading.positionsOf(t, none.slave)).map((p) => p.symbol)).to.deep.equal(['EURUSD']);
    expect((await trading.positionsOf(t, resync.slave)).map((p) => p.symbol)).to.deep.equal(['EURUSD']);
    // Later ticks do not reopen twice.
    setClock('2026-01-07T11:08:00.000Z');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await trading.positionsOf(t, same.slave)).filter((p) => p.symbol === 'GBPUSD')).to.have.length(1);
  });

  it('refuses closeBeforeMinutes over 120 and unknown reopen modes, and answers every member with its default', async () => {
    const slave = await trading.startedAccount(t, 'news-protection-bounds');
    for (const bad of [{ closeBeforeMinutes: 121 }, { closeBeforeMinutes: 0 }, { reopenMode: 'LATER' }, { reopenIntentExpiryMinutes: 0 }]) {
      const res = await t.call('POST', `/accounts/${slave}/features`, { body: trading.featureBody({ type: 'FeatureNewsProtectionDTO', ...bad }) });
      expect([res.status, res.body.error], JSON.stringify(bad)).to.deep.equal([400, '[VALIDATION_FAILED]']);
    }
    const ok = await t.call('POST', `/accounts/${slave}/features`, {
      body: trading.featureBody({ type: 'FeatureNewsProtectionDTO', closeBeforeMinutes: 120 }),
    });
    expect(ok.status).to.equal(200);
    expect(ok.body.type).to.include({ id: 50, name: 'FeatureNewsProtectionDTO' });
    expect(ok.body.setting).to.deep.equal({
      closeBeforeMinutes: 120,
      impact: 'HIGH',
      includeGlobalEvents: true,
      reopenMode: 'NONE',
      reopenAfterMinutes: 15,
      onlyLosingPositions: false,
      minimumFloatingProfit: null,
      cancelPendingOrders: false,
      maxAdverseMovePoints: null,
      maxSpreadPoints: null,
      reopenIntentExpiryMinutes: 60,
      requireMasterPosition: true,
      advanceWarningMinutes: 0,
      notificationTargets: [],
    });
  });
});
