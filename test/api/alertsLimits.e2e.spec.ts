// What calendar alerting does at its edges (spec "Economic calendar, news and alerts", state "Calendar
// subscription"), on a clock the spec sets: the iCal feed's rate limit is counted in the database, so two
// instances of the service on one database count together (429 [RATE_LIMITED] with Retry-After, and again
// 200 in the next minute); the feed's range (7 days back, 30 ahead); at most 20 active subscriptions a
// project; an alert whose event is more than 15 minutes past is MISSED, not sent, while one 10 minutes past
// still fires; a narrowed rule disarms its alerts of events it no longer takes at the next sync; and
// deleting a project disarms its alerts, deletes its rules and revokes its feeds.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import ical from 'node-ical';
import { importCalendar } from '../../app/calendar.js';
import { createProject } from '../../app/commands/projects.js';
import { DEFAULT_PROJECT_ID } from '../../domain/project/decider.js';
import { systemContext } from '../../domain/shared/command.js';
import { textSource } from '../../engine/calendar/source.js';
import { startTestService, type TestService } from '../support/service.js';
import { eventually, featureBody } from '../support/trading.js';

const A = DEFAULT_PROJECT_ID;
const NOW = Date.parse('2026-01-07T10:00:00.000Z');
const CSV = (cpiForecast: string) =>
  [
    'date,title,currency,impact,forecast,previous,actual',
    '2025-12-30T10:00:00Z,Old GDP q/q,USD,High,0.1%,0.2%,0.3%',
    '2026-01-01T10:00:00Z,New Year PMI,USD,High,50.1,49.9,50.5',
    '2026-01-07T09:40:00Z,Retail Sales m/m,USD,High,0.2%,0.1%,',
    '2026-01-07T09:50:00Z,Trade Balance,EUR,High,12.1B,11.9B,',
    `2026-01-08T13:30:00Z,CPI m/m,USD,High,${cpiForecast},0.2%,`,
    '2026-01-08T10:00:00Z,German Factory Orders m/m,EUR,Medium,0.4%,-0.6%,',
    '2026-02-05T10:00:00Z,Far CPI y/y,USD,High,2.9%,3.0%,',
    '2026-02-07T10:00:00Z,Too Far CPI y/y,USD,High,2.9%,3.0%,',
  ].join('\n');

type Alert = { id: string; eventId: string; status: string; event: { title: string }; disarmReason: string | null };

describe('calendar alerting at its limits: shared feed rate, range, subscriptions, cutoff, narrowed rules, deleted projects', function () {
  this.timeout(180_000);
  // The spec's clock: it moves only when the spec moves it.
  let at = NOW;
  const clock = () => new Date(at);
  let t: TestService;
  let t2: TestService;
  let receiver: http.Server;
  let webhookUrl: string;
  const ids: Record<string, string> = {};

  const webhookOf = async (key?: string, project = A) => {
    const added = await t.call('POST', `/projects/${project}/features`, {
      ...(key ? { key } : {}),
      body: featureBody({
        type: 'FeatureWebhookDTO',
        url: webhookUrl,
        events: ['POSITION_OPENED'],
        authentication: { type: 'HMAC_SHA256', secret: 'whsec_limits_0123456789abcdef' },
      }),
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(200);
    return added.body.featureId as string;
  };
  const alerts = async (status: string, key?: string, project = A): Promise<Alert[]> =>
    (await t.call('GET', `/projects/${project}/calendarAlerts?status=${status}`, key ? { key } : {})).body as Alert[];
  /** A calendar sync (an import that changes the calendar), a second later. */
  const sync = async (cpiForecast: string) => {
    at += 1000;
    await importCalendar(t.service.services, textSource('file:limits.csv', 'csv', CSV(cpiForecast)));
  };

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alerts`;
    t = await startTestService({ clock, env: { ALLOW_PRIVATE_OUTBOUND: 'true' } });
    t2 = await startTestService({ databaseUrl: t.databaseUrl, dataDir: t.dataDir, clock, env: { ALLOW_PRIVATE_OUTBOUND: 'true' } });
    await importCalendar(t.service.services, textSource('file:limits.csv', 'csv', CSV('0.3%')));
    const listed = await t.call('GET', `/projects/${A}/economicCalendar?from=2025-12-01&to=2026-03-01&size=100`);
    for (const e of listed.body.content as { id: string; title: string }[]) ids[e.title] = e.id;
    expect(Object.keys(ids)).to.have.length(8);
  });
  after(async () => {
    await t2?.stop();
    await t?.stop();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  });

  it('serves the feed from 7 days back to 30 days ahead', async () => {
    const created = await t.call('POST', `/projects/${A}/calendarSubscriptions`, { body: { name: 'range' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const res = await fetch(created.body.feedUrl as string);
    expect(res.status).to.equal(200);
    const vevents = Object.values(ical.sync.parseICS(await res.text())).filter((c) => c?.type === 'VEVENT') as ical.VEvent[];
    expect(vevents.map((e) => e.uid).sort()).to.deep.equal(
      ['New Year PMI', 'Retail Sales m/m', 'Trade Balance', 'CPI m/m', 'German Factory Orders m/m', 'Far CPI y/y'].map((title) => ids[title]).sort(),
    );
    expect((await t.call('DELETE', `/projects/${A}/calendarSubscriptions/${created.body.id}`)).status).to.equal(200);
  });

  it('counts the feed requests of a subscription across instances: the 13th in a minute is 429, the next minute serves again', async () => {
    at = NOW + 10 * 60_000 + 5000;
    const created = await t.call('POST', `/projects/${A}/calendarSubscriptions`, { body: { name: 'rate', currencies: ['EUR'] } });
    const one = created.body.feedUrl as string;
    const two = one.replace(t.url, t2.url);
    expect(two).not.to.equal(one);
    for (let i = 0; i < 6; i++) {
      expect((await fetch(one)).status, `request ${2 * i + 1}`).to.equal(200);
      expect((await fetch(two)).status, `request ${2 * i + 2}`).to.equal(200);
    }
    for (const url of [two, one]) {
      const refused = await fetch(url);
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.equal('55');
      expect(((await refused.json()) as { error: string }).error).to.equal('[RATE_LIMITED]');
    }
    // Another subscription has its own count.
    const other = await t.call('POST', `/projects/${A}/calendarSubscriptions`, { body: { name: 'rate 2' } });
    expect((await fetch(other.body.feedUrl as string)).status).to.equal(200);
    at += 55_000;
    expect((await fetch(two)).status).to.equal(200);
    expect((await fetch(one)).status).to.equal(200);
    for (const id of [created.body.id, other.body.id]) await t.call('DELETE', `/projects/${A}/calendarSubscriptions/${id}`);
  });

  it('keeps at most 20 active subscriptions a project; a revoked one makes room', async () => {
    const made: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await t.call('POST', `/projects/${A}/calendarSubscriptions`, { body: { name: `s${i}` } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      made.push(res.body.id);
    }
    const refused = await t.call('POST', `/projects/${A}/calendarSubscriptions`, { body: { name: 'one too many' } });
    expect([refused.status, refused.body.error]).to.deep.equal([400, '[CALENDAR_SUBSCRIPTION_LIMIT_REACHED]']);
    expect((await t.call('DELETE', `/projects/${A}/calendarSubscriptions/${made[0]}`)).status).to.equal(200);
    expect((await t.call('POST', `/projects/${A}/calendarSubscriptions`, { body: { name: 'room again' } })).status).to.equal(200);
    for (const id of made.slice(1)) await t.call('DELETE', `/projects/${A}/calendarSubscriptions/${id}`);
  });

  it('sends an alert on an event 10 minutes past, and marks one on an event 20 minutes past MISSED without sending it', async () => {
    at = NOW;
    const webhook = await webhookOf();
    const targets = [{ featureId: webhook }];
    const late = await t.call('POST', `/projects/${A}/calendarAlerts`, { body: { eventId: ids['Trade Balance'], leadMinutes: 0, targets } });
    const missed = await t.call('POST', `/projects/${A}/calendarAlerts`, { body: { eventId: ids['Retail Sales m/m'], leadMinutes: 0, targets } });
    expect([late.status, missed.status]).to.deep.equal([200, 200]);
    const fired = await eventually(
      async () => {
        const list = await alerts('FIRED');
        return list.length === 1 ? list : undefined;
      },
      20_000,
      'the late alert fired',
    );
    expect(fired[0]).to.include({ id: late.body.id });
    const notSent = await eventually(
      async () => {
        const list = await alerts('MISSED');
        return list.length === 1 ? list : undefined;
      },
      20_000,
      'the alert past the cutoff missed',
    );
    expect(notSent[0]).to.include({ id: missed.body.id, firedAt: null, deliveries: null });
    expect(await alerts('PENDING')).to.deep.equal([]);
  });

  it('disarms, at the next sync, the pending alerts of a narrowed rule whose events it no longer takes', async () => {
    const targets = [{ featureId: await webhookOf() }];
    const rule = await t.call('POST', `/projects/${A}/calendarAlertRules`, {
      body: { name: 'majors', currencies: ['USD', 'EUR'], impacts: ['HIGH', 'MEDIUM'], leadMinutes: 15, targets },
    });
    expect(rule.status, JSON.stringify(rule.body)).to.equal(200);
    await sync('0.4%');
    const armed = await eventually(
      async () => {
        const list = await alerts('PENDING');
        return list.length === 2 ? list : undefined;
      },
      20_000,
      'the rule armed its alerts',
    );
    expect(armed.map((a) => a.event.title).sort()).to.deep.equal(['CPI m/m', 'German Factory Orders m/m']);
    const narrowed = await t.call('POST', `/projects/${A}/calendarAlertRules`, {
      body: { id: rule.body.id, name: 'majors', currencies: ['USD'], impacts: ['HIGH', 'MEDIUM'], leadMinutes: 15, targets },
    });
    expect(narrowed.status, JSON.stringify(narrowed.body)).to.equal(200);
    // Effective at the next sync, not before.
    expect(await alerts('PENDING')).to.have.length(2);
    await sync('0.5%');
    const left = await eventually(
      async () => {
        const list = await alerts('PENDING');
        return list.length === 1 ? list : undefined;
      },
      20_000,
      'the narrowed rule disarmed',
    );
    expect(left.map((a) => a.event.title)).to.deep.equal(['CPI m/m']);
    const disarmed = await alerts('DISARMED');
    expect(disarmed.map((a) => [a.event.title, a.disarmReason])).to.deep.equal([['German Factory Orders m/m', 'RULE_NARROWED']]);
    expect(left[0]!.disarmReason).to.equal(null);

    // Widened again: at the next sync what the narrowing disarmed is pending again (the same alert).
    const widened = await t.call('POST', `/projects/${A}/calendarAlertRules`, {
      body: { id: rule.body.id, name: 'majors', currencies: ['USD', 'EUR'], impacts: ['HIGH', 'MEDIUM'], leadMinutes: 15, targets },
    });
    expect(widened.status, JSON.stringify(widened.body)).to.equal(200);
    await sync('0.6%');
    const rearmed = await eventually(
      async () => {
        const list = await alerts('PENDING');
        return list.length === 2 ? list : undefined;
      },
      20_000,
      'the widened rule re-armed',
    );
    expect(rearmed.find((a) => a.event.title === 'German Factory Orders m/m')).to.deep.include({ id: disarmed[0]!.id, disarmReason: null });
    expect(await alerts('DISARMED')).to.deep.equal([]);
    expect((await t.call('DELETE', `/projects/${A}/calendarAlertRules/${rule.body.id}`)).status).to.equal(200);
    const deleted = await eventually(
      async () => {
        const list = await alerts('DISARMED');
        return list.length === 2 ? list : undefined;
      },
      20_000,
      'the deleted rule disarmed',
    );
    expect(deleted.map((a) => a.disarmReason)).to.deep.equal(['RULE_DELETED', 'RULE_DELETED']);
  });

  it("deleting a project disarms its alerts, deletes its rules and revokes its feeds; another project's stay", async () => {
    const { project, key } = await createProject(t.service.services, { name: 'Short-lived desk', owner: 'owner@example.com' }, systemContext('spec'));
    const C = project.id;
    const targets = [{ featureId: await webhookOf(key.key, C) }];
    const manual = await t.call('POST', `/projects/${C}/calendarAlerts`, { key: key.key, body: { eventId: ids['CPI m/m'], leadMinutes: 30, targets } });
    expect(manual.status, JSON.stringify(manual.body)).to.equal(200);
    const rule = await t.call('POST', `/projects/${C}/calendarAlertRules`, {
      key: key.key,
      body: { name: 'usd', currencies: ['USD'], leadMinutes: 15, targets },
    });
    expect(rule.status, JSON.stringify(rule.body)).to.equal(200);
    const feed = await t.call('POST', `/projects/${C}/calendarSubscriptions`, { key: key.key, body: { name: 'desk' } });
    expect((await fetch(feed.body.feedUrl as string)).status).to.equal(200);
    const mine = await t.call('POST', `/projects/${A}/calendarAlerts`, {
      body: { eventId: ids['CPI m/m'], leadMinutes: 45, targets: [{ featureId: await webhookOf() }] },
    });
    expect(mine.status, JSON.stringify(mine.body)).to.equal(200);

    expect((await t.call('DELETE', `/projects/${C}`, { key: key.key })).status).to.equal(200);
    const db = t.service.services.db;
    const left = await db.selectFrom('calendar_alerts').select(['alert_id', 'status']).where('project_id', '=', C).execute();
    expect(left).to.deep.equal([{ alert_id: manual.body.id, status: 'DISARMED' }]);
    expect(await db.selectFrom('calendar_alert_rules').select('rule_id').where('project_id', '=', C).execute()).to.deep.equal([]);
    const subscriptions = await db.selectFrom('calendar_subscriptions').select('revoked_at').where('project_id', '=', C).execute();
    expect(subscriptions.map((s) => s.revoked_at !== null)).to.deep.equal([true]);
    expect((await fetch(feed.body.feedUrl as string)).status).to.equal(404);
    // A's alert is untouched.
    expect((await alerts('PENDING')).map((a) => a.id)).to.include(mine.body.id);
  });
});
