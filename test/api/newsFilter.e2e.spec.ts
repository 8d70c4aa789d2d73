// The news filter's views over HTTP (spec "Economic calendar, news and alerts"): symbol mapping, preview
// and backtest, with their limits (symbols <= 20, days <= 14), on a calendar imported from a file.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { importCalendar } from '../../app/calendar.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { fileSource } from '../../engine/calendar/source.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually, movableClock, openPosition, pinQuotes, startedAccount } from '../support/trading.js';
import { tempDir } from '../support/tempDirs.js';

const CSV = [
  'date,title,currency,impact,forecast,previous,actual',
  '2026-01-07T10:40:00Z,Official Bank Rate,GBP,High,3.75%,4.00%,',
  '2026-01-08T13:30:00Z,Non-Farm Employment Change,USD,High,175K,199K,',
  '2026-01-09T09:00:00Z,Retail Sales m/m,EUR,Low,0.2%,0.1%,',
  '2026-01-09,Bank Holiday,GBP,Holiday,,,',
  '2026-01-30T13:30:00Z,Non-Farm Employment Change,USD,High,180K,175K,',
].join('\n');

describe('news filter views (symbolMapping, preview, backtest)', function () {
  this.timeout(180_000);
  let t: TestService;
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));
  const base = `/projects/${DEFAULT_PROJECT_ID}/newsFilter`;

  before(async () => {
    t = await startTestService({ clock });
    await pinQuotes(t, { EURUSD: [1.085, 1.0851], GBPUSD: [1.27, 1.27009] });
    const file = path.join(tempDir('ct-news-views-'), 'week.csv');
    writeFileSync(file, CSV);
    expect(await importCalendar(t.service.services, fileSource(file))).to.include({ read: 5, published: 5 });
    await eventually(async () => {
      const res = await t.call('GET', `/projects/${DEFAULT_PROJECT_ID}/economicCalendar?from=2026-01-07&to=2026-01-31&size=100`);
      return res.body.totalElements === 5 ? true : undefined;
    });
  });
  after(() => t?.stop());

  it('maps symbols to their calendar currencies, at most 20 a call', async () => {
    const res = await t.call('GET', `${base}/symbolMapping?symbols=EURUSD,xauusd,US500,eurusd.m,WIDGET&includeGlobalEvents=false`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([
      { symbol: 'EURUSD', currencies: ['EUR', 'USD'], includesGlobalEvents: false },
      { symbol: 'XAUUSD', currencies: ['USD'], includesGlobalEvents: false },
      { symbol: 'US500', currencies: ['USD'], includesGlobalEvents: false },
      { symbol: 'EURUSD.M', currencies: ['EUR', 'USD'], includesGlobalEvents: false },
      { symbol: 'WIDGET', currencies: [], includesGlobalEvents: false },
    ]);
    const many = Array.from({ length: 21 }, (_, i) => `SYM${i}`).join(',');
    for (const query of [`symbols=${many}`, 'symbols=', 'includeGlobalEvents=true', 'symbols=EURUSD&includeGlobalEvents=maybe']) {
      const bad = await t.call('GET', `${base}/symbolMapping?${query}`);
      expect([bad.status, bad.body.error], query).to.deep.equal([400, '[VALIDATION_FAILED]']);
    }
  });

  it('previews the blackout windows and holidays of symbols, days at most 14', async () => {
    const res = await t.call('GET', `${base}/preview?symbols=GBPUSD,EURUSD&before=20&after=10&days=3`);
    expect(res.status).to.equal(200);
    // From the service clock (it runs on from 10:00) over three days.
    expect(res.body).to.include({ impact: 'HIGH', before: 20, after: 10 });
    expect(res.body.from.slice(0, 15)).to.equal('2026-01-07T10:0');
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).to.equal(3 * 24 * 3600_000);
    const [gbp, eur] = res.body.symbols;
    expect(gbp.currencies).to.deep.equal(['GBP', 'USD']);
    expect(gbp.blackouts.map((b: { from: string; to: string; event: { title: string } }) => [b.from, b.to, b.event.title])).to.deep.equal([
      ['2026-01-07T10:20:00.000Z', '2026-01-07T10:50:00.000Z', 'Official Bank Rate'],
      ['2026-01-08T13:10:00.000Z', '2026-01-08T13:40:00.000Z', 'Non-Farm Employment Change'],
    ]);
    expect(gbp.holidays.map((h: { title: string }) => h.title)).to.deep.equal(['Bank Holiday']);
    expect(eur.blackouts.map((b: { event: { title: string } }) => b.event.title)).to.deep.equal(['Non-Farm Employment Change']);
    expect(eur.holidays).to.deep.equal([]);
    const low = await t.call('GET', `${base}/preview?symbols=EURUSD&impact=low&includeHolidays=false&days=14`);
    expect(low.body.symbols[0].blackouts.map((b: { event: { title: string } }) => b.event.title)).to.deep.equal([
      'Non-Farm Employment Change',
      'Retail Sales m/m',
    ]);
    for (const query of ['symbols=EURUSD&days=15', 'symbols=EURUSD&before=241', `symbols=${Array.from({ length: 21 }, (_, i) => `S${i}`).join(',')}`]) {
      const bad = await t.call('GET', `${base}/preview?${query}`);
      expect([bad.status, bad.body.error], query).to.deep.equal([400, '[VALIDATION_FAILED]']);
    }
  });

  it("replays a filter over an account's closed trades and says which it would have blocked", async () => {
    const account = await startedAccount(t, 'news-backtest');
    // 10:30, inside the GBP blackout (10:10 to 10:55 with the defaults 30/15): a GBPUSD and a EURUSD trade.
    clock.advance(30 * 60_000);
    const gbp = await openPosition(t, account, { symbol: 'GBPUSD', orderType: 'Buy', volume: 0.1 });
    const eur = await openPosition(t, account, { symbol: 'EURUSD', orderType: 'Sell', volume: 0.2 });
    clock.advance(60 * 60_000);
    for (const id of [gbp, eur]) expect((await t.call('DELETE', `/accounts/${account}/positions/${id}`)).status).to.equal(204);
    const body = { accountId: account, from: '2026-01-07', to: '2026-01-07' };
    const res = await eventually(async () => {
      const r = await t.call('POST', `${base}/backtest`, { body });
      return r.body.totalTrades === 2 ? r : undefined;
    }, 10_000);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ accountId: account, from: '2026-01-07T00:00:00.000Z', to: '2026-01-08T00:00:00.000Z', totalTrades: 2, blockedTrades: 1 });
    expect(res.body.setting).to.include({ blackoutBeforeMinutes: 30, blackoutAfterMinutes: 15, holidayMode: 'NONE' });
    const byId = new Map(res.body.trades.map((tr: { positionId: string }) => [tr.positionId, tr]));
    expect(byId.get(gbp)).to.deep.include({ symbol: 'GBPUSD', verdict: 'BLOCKED', reason: 'NEWS_BLACKOUT', volume: 0.1 });
    expect((byId.get(gbp) as { message: string }).message).to.contain('GBP Official Bank Rate (HIGH)');
    expect(byId.get(eur)).to.deep.include({ symbol: 'EURUSD', verdict: 'ALLOWED', reason: null, eventId: null });
    // A narrower window lets both through.
    const narrow = await t.call('POST', `${base}/backtest`, { body: { ...body, setting: { blackoutBeforeMinutes: 5 } } });
    expect(narrow.body).to.include({ blockedTrades: 0 });
    for (const bad of [{ ...body, setting: { blackoutBeforeMinutes: 300 } }, { ...body, setting: { bogus: true } }, { from: '2026-01-07' }]) {
      const r = await t.call('POST', `${base}/backtest`, { body: bad });
      expect([r.status, r.body.error], JSON.stringify(bad)).to.deep.equal([400, '[VALIDATION_FAILED]']);
    }
    const unknown = await t.call('POST', `${base}/backtest`, { body: { ...body, accountId: crypto.randomUUID() } });
    expect([unknown.status, unknown.body.error]).to.deep.equal([404, '[ACCOUNT_NOT_FOUND]']);
  });
});
