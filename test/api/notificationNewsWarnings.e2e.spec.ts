// The news features' notices end to end on a virtual clock (issue 18): the news filter's daily agenda
// at its time and its advance warning before a blackout, news protection's warning before its close
// window, each through the feature's notificationTargets (here an OFFLINE chat channel) once: a look
// again, or a second instance with nothing in memory, sends nothing twice; an event below the
// feature's impact gives no warning.
import { expect } from 'chai';
import { importCalendar } from '../../app/calendar.js';
import { NewsWarnings } from '../../app/newsWarnings.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { textSource } from '../../engine/calendar/source.js';
import { offlineChat } from '../../engine/messaging/offline.js';
import type { Leases } from '../../store/postgres/leases.js';
import { startTestService, type TestService } from '../support/service.js';
import { copyPair, eventually, featureBody, movableClock } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;
const CSV = [
  'date,title,currency,impact,forecast,previous,actual',
  '2026-01-07T12:50:00Z,German Buba Report,EUR,Low,,,',
  '2026-01-07T13:30:00Z,CPI m/m,USD,High,0.3%,0.2%,',
].join('\n');

describe('news filter and news protection notices to notification targets (issue 18)', function () {
  this.timeout(120_000);
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));
  let t: TestService;
  let bot: string;
  const texts = async (): Promise<string[]> => (await offlineChat(bot).read(null)).messages.map((m) => m.text);
  const waitFor = (pattern: RegExp, what: string) => eventually(async () => (await texts()).find((text) => pattern.test(text)), 15_000, what);

  before(async () => {
    t = await startTestService({ clock });
    await importCalendar(t.service.services, textSource('file:week.csv', 'csv', CSV));
    const account = await t.call('POST', `/projects/${A}/features`, { body: featureBody({ type: 'FeatureMessagingAccountDTO', platform: 'OFFLINE' }) });
    bot = account.body.featureId;
    const channel = await t.call('POST', `/projects/${A}/features`, {
      body: featureBody({ type: 'FeatureMessagingNotificationDTO', messagingAccountId: bot, notifications: [{ chatId: 'desk', logLevel: { id: 1 } }] }),
    });
    expect(channel.status, JSON.stringify(channel.body)).to.equal(200);
    const targets = [{ featureId: channel.body.featureId }];
    const { slave, copierId } = await copyPair(t, 'newsnotes');
    const filter = await t.call('POST', `/accounts/${slave}/copiers/${copierId}/features`, {
      body: featureBody({
        type: 'FeatureNewsFilterDTO',
        blackoutBeforeMinutes: 30,
        blackoutAfterMinutes: 15,
        advanceWarningMinutes: 15,
        dailyAgenda: true,
        dailyAgendaTime: '11:00',
        notificationTargets: targets,
      }),
    });
    expect(filter.status, JSON.stringify(filter.body)).to.equal(200);
    const protection = await t.call('POST', `/accounts/${slave}/features`, {
      body: featureBody({ type: 'FeatureNewsProtectionDTO', closeBeforeMinutes: 10, advanceWarningMinutes: 5, notificationTargets: targets }),
    });
    expect(protection.status, JSON.stringify(protection.body)).to.equal(200);
  });
  after(() => t?.stop());

  it('sends the daily agenda at its time, once', async () => {
    await new Promise((r) => setTimeout(r, 2500));
    expect(await texts()).to.deep.equal([]);
    clock.advance(3600_000);
    const agenda = await waitFor(/^News agenda for 2026-01-07/, 'the agenda');
    expect(agenda).to.include('1 event of HIGH impact or more');
    expect(agenda).to.include('2026-01-07 USD CPI m/m (HIGH) at 13:30 UTC: blackout 13:00-13:45');
    expect(agenda).not.to.include('Buba');
  });

  it("warns before the news filter's blackout and before news protection's close, each once", async () => {
    // 12:46: the blackout starts at 13:00, 15 minutes of warning.
    clock.advance(106 * 60_000);
    const warning = await waitFor(/^News blackout in 1\d minutes: USD CPI m\/m/, 'the blackout warning');
    expect(warning).to.include('new opens on symbols of USD are not copied from 13:00 to 13:45 UTC');
    // 13:16: news protection closes at 13:20, 5 minutes of warning.
    clock.advance(30 * 60_000);
    const closing = await waitFor(/^News protection closes copies in \d minutes: USD CPI m\/m/, 'the protection warning');
    expect(closing).to.include('copies on symbols of USD are closed at 13:20 UTC');
    // Another instance (nothing in memory) looking now sends nothing again.
    const other = new NewsWarnings(t.service.services, {} as Leases);
    await other.look();
    await new Promise((r) => setTimeout(r, 3000));
    const all = await texts();
    expect(all.filter((text) => text.startsWith('News agenda'))).to.have.length(1);
    expect(all.filter((text) => text.startsWith('News blackout'))).to.have.length(1);
    expect(all.filter((text) => text.startsWith('News protection'))).to.have.length(1);
    expect(all.some((text) => text.includes('Buba'))).to.equal(false);
  });
});
