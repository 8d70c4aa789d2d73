// FeatureNewsProtectionDTO's close options (issue 18): onlyLosingPositions closes only copies in loss, and
// minimumFloatingProfit keeps a copy whose profit reaches it, in the close window before an event on the
// engine's clock (a calendar imported from a file).
import { expect } from 'chai';
import { importCalendar } from '../../../app/calendar.js';
import { textSource } from '../../../engine/calendar/source.js';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, movableClock, pinQuotes } from '../../support/trading.js';

const CSV = ['date,title,currency,impact,forecast,previous,actual', '2026-01-07T11:00:00Z,Official Bank Rate,GBP,High,3.75%,4.00%,'].join('\n');

describe('news protection close options: only losing, minimum floating profit', function () {
  this.timeout(300_000);
  let t: TestService;
  const clock = movableClock(Date.parse('2026-01-07T10:30:00.000Z'));
  const setClock = (iso: string) => clock.advance(Date.parse(iso) - clock().getTime());

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { GBPUSD: [1.27, 1.27009] });
    await importCalendar(t.service.services, textSource('file:week.csv', 'csv', CSV));
  });
  after(() => t?.stop());

  it('closes only the losing copy with onlyLosingPositions, and keeps a copy at minimumFloatingProfit', async () => {
    const losing = await trading.copyPair(t, 'news-guard-losing');
    const floating = await trading.copyPair(t, 'news-guard-floating');
    await trading.addFeature(t, `/accounts/${losing.slave}`, { type: 'FeatureNewsProtectionDTO', closeBeforeMinutes: 10, onlyLosingPositions: true });
    await trading.addFeature(t, `/accounts/${floating.slave}`, { type: 'FeatureNewsProtectionDTO', closeBeforeMinutes: 10, minimumFloatingProfit: 50 });
    for (const pair of [losing, floating]) {
      await trading.openPosition(t, pair.master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.2 });
      await trading.openPosition(t, pair.master, { symbol: 'GBPUSD', orderType: 'Sell', volume: 0.2 });
      await bookWhere(t, pair.slave, (b) => b.length === 2, 'the copies');
    }
    // GBPUSD up 100 points: the buys gain about 200, the sells lose as much.
    await pinQuotes(t, { GBPUSD: [1.28, 1.28009] });
    setClock('2026-01-07T10:51:00.000Z');
    // onlyLosingPositions: the sell (in loss) closes, the buy stays.
    const kept = await bookWhere(t, losing.slave, (b) => b.length === 1, 'the losing copy closed', 15_000);
    expect(kept[0]!.orderType).to.equal('Buy');
    // minimumFloatingProfit 50: the buy (about +200) stays, the sell closes.
    const above = await bookWhere(t, floating.slave, (b) => b.length === 1, 'the copy below the minimum closed', 15_000);
    expect(above[0]!.orderType).to.equal('Buy');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await trading.positionsOf(t, losing.slave)).to.have.length(1);
    expect(await trading.positionsOf(t, floating.slave)).to.have.length(1);
  });
});
