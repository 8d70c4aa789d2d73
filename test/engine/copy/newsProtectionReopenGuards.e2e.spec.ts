// FeatureNewsProtectionDTO's re-open guards and cancelPendingOrders (issue 18), over HTTP on the engine's
// clock with a calendar imported from a file: maxAdverseMovePoints and maxSpreadPoints hold a reopen back
// (REOPEN_ADVERSE_MOVE, REOPEN_SPREAD_TOO_WIDE, each with a reason a user can read) and let it through once
// the market is back; a reopen still held back reopenIntentExpiryMinutes after its time is given up
// (REOPEN_INTENT_EXPIRED); cancelPendingOrders cancels the copies of pending orders on an affected symbol in
// the close window and leaves the others.
import { expect } from 'chai';
import { importCalendar } from '../../../app/calendar.js';
import { textSource } from '../../../engine/calendar/source.js';
import { startTestService, type TestService } from '../../support/service.js';
import * as trading from '../../support/trading.js';
import { bookWhere, movableClock, pinQuotes } from '../../support/trading.js';

const CSV = ['date,title,currency,impact,forecast,previous,actual', '2026-01-07T11:00:00Z,Official Bank Rate,GBP,High,3.75%,4.00%,'].join('\n');
const settle = () => new Promise((resolve) => setTimeout(resolve, 2500));
const gbp = (book: readonly trading.PositionBody[]) => book.filter((p) => p.symbol === 'GBPUSD');

describe('news protection re-open guards and cancelPendingOrders', function () {
  this.timeout(300_000);
  let t: TestService;
  const clock = movableClock(Date.parse('2026-01-07T10:30:00.000Z'));
  const setClock = (iso: string) => clock.advance(Date.parse(iso) - clock().getTime());

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { GBPUSD: [1.27, 1.27009], EURUSD: [1.085, 1.0851] });
    await importCalendar(t.service.services, textSource('file:week.csv', 'csv', CSV));
  });
  after(() => t?.stop());

  it('holds a reopen back on an adverse move or a wide spread, reopens once the market is back, and gives up at the intent expiry', async () => {
    const adverse = await trading.copyPair(t, 'news-reopen-adverse');
    const spread = await trading.copyPair(t, 'news-reopen-spread');
    const expiry = await trading.copyPair(t, 'news-reopen-expiry');
    const protect = (accountId: string, members: Record<string, unknown>) =>
      trading.addFeature(t, `/accounts/${accountId}`, {
        type: 'FeatureNewsProtectionDTO',
        closeBeforeMinutes: 10,
        reopenAfterMinutes: 5,
        reopenMode: 'SAME_VOLUME',
        ...members,
      });
    await protect(adverse.slave, { maxAdverseMovePoints: 50 });
    await protect(spread.slave, { maxSpreadPoints: 20 });
    await protect(expiry.slave, { maxSpreadPoints: 20, reopenIntentExpiryMinutes: 5 });
    for (const pair of [adverse, spread, expiry]) {
      await trading.openPosition(t, pair.master, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.2 });
      await bookWhere(t, pair.slave, (b) => b.length === 1, 'the copy');
    }

    // 10:51: every copy closes (a buy, at the bid 1.27000).
    setClock('2026-01-07T10:51:00.000Z');
    for (const pair of [adverse, spread, expiry]) await bookWhere(t, pair.slave, (b) => b.length === 0, 'the copy closed', 15_000);

    // After the release the bid is 100 points higher (against a buy) and the spread 40 points.
    await pinQuotes(t, { GBPUSD: [1.271, 1.2714] });
    setClock('2026-01-07T11:05:00.000Z');
    const moved = await trading.logWith(t, adverse.slave, 'REOPEN_ADVERSE_MOVE', 15_000);
    expect(moved.text).to.match(
      /^news protection reopen of master #\S+ \(Buy 0\.2 GBPUSD\) after GBP Official Bank Rate \(HIGH\) at 2026-01-07T11:00:00\.000Z not done yet: the price 1\.271 moved 100 points against the copy from its close at 1\.27, above 50; tried until 2026-01-07T12:05:00\.000Z$/,
    );
    const wide = await trading.logWith(t, spread.slave, 'REOPEN_SPREAD_TOO_WIDE', 15_000);
    expect(wide.text).to.match(/not done yet: the spread is 40 points, above 20; tried until 2026-01-07T12:05:00\.000Z$/);
    const wideToo = await trading.logWith(t, expiry.slave, 'REOPEN_SPREAD_TOO_WIDE', 15_000);
    expect(wideToo.text).to.match(/tried until 2026-01-07T11:10:00\.000Z$/);
    await settle();
    for (const pair of [adverse, spread, expiry]) expect(await trading.positionsOf(t, pair.slave)).to.deep.equal([]);

    // 11:11: the expiry pair's intent (5 min from 11:05) has expired, the others' (60 min) not.
    setClock('2026-01-07T11:11:00.000Z');
    const gaveUp = await trading.logWith(t, expiry.slave, 'REOPEN_INTENT_EXPIRED', 15_000);
    expect(gaveUp.text).to.match(
      /^news protection reopen of master #\S+ \(GBPUSD\) after GBP Official Bank Rate \(HIGH\) at 2026-01-07T11:00:00\.000Z given up: not done within 5 min$/,
    );
    expect((await trading.logsOf(t, adverse.slave)).filter((l) => l.code === 'REOPEN_INTENT_EXPIRED')).to.deep.equal([]);

    // The market is back: 3 points above the close, a spread of 7. The two held reopens go through, the expired one not.
    await pinQuotes(t, { GBPUSD: [1.27003, 1.2701] });
    for (const pair of [adverse, spread]) {
      const [reopened] = await bookWhere(t, pair.slave, (b) => b.length === 1, 'the held reopen done', 15_000);
      expect(reopened).to.deep.include({ symbol: 'GBPUSD', orderType: 'Buy', volume: 0.2 });
    }
    await settle();
    expect(await trading.positionsOf(t, expiry.slave)).to.deep.equal([]);
    expect(gbp(await trading.positionsOf(t, adverse.slave))).to.have.length(1);
  });

  it('cancels the pending order copies on an affected symbol in the close window with cancelPendingOrders, and only those', async () => {
    setClock('2026-01-07T12:30:00.000Z');
    await pinQuotes(t, { GBPUSD: [1.27, 1.27009], EURUSD: [1.085, 1.0851] });
    await importCalendar(
      t.service.services,
      textSource('file:later.csv', 'csv', [CSV.split('\n')[0], '2026-01-07T13:00:00Z,MPC Minutes,GBP,High,,,'].join('\n')),
    );
    const cancelling = await trading.copyPair(t, 'news-cancel-pending', { skipPendingOrders: false });
    const keeping = await trading.copyPair(t, 'news-keep-pending', { skipPendingOrders: false });
    await trading.addFeature(t, `/accounts/${cancelling.slave}`, { type: 'FeatureNewsProtectionDTO', closeBeforeMinutes: 10, cancelPendingOrders: true });
    await trading.addFeature(t, `/accounts/${keeping.slave}`, { type: 'FeatureNewsProtectionDTO', closeBeforeMinutes: 10 });
    for (const pair of [cancelling, keeping]) {
      await trading.openPosition(t, pair.master, { symbol: 'GBPUSD', orderType: 'BuyLimit', volume: 0.1, openPrice: 1.26 });
      await trading.openPosition(t, pair.master, { symbol: 'EURUSD', orderType: 'BuyLimit', volume: 0.1, openPrice: 1.08 });
      await bookWhere(t, pair.slave, (b) => b.length === 2, 'the pending order copies');
    }
    // 12:45: outside the window, nothing is cancelled.
    setClock('2026-01-07T12:45:00.000Z');
    await settle();
    expect(await trading.positionsOf(t, cancelling.slave)).to.have.length(2);

    // 12:51: the GBPUSD pending copy is cancelled, with its reason; EURUSD stays, and so does the other account's.
    setClock('2026-01-07T12:51:00.000Z');
    const left = await bookWhere(t, cancelling.slave, (b) => gbp(b).length === 0, 'the GBPUSD pending copy cancelled', 15_000);
    expect(left.map((p) => [p.symbol, p.orderType])).to.deep.equal([['EURUSD', 'BuyLimit']]);
    const why = await trading.eventually(
      async () => (await trading.logsOf(t, cancelling.slave)).find((l) => l.text.includes('pending order #') && l.text.includes('cancelled before')),
      15_000,
      'the cancel logged',
    );
    expect(why.text).to.match(/^news protection: pending order #\S+ cancelled before GBP MPC Minutes \(HIGH\) at 2026-01-07T13:00:00\.000Z/);
    await settle();
    expect((await trading.positionsOf(t, keeping.slave)).map((p) => p.symbol).sort()).to.deep.equal(['EURUSD', 'GBPUSD']);
    // Not placed again while the master's order waits, in the window or after the event.
    setClock('2026-01-07T13:05:00.000Z');
    await settle();
    expect((await trading.positionsOf(t, cancelling.slave)).map((p) => p.symbol)).to.deep.equal(['EURUSD']);
    expect((await trading.positionsOf(t, cancelling.master)).map((p) => p.symbol).sort()).to.deep.equal(['EURUSD', 'GBPUSD']);
  });
});
