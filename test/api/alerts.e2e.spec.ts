// Calendar alerts, notification channels and the iCal feed end to end (spec "Economic calendar, news and
// alerts", state "Calendar subscription"): an alert fires at its lead time on a virtual clock through a
// signed webhook (a loopback receiver) and an e-mail (a local SMTP server from smtp-server); a rule arms
// alerts at the next calendar sync and deleting it disarms them; the feed parses with node-ical and
// refuses a revoked token; a project sees only its own alerts, rules and subscriptions.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import ical from 'node-ical';
import { importCalendar } from '../../app/calendar.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { verifyWebhookSignature } from '../../domain/webhook/signature.js';
import { textSource } from '../../engine/calendar/source.js';
import { type FakeSmtp, startFakeSmtp } from '../support/fakeSmtp.js';
import { createOtherProject, startTestService, type TestService } from '../support/service.js';
import { eventually, featureBody, movableClock } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;
const B = '7b0c51a2-3d4e-4f60-8a1b-2c3d4e5f6a7b';
const B_KEY = 'alerts-e2e-other-project-key-0123456789';
const SECRET = 'whsec_alerts_0123456789abcdef';

const CSV = [
  'date,title,currency,impact,forecast,previous,actual',
  '2026-01-07T13:30:00Z,CPI m/m,USD,High,0.3%,0.2%,',
  '2026-01-08T10:00:00Z,German Factory Orders m/m,EUR,Medium,0.4%,-0.6%,',
  '2026-01-09T13:30:00Z,Non-Farm Employment Change,USD,High,175K,210K,',
].join('\n');

describe('calendar alerts, notification channels and the iCal feed', function () {
  this.timeout(120_000);
  const clock = movableClock(Date.parse('2026-01-07T10:00:00.000Z'));
  let t: TestService;
  let smtp: FakeSmtp;
  let receiver: http.Server;
  const hits: { headers: http.IncomingHttpHeaders; raw: string }[] = [];
  let receiverPort = 0;
  let cpiId: string;
  let nfpId: string;
  let webhookId: string;
  let emailId: string;

  before(async () => {
    smtp = await startFakeSmtp();
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        hits.push({ headers: req.headers, raw });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverPort = (receiver.address() as AddressInfo).port;
    t = await startTestService({
      clock,
      env: {
        ALLOW_PRIVATE_OUTBOUND: 'true',
        SMTP_URL: smtp.url,
        SMTP_FROM: 'alerts@example.test',
        SMTP_ALLOWED_RECIPIENTS: 'example.test,ops@partner.test',
      },
    });
    await createOtherProject(t, B, B_KEY);
    await importCalendar(t.service.services, textSource('file:week.csv', 'csv', CSV));
    const events = await t.call('GET', `/projects/${A}/economicCalendar`);
    const byTitle = (title: string) => (events.body.content as { id: string; title: string }[]).find((e) => e.title === title)!.id;
    cpiId = byTitle('CPI m/m');
    nfpId = byTitle('Non-Farm Employment Change');
    const added = await t.call('POST', `/projects/${A}/features`, {
      body: featureBody({
        type: 'FeatureWebhookDTO',
        url: `http://127.0.0.1:${receiverPort}/alerts`,
        events: ['POSITION_OPENED'],
        authentication: { type: 'HMAC_SHA256', secret: SECRET },
      }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    webhookId = added.body.featureId;
  });
  after(async () => {
    await t?.stop();
    await smtp?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  });

  it('lists the webhook and the e-mail channel as notification channels', async () => {
    const res = await t.call('GET', `/projects/${A}/notificationChannels`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const channels = res.body as { featureId: string; channel: string; recipientRequired: boolean }[];
    expect(channels.map((c) => c.channel)).to.deep.equal(['WEBHOOK', 'EMAIL']);
    expect(channels[0]).to.include({ featureId: webhookId, recipientRequired: false });
    emailId = channels[1]!.featureId;
    const other = await t.call('GET', `/projects/${B}/notificationChannels`, { key: B_KEY });
    expect((other.body as { featureId: string }[]).map((c) => c.featureId)).not.to.include(webhookId);
  });

  it('fires an alert at its lead time through a signed webhook and an e-mail', async () => {
    const targets = [{ featureId: webhookId }, { featureId: emailId, recipient: 'trader@example.test' }];
    const armed = await t.call('POST', `/projects/${A}/calendarAlerts`, { body: { eventId: cpiId, leadMinutes: 30, targets } });
    expect(armed.status, JSON.stringify(armed.body)).to.equal(200);
    expect(armed.body).to.include({ eventId: cpiId, leadMinutes: 30, status: 'PENDING', manual: true, fireAt: '2026-01-07T13:00:00.000Z' });
    // The same event and lead time again updates that alert.
    const again = await t.call('POST', `/projects/${A}/calendarAlerts`, { body: { eventId: cpiId, leadMinutes: 30, targets: targets.slice(0, 1) } });
    expect(again.body.id).to.equal(armed.body.id);
    const back = await t.call('PUT', `/projects/${A}/calendarAlerts/${armed.body.id}`, { body: { targets } });
    expect(back.status, JSON.stringify(back.body)).to.equal(200);
    expect(back.body.targets).to.have.length(2);
    const list = await t.call('GET', `/projects/${A}/calendarAlerts`);
    expect(list.body.map((a: { id: string }) => a.id)).to.deep.equal([armed.body.id]);
    // An e-mail target needs an address; a channel of nothing is refused.
    const bad = await t.call('POST', `/projects/${A}/calendarAlerts`, { body: { eventId: cpiId, leadMinutes: 10, targets: [{ featureId: emailId }] } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.equal('[NOTIFICATION_TARGET_INVALID]');
    // Only the domains and addresses the operator allows (SMTP_ALLOWED_RECIPIENTS).
    const stranger = await t.call('POST', `/projects/${A}/calendarAlerts`, {
      body: { eventId: cpiId, leadMinutes: 10, targets: [{ featureId: emailId, recipient: 'someone@partner.test' }] },
    });
    expect([stranger.status, stranger.body.error]).to.deep.equal([400, '[NOTIFICATION_TARGET_INVALID]']);
    expect(stranger.body.message).to.include('SMTP_ALLOWED_RECIPIENTS');

    // 2 h 58 min on (the alert is due at 13:00): nothing yet; then past 13:00.
    clock.advance(2 * 3600_000 + 58 * 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect(hits).to.have.length(0);
    expect(smtp.mails).to.have.length(0);
    clock.advance(2 * 60_000);
    const hit = await eventually(async () => hits[0], 15_000, 'the webhook delivery');
    expect(hit.headers['x-webhook-event']).to.equal('CALENDAR_ALERT');
    const signature = verifyWebhookSignature({
      secret: SECRET,
      header: hit.headers['x-webhook-signature'] as string,
      rawBody: hit.raw,
      nowSeconds: Date.now() / 1000,
    });
    expect(signature).to.include({ valid: true });
    const body = JSON.parse(hit.raw) as { eventType: string; data: { eventId: string; leadMinutes: number } };
    expect(body.eventType).to.equal('CALENDAR_ALERT');
    expect(body.data).to.include({ eventId: cpiId, leadMinutes: 30 });
    const mail = await eventually(async () => smtp.mails[0], 15_000, 'the e-mail');
    expect(mail.to).to.equal('trader@example.test');
    expect(mail.raw).to.contain('CPI m/m');
    const fired = await eventually(async () => {
      const res = await t.call('GET', `/projects/${A}/calendarAlerts?status=FIRED`);
      return res.body.length === 1 ? res.body[0] : undefined;
    }, 10_000);
    expect(fired).to.include({ id: armed.body.id, deliveries: 2 });
    const changed = await t.call('PUT', `/projects/${A}/calendarAlerts/${armed.body.id}`, { body: { leadMinutes: 5 } });
    expect(changed.status).to.equal(404);
    const channels = await eventually(async () => {
      const res = await t.call('GET', `/projects/${A}/notificationChannels`);
      return res.body.every((c: { deliveries: { DELIVERED: number } }) => c.deliveries.DELIVERED === 1) ? res.body : undefined;
    }, 10_000);
    expect(channels[1].recipients).to.deep.equal([]);
    expect(hits).to.have.length(1);
    expect(smtp.mails).to.have.length(1);
  });

  it('arms rule alerts at the next calendar sync, refuses to change them, and deleting the rule disarms them', async () => {
    const rule = await t.call('POST', `/projects/${A}/calendarAlertRules`, {
      body: { name: 'USD high', currencies: ['USD'], impacts: ['HIGH'], leadMinutes: 60, targets: [{ featureId: webhookId }] },
    });
    expect(rule.status, JSON.stringify(rule.body)).to.equal(200);
    // A sync: an import that changes the calendar (NFP's forecast revised).
    await importCalendar(t.service.services, textSource('file:week.csv', 'csv', CSV.replace('175K', '180K')));
    const armed = await eventually(async () => {
      const res = await t.call('GET', `/projects/${A}/calendarAlerts`);
      const found = res.body.filter((a: { ruleId: string | null }) => a.ruleId === rule.body.id);
      return found.length > 0 ? found : undefined;
    }, 15_000);
    expect(armed.map((a: { eventId: string }) => a.eventId)).to.deep.equal([nfpId]);
    expect(armed[0]).to.include({ manual: false, leadMinutes: 60 });
    const put = await t.call('PUT', `/projects/${A}/calendarAlerts/${armed[0].id}`, { body: { leadMinutes: 5 } });
    expect(put.status).to.equal(409);
    expect(put.body.error).to.equal('[CALENDAR_ALERT_NOT_MANUAL]');
    expect((await t.call('DELETE', `/projects/${A}/calendarAlertRules/${rule.body.id}`)).status).to.equal(200);
    const pending = await t.call('GET', `/projects/${A}/calendarAlerts`);
    expect(pending.body).to.deep.equal([]);
    expect((await t.call('GET', `/projects/${A}/calendarAlertRules`)).body).to.deep.equal([]);
  });

  it('serves the iCal feed by its token only, parsed by node-ical, and refuses it once revoked', async () => {
    const created = await t.call('POST', `/projects/${A}/calendarSubscriptions`, { body: { name: 'phone', currencies: ['USD'] } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const feedUrl = created.body.feedUrl as string;
    expect(feedUrl).to.match(/\/rest\/api\/v1\/projects\/[^/]+\/economicCalendar\.ics\?token=[A-Za-z0-9_-]{43}$/);
    const listed = await t.call('GET', `/projects/${A}/calendarSubscriptions`);
    expect(listed.body).to.have.length(1);
    expect(listed.body[0]).to.include({ id: created.body.id, active: true });
    expect(listed.body[0]).not.to.have.property('feedUrl');
    const res = await fetch(feedUrl);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/calendar');
    const parsed = ical.sync.parseICS(await res.text());
    const vevents = Object.values(parsed).filter((c) => c?.type === 'VEVENT') as ical.VEvent[];
    expect(vevents.map((e) => e.summary).sort()).to.deep.equal(['USD CPI m/m', 'USD Non-Farm Employment Change']);
    expect(vevents.find((e) => e.uid === cpiId)?.start.toISOString()).to.equal('2026-01-07T13:30:00.000Z');
    // Another project's path, a wrong token: refused.
    expect((await fetch(feedUrl.replace(A, B))).status).to.equal(404);
    expect((await fetch(feedUrl.replace(/token=.*/, 'token=nope'))).status).to.equal(404);
    // Project isolation: B sees neither the subscription nor the alerts.
    expect((await t.call('GET', `/projects/${B}/calendarSubscriptions`, { key: B_KEY })).body).to.deep.equal([]);
    expect((await t.call('GET', `/projects/${B}/calendarAlerts?status=FIRED`, { key: B_KEY })).body).to.deep.equal([]);
    expect((await t.call('DELETE', `/projects/${B}/calendarSubscriptions/${created.body.id}`, { key: B_KEY })).status).to.equal(404);
    expect((await t.call('GET', `/projects/${A}/calendarSubscriptions`, { key: B_KEY })).status).to.equal(404);

    expect((await t.call('DELETE', `/projects/${A}/calendarSubscriptions/${created.body.id}`)).status).to.equal(200);
    const revoked = await fetch(feedUrl);
    expect(revoked.status).to.equal(404);
    expect(((await revoked.json()) as { error: string }).error).to.equal('[CALENDAR_SUBSCRIPTION_NOT_FOUND]');
    const after = await t.call('GET', `/projects/${A}/calendarSubscriptions`);
    expect(after.body[0]).to.include({ active: false });
  });
});
