// Calendar alerts fire at their lead time on the service's clock (the engine's: a virtual one in the
// specs), by one leased job (store/postgres/leases.ts: of several instances sharing a database one
// looks at a time; a dead instance's turn moves within seconds), like app/leasedRetention.ts and the
// keep-alive trades. At each look:
//   - the standing rules arm their alerts when the calendar was synced since the last look (any import
//     changed calendar_events, or the online feed was fetched: its processor_checkpoints row moved):
//     "effective at the next calendar sync" (spec "Economic calendar, news and alerts");
//   - a pending alert whose event is more than CALENDAR_ALERT_CUTOFF_MINUTES past (the service was down
//     through its fire time, or it was armed on an event already past) is not sent: it is MISSED;
//   - every other pending alert whose event time minus lead time has come is sent through its targets
//     (app/notifications.ts: deliveries enqueued in the outbox with ids fixed per alert and target),
//     then marked fired. A crash between the two enqueues again at the next look: the same ids, no
//     second delivery.
// Both reads are kept (projections/keptRead.ts) while their inputs have not moved: the calendar's stamp
// while the calendar read model's mark and the feed's mark (calendarFeedMark: its syncs by this
// instance while it holds the sync lease) stay; the soonest fire time of the pending alerts while the
// alerts and calendar read models' marks stay, and the due alerts are read only once the clock has
// reached it. An idle instance then reads nothing here; where a mark is unknown (another instance
// applies the read models or syncs the feed) every look reads, as before.
import { sql } from 'kysely';
import { systemContext } from '../domain/shared/command.js';
import { alertsDecider } from '../domain/alerts/decider.js';
import { alertsStream } from '../domain/alerts/events.js';
import type { NotificationTarget } from '../domain/notification/targets.js';
import { KeptRead, type ReadModelMarks } from '../projections/keptRead.js';
import { LeasedLoop } from '../store/postgres/leasedLoop.js';
import type { Leases } from '../store/postgres/leases.js';
import { handleCommand } from '../store/commandHandler.js';
import { applyCalendarAlertRules } from './alerts.js';
import { CALENDAR_FEED_CHECKPOINT, calendarFeedMark } from './calendarSync.js';
import { outboxNotifications, type NotificationPort } from './notifications.js';
import type { Services } from './services.js';

export const CALENDAR_ALERTS_LEASE = 'calendar-alerts';
/** A reminder of an event more than this many minutes past is not sent (it would only tell what happened). */
export const CALENDAR_ALERT_CUTOFF_MINUTES = 15;
/** The feed's mark among the read models' marks of the kept stamp. */
const CALENDAR_FEED = 'calendar feed';

interface DueAlert {
  alert_id: string;
  project_id: string;
  event_id: string;
  lead_minutes: number;
  targets: NotificationTarget[];
  title: string;
  currency: string;
  country: string;
  impact: string;
  time: Date;
  forecast: string | null;
  previous: string | null;
}

export class CalendarAlertScheduler {
  private readonly loop: LeasedLoop;
  private calendarStamp: string | null = null;
  private readonly port: NotificationPort;
  /** The calendar's stamp, read again once the calendar read model or the feed moved. */
  private readonly stamp: KeptRead<string>;
  /** The soonest fire time of a pending alert (null: none), read again once the alerts or the calendar moved. */
  private readonly nextDue: KeptRead<Date | null>;

  constructor(
    private readonly services: Services,
    leases: Leases,
    /** How often the holder looks (default 2 s). */
    lookMs = 2000,
  ) {
    this.port = outboxNotifications(services);
    const marks: ReadModelMarks = (name) => (name === CALENDAR_FEED ? calendarFeedMark(leases) : services.runner.version(name));
    this.stamp = new KeptRead(['calendar', CALENDAR_FEED], () => this.stampOfCalendar(), marks);
    this.nextDue = new KeptRead(['alerts', 'calendar'], () => this.soonestFireTime(), marks);
    this.loop = new LeasedLoop({
      leases,
      lease: CALENDAR_ALERTS_LEASE,
      everyMs: lookMs,
      rounds: services.jobRounds,
      round: async () => {
        await this.applyRulesIfSynced();
        await this.fireDue();
      },
      failed: (error) => services.log.warn(`calendar alerts: a look failed (tried again at the next): ${String(error)}`),
    });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** A mark that moves whenever the calendar was synced. */
  private async stampOfCalendar(): Promise<string> {
    const r = await sql<{ stamp: string }>`SELECT concat((SELECT count(*) FROM calendar_events), '/', (SELECT max(updated) FROM calendar_events), '/',
      (SELECT updated FROM processor_checkpoints WHERE name = ${CALENDAR_FEED_CHECKPOINT})) AS stamp`.execute(this.services.db);
    return r.rows[0]?.stamp ?? '';
  }

  /** When the soonest pending alert falls due (its event time less its lead time); null: none pending. */
  private async soonestFireTime(): Promise<Date | null> {
    const r = await sql<{ due: Date | null }>`SELECT min(e.time - a.lead_minutes * interval '1 minute') AS due
      FROM calendar_alerts a JOIN calendar_events e ON e.event_id = a.event_id WHERE a.status = 'PENDING'`.execute(this.services.db);
    const due = r.rows[0]?.due;
    return due ? new Date(due) : null;
  }

  /** Arms the rules' alerts when the calendar was synced since the last look; answers how many were armed. */
  async applyRulesIfSynced(): Promise<number> {
    const stamp = await this.stamp.get();
    if (stamp === this.calendarStamp) return 0;
    const armed = await applyCalendarAlertRules(this.services, systemContext(`calendar-alerts-${crypto.randomUUID()}`));
    this.calendarStamp = stamp;
    return armed;
  }

  /** Sends every alert due now (those past the cutoff become MISSED); answers how many fired. */
  async fireDue(): Promise<number> {
    const now = this.services.clock();
    const soonest = await this.nextDue.get();
    if (soonest === null || soonest.getTime() > now.getTime()) return 0;
    const due = (
      await sql<DueAlert>`SELECT a.alert_id, a.project_id, a.event_id, a.lead_minutes, a.targets, e.title, e.currency, e.country, e.impact,
        e.time, e.forecast, e.previous
      FROM calendar_alerts a JOIN calendar_events e ON e.event_id = a.event_id
      WHERE a.status = 'PENDING' AND e.time - a.lead_minutes * interval '1 minute' <= ${now}
      ORDER BY e.time, a.alert_id LIMIT 500`.execute(this.services.db)
    ).rows;
    let fired = 0;
    for (const alert of due) {
      const eventTime = new Date(alert.time).toISOString();
      if (new Date(alert.time).getTime() < now.getTime() - CALENDAR_ALERT_CUTOFF_MINUTES * 60_000) {
        await handleCommand(this.services.store, alertsStream(alert.project_id), alertsDecider, {
          type: 'MissCalendarAlert',
          data: { projectId: alert.project_id, alertId: alert.alert_id, eventTime },
          metadata: { now: now.toISOString(), context: systemContext(`calendar-alert-${alert.alert_id}`) },
        });
        continue;
      }
      fired += 1;
      const minutes = Math.round((new Date(alert.time).getTime() - now.getTime()) / 60_000);
      const when = minutes > 0 ? `in ${minutes} minutes` : minutes === 0 ? 'now' : `${-minutes} minutes ago`;
      const subject = `${alert.currency} ${alert.title} ${when} (${alert.impact})`;
      const text = [
        `${alert.title} (${alert.country}, ${alert.currency}, impact ${alert.impact})`,
        `Release: ${eventTime} (${when})`,
        `Forecast: ${alert.forecast ?? '-'}   Previous: ${alert.previous ?? '-'}`,
      ].join('\n');
      const deliveries = await this.port.notify(
        {
          id: `calendar-alert/${alert.alert_id}`,
          projectId: alert.project_id,
          eventType: 'CALENDAR_ALERT',
          subject,
          text,
          data: {
            alertId: alert.alert_id,
            eventId: alert.event_id,
            leadMinutes: alert.lead_minutes,
            title: alert.title,
            country: alert.country,
            currency: alert.currency,
            impact: alert.impact,
            time: eventTime,
            forecast: alert.forecast,
            previous: alert.previous,
          },
          at: now.toISOString(),
        },
        alert.targets,
      );
      await handleCommand(this.services.store, alertsStream(alert.project_id), alertsDecider, {
        type: 'FireCalendarAlert',
        data: { projectId: alert.project_id, alertId: alert.alert_id, eventTime, deliveries },
        metadata: { now: now.toISOString(), context: systemContext(`calendar-alert-${alert.alert_id}`) },
      });
    }
    return fired;
  }
}
