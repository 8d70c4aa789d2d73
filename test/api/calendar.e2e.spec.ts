// The economic calendar operations (spec "Economic calendar, news and alerts") over HTTP, with a calendar
// imported by the operator's command line (npm run calendar -- import FILE) as a child process against the
// service's database, and a second import through the same use case revising a forecast.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { importCalendar } from '../../app/calendar.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { fileSource } from '../../engine/calendar/source.js';
import { ROOT } from '../support/process.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { bookWhere, movableClock, positionRequest, startedAccount } from '../support/trading.js';
import { tempDir } from '../support/tempDirs.js';

const runCalendarCli = (args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/calendar.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });

const CSV = (nfpForecast: string) =>
  [
    'date,title,currency,impact,forecast,previous,actual',
    '2025-10-03T12:30:00Z,Non-Farm Employment Change,USD,High,120K,90K,100K',
    '2025-11-07T13:30:00Z,Non-Farm Employment Change,USD,High,130K,100K,150K',
    '2025-12-05T13:30:00Z,Non-Farm Employment Change,USD,High,180K,150K,210K',
    '2025-12-10T19:00:00Z,Federal Funds Rate,USD,High,3.75%,4.00%,3.75%',
    '2026-01-07T13:30:00Z,CPI m/m,USD,High,0.3%,0.2%,',
    '2026-01-08T10:00:00Z,German Factory Orders m/m,EUR,Medium,0.4%,-0.6%,',
    `2026-01-09T13:30:00Z,Non-Farm Employment Change,USD,High,${nfpForecast},210K,`,
    '2026-01-09T13:30:00Z,Unemployment Rate,CAD,High,5.9%,5.8%,',
    '2026-01-22T13:15:00Z,Main Refinancing Rate,EUR,High,2.15%,2.15%,',
    '2026-01-28T19:00:00Z,Federal Funds Rate,USD,High,3.50%,3.75%,',
  ].join('\n');

describe('economic calendar (spec "Economic calendar, news and alerts")', function () {
  this.timeout(300_000);
  let t: TestService;
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));
  const folder = tempDir('ct-calendar-e2e-');
  const base = `/projects/${DEFAULT_PROJECT_ID}`;
  let nfpId: string;

  before(async () => {
    t = await startTestService({ clock });
    writeFileSync(path.join(folder, 'week.csv'), CSV('175K'));
    const imported = await runCalendarCli(['import', path.join(folder, 'week.csv')], { DATABASE_URL: t.databaseUrl, DATA_DIR: t.dataDir });
    expect(imported.code, imported.err + imported.out).to.equal(0);
    expect(imported.out).to.contain('file:week.csv: 10 read, 10 published, 0 revised, 0 unchanged, 0 skipped');
  });
  after(() => t?.stop());

  it('lists the current day and the seven after it by default, by time, with filters and pages', async () => {
    const all = await t.call('GET', `${base}/economicCalendar`);
    expect(all.status).to.equal(200);
    expect(all.body).to.include({ page: 0, size: 20, totalElements: 4, totalPages: 1, from: '2026-01-07T00:00:00.000Z', to: '2026-01-15T00:00:00.000Z' });
    expect(all.body.content.map((e: { title: string }) => e.title)).to.deep.equal([
      'CPI m/m',
      'German Factory Orders m/m',
      'Non-Farm Employment Change',
      'Unemployment Rate',
    ]);
    expect(all.body.content[0]).to.include({
      country: 'US',
      currency: 'USD',
      impact: 'HIGH',
      time: '2026-01-07T13:30:00.000Z',
      forecast: '0.3%',
      previous: '0.2%',
      actual: null,
      revision: 0,
      source: 'file:week.csv',
    });
    nfpId = all.body.content[2].id;

    const usdHigh = await t.call('GET', `${base}/economicCalendar?currencies=usd&impact=HIGH&size=1&page=1`);
    expect(usdHigh.body).to.include({ totalElements: 2, totalPages: 2, page: 1, size: 1 });
    expect(usdHigh.body.content.map((e: { title: string }) => e.title)).to.deep.equal(['Non-Farm Employment Change']);
    const searched = await t.call('GET', `${base}/economicCalendar?search=factory&countries=EU&from=2026-01-01&to=2026-01-31`);
    expect(searched.body.content.map((e: { title: string }) => e.title)).to.deep.equal(['German Factory Orders m/m']);
    const january = await t.call('GET', `${base}/economicCalendar?from=2026-01-01&to=2026-01-31&size=100`);
    expect(january.body.totalElements).to.equal(6);
  });

  it('refuses sizes over 100, unknown impacts and reversed ranges with the spec error format', async () => {
    for (const query of ['size=101', 'impact=SEVERE', 'from=2026-02-01&to=2026-01-01', 'page=-1', 'bogus=1']) {
      const res = await t.call('GET', `${base}/economicCalendar?${query}`);
      expect([res.status, res.body.error], query).to.deep.equal([400, '[VALIDATION_FAILED]']);
      expect(res.body.message).to.be.a('string');
    }
  });

  it('shows one event with its revisions: a changed forecast imported again is revision 1', async () => {
    const file = path.join(folder, 'week.csv');
    writeFileSync(file, CSV('190K'));
    const again = await importCalendar(t.service.services, fileSource(file));
    expect(again).to.include({ read: 10, published: 0, revised: 1, unchanged: 9 });
    const one = await t.call('GET', `${base}/economicCalendar/${nfpId}`);
    expect(one.status).to.equal(200);
    expect(one.body).to.include({ id: nfpId, forecast: '190K', revision: 1 });
    expect(one.body.revisions.map((r: { revision: number; changes: unknown[] }) => [r.revision, r.changes])).to.deep.equal([
      [0, []],
      [1, [{ member: 'forecast', from: '175K', to: '190K' }]],
    ]);
    const missing = await t.call('GET', `${base}/economicCalendar/${crypto.randomUUID()}`);
    expect([missing.status, missing.body.error]).to.deep.equal([404, '[CALENDAR_EVENT_NOT_FOUND]']);
  });

  it('answers the past releases of an indicator, oldest first, limit at most 60', async () => {
    const history = await t.call('GET', `${base}/economicCalendar/${nfpId}/history?limit=2`);
    expect(history.status).to.equal(200);
    expect(history.body.map((e: { time: string; actual: string }) => [e.time.slice(0, 10), e.actual])).to.deep.equal([
      ['2025-11-07', '150K'],
      ['2025-12-05', '210K'],
    ]);
    expect((await t.call('GET', `${base}/economicCalendar/${nfpId}/history`)).body).to.have.length(3);
    expect((await t.call('GET', `${base}/economicCalendar/${nfpId}/history?limit=61`)).status).to.equal(400);
  });

  it("sets an account's open positions against the upcoming events of their currencies", async () => {
    const account = await startedAccount(t, 'Exposed');
    const opened = await t.call('POST', `/accounts/${account}/positions`, { body: positionRequest({ symbol: 'BTCUSD', orderType: 'Buy', volume: 0.01 }) });
    expect(opened.status, JSON.stringify(opened.body)).to.equal(204);
    await bookWhere(t, account, (b) => b.length === 1, 'the position');
    const exposure = await t.call('GET', `${base}/economicCalendar/exposure?accountId=${account}`);
    expect(exposure.status).to.equal(200);
    expect(exposure.body).to.include({ accountId: account, impact: 'HIGH' });
    expect(exposure.body.from.slice(0, 13)).to.equal('2026-01-07T10');
    expect(exposure.body.exposedCurrencies).to.deep.equal(['USD']);
    expect(exposure.body.events.map((e: { title: string }) => e.title)).to.deep.equal(['CPI m/m', 'Non-Farm Employment Change']);
    expect(exposure.body.positions).to.have.length(1);
    expect(exposure.body.positions[0]).to.include({ symbol: 'BTCUSD' });
    expect(exposure.body.positions[0].currencies).to.deep.equal(['USD']);
    const oneDay = await t.call('GET', `${base}/economicCalendar/exposure?accountId=${account}&days=1&impact=medium`);
    expect(oneDay.body.events.map((e: { title: string }) => e.title)).to.deep.equal(['CPI m/m']);
    for (const query of [`accountId=${account}&days=15`, 'days=3', `accountId=${account}&impact=HOLIDAY`]) {
      expect((await t.call('GET', `${base}/economicCalendar/exposure?${query}`)).status, query).to.equal(400);
    }
    expect((await t.call('GET', `${base}/economicCalendar/exposure?accountId=${crypto.randomUUID()}`)).body.error).to.equal('[ACCOUNT_NOT_FOUND]');
  });

  it('computes the risk heatmap, the surprise index and the rate outlook from the events', async () => {
    const heatmap = await t.call('GET', `${base}/economicCalendar/riskHeatmap?currencies=USD,EUR&from=2026-01-07&to=2026-01-09`);
    expect(heatmap.status).to.equal(200);
    expect(heatmap.body).to.include({ from: '2026-01-07', to: '2026-01-09' });
    expect(heatmap.body.cells.map((c: { currency: string; date: string; score: number }) => `${c.currency} ${c.date} ${c.score}`)).to.deep.equal([
      'USD 2026-01-07 3',
      'USD 2026-01-08 0',
      'USD 2026-01-09 3',
      'EUR 2026-01-07 0',
      'EUR 2026-01-08 2',
      'EUR 2026-01-09 0',
    ]);
    expect((await t.call('GET', `${base}/economicCalendar/riskHeatmap?from=2026-01-01&to=2026-03-01`)).status).to.equal(400);

    const surprise = await t.call('GET', `${base}/economicCalendar/surpriseIndex?currencies=USD`);
    expect(surprise.status).to.equal(200);
    const usd = surprise.body[0];
    // Surprises -20K (Oct, first of its series: -1), +20K (Nov, one before: +1), +30K (Dec: 30 / sd(-20, 20) = 30 / 28.28)
    // and the Fed's 0 (Dec: 0); October is outside the 90 days.
    expect(usd.components.map((c: { title: string; zScore: number }) => [c.title, c.zScore])).to.deep.equal([
      ['Non-Farm Employment Change', 1],
      ['Non-Farm Employment Change', 1.0607],
      ['Federal Funds Rate', 0],
    ]);
    expect(usd.index).to.equal(0.6869);
    expect((await t.call('GET', `${base}/economicCalendar/surpriseIndex?days=366`)).status).to.equal(400);

    const outlook = await t.call('GET', `${base}/economicCalendar/rateOutlook`);
    expect(outlook.status).to.equal(200);
    expect(outlook.body.map((o: { currency: string }) => o.currency)).to.deep.equal(['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'NZD']);
    expect(outlook.body[0]).to.deep.include({ currentRate: 3.75, expectedChange: -0.25, bias: 'CUT', centralBank: 'Federal Reserve' });
    expect(outlook.body[0].nextDecision).to.include({ time: '2026-01-28T19:00:00.000Z', forecast: 3.5 });
    expect(outlook.body[1]).to.include({ currentRate: 2.15, expectedChange: 0, bias: 'HOLD' });
    expect(outlook.body[2]).to.include({ currentRate: null, bias: 'UNKNOWN' });
  });

  it('answers bank holidays from date-holidays, the next 30 days by default', async () => {
    const july = await t.call('GET', `${base}/bankHolidays?countries=US,GB&from=2026-07-01&to=2026-07-31`);
    expect(july.status).to.equal(200);
    expect(july.body.map((h: { date: string; country: string }) => `${h.date} ${h.country}`)).to.include('2026-07-03 US');
    const next = await t.call('GET', `${base}/bankHolidays?countries=JP`);
    expect(next.body.map((h: { date: string }) => h.date)).to.include('2026-01-12');
    expect(next.body.every((h: { date: string }) => h.date >= '2026-01-07' && h.date <= '2026-02-05')).to.equal(true);
    expect((await t.call('GET', `${base}/bankHolidays?countries=XX`)).body.error).to.equal('[VALIDATION_FAILED]');
  });

  it("another project's key reads the calendar under its own project only", async () => {
    const other = crypto.randomUUID();
    const key = 'other-project-key-0123456789-calendar';
    await createOtherProject(t, other, key);
    expect((await t.call('GET', `${base}/economicCalendar`, { key })).body.error).to.equal('[PROJECT_NOT_FOUND]');
    const own = await t.call('GET', `/projects/${other}/economicCalendar`, { key });
    // The calendar is the service's market data: the same events for every project.
    expect([own.status, own.body.totalElements]).to.deep.equal([200, 4]);
    const account = (await t.call('GET', '/accounts')).body[0].id as string;
    expect((await t.call('GET', `/projects/${other}/economicCalendar/exposure?accountId=${account}`, { key })).body.error).to.equal('[ACCOUNT_NOT_FOUND]');
  });
});
