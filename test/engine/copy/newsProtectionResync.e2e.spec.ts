// FeatureNewsProtectionDTO reopenMode RESYNC_WITH_MASTER after a partial close of the master (issue 18): a
// master that closed part of its position while the copy was closed for an event gets a reopen sized to
// what it still holds (the copy's lots in that proportion), not the lots the copy had; a master that
// closed nothing gets the copy's lots back.
import { expect } from 'chai';
import { importCalendar } from '../../../app/calendar.js';
import { textSource } from '../../../engine/calendar/source.js';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, movableClock, pinQuotes } from '../../support/trading.js';

const CSV = ['date,title,currency,impact,forecast,previous,actual', '2026-01-07T11:00:00Z,Official Bank Rate,GBP,High,3.75%,4.00%,'].join('\n');

describe('news protection RESYNC_WITH_MASTER after a partial close of the master', function () {
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

  it('reopens the copy in the proportion of what the master still holds', async () => {
    const whole = await trading.copyPair(t, 'news-resync-whole');
    const part = await trading.copyPair(t, 'news-resync-part');
    const half = await trading.copyPair(t, 'news-resync-half', { multiplier: 0.5 });
    const masters: Record<string, string> = {};
    for (const [name, pair] of Object.entries({ whole, part, half })) {
      await trading.addFeature(t, `/accounts/${pair.slave}`, {
        type: 'FeatureNewsProtectionDTO',
        closeBeforeMinutes: 10,
        reopenAfterMinutes: 5,
        reopenMode: 'RESYNC_WITH_MASTER',
      });
      masters[name] = await trading.openPosition(t, pair.master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.4 });
      await bookWhere(t, pair.slave, (b) => b.length === 1, `the ${name} copy`);
    }
    expect((await trading.positionsOf(t, half.slave))[0]!.volume).to.equal(0.2);

    // 10:51: the copies close; then two masters close 0.1 of their 0.4 lots.
    setClock('2026-01-07T10:51:00.000Z');
    for (const pair of [whole, part, half]) await bookWhere(t, pair.slave, (b) => b.length === 0, 'the copy closed', 15_000);
    setClock('2026-01-07T10:55:00.000Z');
    for (const name of ['part', 'half'] as const) {
      const pair = name === 'part' ? part : half;
      expect((await trading.modifyPosition(t, pair.master, masters[name]!, { volume: 0.3 })).status).to.equal(204);
      await bookWhere(t, pair.master, (b) => b[0]?.volume === 0.3, 'the master partly closed');
    }

    // 11:05: the reopens, each sized to what its master holds.
    setClock('2026-01-07T11:05:00.000Z');
    const volumeOf = async (pair: typeof whole) => (await bookWhere(t, pair.slave, (b) => b.length === 1, 'the reopen', 15_000))[0]!.volume;
    expect(await volumeOf(whole)).to.equal(0.4);
    expect(await volumeOf(part)).to.equal(0.3);
    expect(await volumeOf(half)).to.equal(0.15);
    const said = await trading.eventually(
      async () => (await trading.logsOf(t, part.slave)).find((l) => l.text.includes('(RESYNC_WITH_MASTER, 0.3 lots for what the master still holds)')),
      15_000,
      'the reopen logged',
    );
    expect(said.text).to.match(/^news protection reopen of master #\S+ \(Buy 0\.4 GBPUSD\) after GBP Official Bank Rate \(HIGH\)/);

    // Later ticks do not reopen again.
    setClock('2026-01-07T11:08:00.000Z');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const pair of [whole, part, half]) expect(await trading.positionsOf(t, pair.slave)).to.have.length(1);
  });
});
