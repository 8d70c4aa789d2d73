// FeatureNewsFilterDTO at work (issue 18): a calendar imported from a file drives the filter on the
// engine's clock. An open of an affected symbol inside the blackout is skipped with the event in the
// account log (NEWS_BLACKOUT), the close of a copy made before the window goes through, an unaffected
// symbol is copied, SL/TP changes are skipped only with blockStopChanges, and a bank holiday reduces
// the lot with holidayMode REDUCE_SIZE.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { importCalendar } from '../../../app/calendar.js';
import { DEFAULT_PROJECT_ID } from '../../../domain/project/decider.js';
import { fileSource } from '../../../engine/calendar/source.js';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, eventually, logsOf, modifyPosition, movableClock, pinQuotes } from '../../support/trading.js';
import { tempDir } from '../../support/tempDirs.js';

const CSV = [
  'date,title,currency,impact,forecast,previous,actual',
  // 40 minutes after the clock's start: a 30-minute blackout begins 10 minutes in.
  '2026-01-07T10:40:00Z,Official Bank Rate,GBP,High,3.75%,4.00%,',
  '2026-01-07T10:40:00Z,Retail Sales m/m,EUR,Low,0.2%,0.1%,',
  '2026-01-08,Bank Holiday,JPY,Holiday,,,',
].join('\n');

describe('news filter (FeatureNewsFilterDTO) driven by an imported calendar', function () {
  this.timeout(120_000);
  let t: TestService;
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009], USDJPY: [156.5, 156.52] });
    const folder = tempDir('ct-news-filter-');
    const file = path.join(folder, 'week.csv');
    writeFileSync(file, CSV);
    expect(await importCalendar(t.service.services, fileSource(file))).to.include({ read: 3, published: 3 });
    // The read model the engine reads catches up with the import.
    await eventually(async () => {
      const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/economicCalendar?from=2026-01-07&to=2026-01-09`);
      return res.body.totalElements === 3 ? true : undefined;
    });
  });
  after(() => t?.stop());

  it('skips an open in the blackout with the event in the log, copies an unaffected symbol and lets the close through', async () => {
    const { master, slave, copierId } = await trading.copyPair(t, 'news-filter', { skipPendingOrders: false });
    await trading.addFeature(t, `/accounts/${slave}/copiers/${copierId}`, {
      type: 'FeatureNewsFilterDTO',
      blackoutBeforeMinutes: 30,
      blackoutAfterMinutes: 15,
      blockStopChanges: true,
    });
    // 10:00: outside the window, copied.
    const before = await trading.openPosition(t, master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    const [copy] = await bookWhere(t, slave, (b) => b.length === 1, 'the copy before the window');
    // 10:15: inside 10:10 to 10:55.
    clock.advance(15 * 60_000);
    await trading.openPosition(t, master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.1 });
    const skip = await trading.logWith(t, slave, 'NEWS_BLACKOUT');
    expect(skip.text).to.contain('news blackout on GBPUSD: GBP Official Bank Rate (HIGH) at 2026-01-07T10:40:00.000Z, blackout 30 min before to 15 min after');
    expect(skip.copierId).to.equal(copierId);
    // A symbol without GBP is copied: EUR's release is LOW.
    await trading.openPosition(t, master, { symbol: 'EURUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.some((p) => p.symbol === 'EURUSD'), 'the unaffected copy');
    // A pending order on an affected symbol is skipped too (blockPendingOrders defaults to true).
    await trading.openPosition(t, master, { symbol: 'GBPUSD', orderType: 'BuyLimit', volume: 0.1, openPrice: 1.25 });
    await eventually(async () => ((await logsOf(t, slave)).filter((l) => l.code === 'NEWS_BLACKOUT').length === 2 ? true : undefined));
    // blockStopChanges: the master's new stop loss is not copied in the window.
    expect((await modifyPosition(t, master, before, { stopLoss: 1.26 })).status).to.equal(204);
    await eventually(async () => ((await logsOf(t, slave)).filter((l) => l.code === 'NEWS_BLACKOUT').length === 3 ? true : undefined));
    expect((await trading.positionsOf(t, slave)).find((p) => p.id === copy!.id)!.stopLoss).to.equal(0);
    // The close is never blocked.
    expect((await t.call('DELETE', `/accounts/${master}/positions/${before}`)).status).to.equal(204);
    await bookWhere(t, slave, (b) => !b.some((p) => p.id === copy!.id), 'the copy closed inside the blackout');
    // After the window (10:56) the same symbol is copied again.
    clock.advance(41 * 60_000);
    await trading.openPosition(t, master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    await bookWhere(t, slave, (b) => b.some((p) => p.symbol === 'GBPUSD'), 'the copy after the window', 10_000);
  });

  it("refuses windows over 240 minutes and a symbol's two overrides, and answers every member with its default", async () => {
    const { slave, copierId } = await trading.copyPair(t, 'news-filter-bounds');
    const owner = `/accounts/${slave}/copiers/${copierId}`;
    for (const bad of [
      { blackoutBeforeMinutes: 241 },
      { blackoutAfterMinutes: -1 },
      { holidayMode: 'SOMETIMES' },
      { holidayVolumeFactor: 1.5 },
      { symbolOverrides: [{ symbol: 'EURUSD', blackoutBeforeMinutes: 300 }] },
      { symbolOverrides: [{ symbol: 'EURUSD' }, { symbol: 'eurusd', disabled: true }] },
    ]) {
      const res = await t.call('POST', `${owner}/features`, { body: trading.featureBody({ type: 'FeatureNewsFilterDTO', ...bad }) });
      expect([res.status, res.body.error], JSON.stringify(bad)).to.deep.equal([400, '[VALIDATION_FAILED]']);
    }
    const ok = await t.call('POST', `${owner}/features`, {
      body: trading.featureBody({ type: 'FeatureNewsFilterDTO', blackoutBeforeMinutes: 240, blackoutAfterMinutes: 0 }),
    });
    expect(ok.status).to.equal(200);
    expect(ok.body.type).to.include({ id: 49, name: 'FeatureNewsFilterDTO' });
    expect(ok.body.setting).to.deep.equal({
      blackoutBeforeMinutes: 240,
      blackoutAfterMinutes: 0,
      impact: 'HIGH',
      blockMarketOrders: true,
      blockPendingOrders: true,
      blockStopChanges: false,
      includeGlobalEvents: true,
      holidayMode: 'NONE',
      holidayVolumeFactor: 0.5,
      symbolOverrides: [],
      advanceWarningMinutes: 0,
      dailyAgenda: false,
      dailyAgendaTime: '06:00',
      notificationTargets: [],
    });
  });

  it('on a bank holiday of the currency, REDUCE_SIZE halves the lot and SKIP_NEW_OPENS skips', async () => {
    // 2026-01-08 is a JPY holiday in the imported file.
    clock.advance(Date.parse('2026-01-08T09:00:00.000Z') - clock().getTime());
    const reduce = await trading.copyPair(t, 'news-holiday-reduce');
    await trading.addFeature(t, `/accounts/${reduce.slave}/copiers/${reduce.copierId}`, { type: 'FeatureNewsFilterDTO', holidayMode: 'REDUCE_SIZE' });
    await trading.openPosition(t, reduce.master, { symbol: 'USDJPY', orderType: 'Buy', volume: 0.2 });
    const [halved] = await bookWhere(t, reduce.slave, (b) => b.length === 1, 'the reduced copy');
    expect(halved!.volume).to.equal(0.1);
    const skipping = await trading.copyPair(t, 'news-holiday-skip');
    await trading.addFeature(t, `/accounts/${skipping.slave}/copiers/${skipping.copierId}`, { type: 'FeatureNewsFilterDTO', holidayMode: 'SKIP_NEW_OPENS' });
    await trading.openPosition(t, skipping.master, { symbol: 'USDJPY', orderType: 'Buy', volume: 0.2 });
    const skip = await trading.logWith(t, skipping.slave, 'BANK_HOLIDAY');
    expect(skip.text).to.contain('bank holiday of JPY (Bank Holiday) on 2026-01-08: new opens skipped');
  });
});
