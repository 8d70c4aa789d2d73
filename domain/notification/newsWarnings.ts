// What the news features tell their notificationTargets, and when (issue 18 "The trading rules"): pure
// functions of a feature's setting, the calendar's events and the engine's clock; app/newsWarnings.ts
// sends what they answer. Each notice has an id fixed by the feature, the event (or the day) and its
// time, so sending it again is a no-op (the outbox's ids derive from it): a notice goes out once.
//   - FeatureNewsFilterDTO, advance warning: advanceWarningMinutes before a blackout starts (event time -
//     blackoutBeforeMinutes), for each event of at least its impact (ALL-currency events with
//     includeGlobalEvents; all-day ones, holidays, never). Due from then until the blackout starts: a
//     warning that comes due while the service is down is sent when it is back, if still before the
//     blackout, and never after.
//   - FeatureNewsFilterDTO, daily agenda: at dailyAgendaTime (HH:mm UTC) each day, the events of at
//     least its impact of the next 24 hours with their blackout windows (and the bank holidays among
//     them). Due for an hour from then (a service down longer skips that day's agenda).
//   - FeatureNewsProtectionDTO, advance warning: advanceWarningMinutes before its close window starts
//     (event time - closeBeforeMinutes), for each event of at least its impact. Due until the closing.
// A notice names currencies, not symbols: a copier copies whatever its master trades, and the rules act
// on every symbol of those currencies.
import { type Impact, impactsFrom } from '../calendar/entry.js';

export interface NoticeEvent {
  readonly eventId: string;
  readonly title: string;
  readonly currency: string;
  readonly impact: string;
  /** ISO 8601. */
  readonly time: string;
  readonly allDay: boolean;
}

export interface NewsNotice {
  /** Stable: the same notice always has the same id. */
  readonly id: string;
  readonly eventType: 'NEWS_FILTER_WARNING' | 'NEWS_FILTER_AGENDA' | 'NEWS_PROTECTION_WARNING';
  readonly subject: string;
  readonly text: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface NewsFilterNoticeSettings {
  readonly blackoutBeforeMinutes: number;
  readonly blackoutAfterMinutes: number;
  readonly impact: Impact;
  readonly includeGlobalEvents: boolean;
  readonly advanceWarningMinutes: number;
  readonly dailyAgenda: boolean;
  /** HH:mm UTC. */
  readonly dailyAgendaTime: string;
}

export interface NewsProtectionNoticeSettings {
  readonly closeBeforeMinutes: number;
  readonly impact: Impact;
  readonly includeGlobalEvents: boolean;
  readonly advanceWarningMinutes: number;
}

const MINUTE = 60_000;
/** How long after its time a daily agenda is still sent. */
export const AGENDA_GRACE_MINUTES = 60;
/** How far ahead of the clock a notice may look at the calendar: the longest warning plus the longest window, or a day's agenda. */
export const NOTICE_REACH_MINUTES = 1440 + 240 + AGENDA_GRACE_MINUTES;

const hhmm = (iso: string): string => iso.slice(11, 16);
const minutesUntil = (at: number, now: number): number => Math.max(0, Math.round((at - now) / MINUTE));

const matching = (events: readonly NoticeEvent[], impact: Impact, global: boolean): NoticeEvent[] => {
  const impacts: readonly string[] = impactsFrom(impact);
  return events.filter((e) => !e.allDay && impacts.includes(e.impact) && (e.currency !== 'ALL' || global));
};

const describe = (e: NoticeEvent): string => `${e.currency} ${e.title} (${e.impact}) at ${hhmm(e.time)} UTC`;

/** The news filter's notices due at `now`. */
export const newsFilterNotices = (featureId: string, s: NewsFilterNoticeSettings, events: readonly NoticeEvent[], now: Date): NewsNotice[] => {
  const t = now.getTime();
  const notices: NewsNotice[] = [];
  const affecting = matching(events, s.impact, s.includeGlobalEvents);
  if (s.advanceWarningMinutes > 0) {
    for (const e of affecting) {
      const start = Date.parse(e.time) - s.blackoutBeforeMinutes * MINUTE;
      const end = Date.parse(e.time) + s.blackoutAfterMinutes * MINUTE;
      if (t < start - s.advanceWarningMinutes * MINUTE || t >= start) continue;
      const window = `${hhmm(new Date(start).toISOString())} to ${hhmm(new Date(end).toISOString())} UTC`;
      notices.push({
        id: `news-filter-warning/${featureId}/${e.eventId}/${e.time}`,
        eventType: 'NEWS_FILTER_WARNING',
        subject: `News blackout in ${minutesUntil(start, t)} minutes: ${e.currency} ${e.title}`,
        text: `${describe(e)}: new opens on ${e.currency === 'ALL' ? 'every symbol' : `symbols of ${e.currency}`} are not copied from ${window}.`,
        data: {
          featureId,
          eventId: e.eventId,
          title: e.title,
          currency: e.currency,
          impact: e.impact,
          time: e.time,
          blackoutFrom: new Date(start).toISOString(),
          blackoutTo: new Date(end).toISOString(),
        },
      });
    }
  }
  if (s.dailyAgenda) {
    const day = now.toISOString().slice(0, 10);
    const at = Date.parse(`${day}T${s.dailyAgendaTime}:00.000Z`);
    if (t >= at && t < at + AGENDA_GRACE_MINUTES * MINUTE) {
      const upcoming = affecting
        .filter((e) => Date.parse(e.time) >= at && Date.parse(e.time) < at + 1440 * MINUTE)
        .sort((a, b) => a.time.localeCompare(b.time));
      const holidays = events.filter((e) => e.impact === 'HOLIDAY' && Date.parse(e.time) >= at - 1440 * MINUTE && Date.parse(e.time) < at + 1440 * MINUTE);
      const lines = upcoming.map((e) => {
        const from = new Date(Date.parse(e.time) - s.blackoutBeforeMinutes * MINUTE).toISOString();
        const to = new Date(Date.parse(e.time) + s.blackoutAfterMinutes * MINUTE).toISOString();
        return `${e.time.slice(0, 10)} ${describe(e)}: blackout ${hhmm(from)}-${hhmm(to)}`;
      });
      for (const h of holidays) lines.push(`${h.time.slice(0, 10)} bank holiday ${h.currency}: ${h.title}`);
      notices.push({
        id: `news-filter-agenda/${featureId}/${day}`,
        eventType: 'NEWS_FILTER_AGENDA',
        subject: `News agenda for ${day}: ${upcoming.length} ${upcoming.length === 1 ? 'event' : 'events'} of ${s.impact} impact or more`,
        text: lines.length > 0 ? lines.join('\n') : `No event of ${s.impact} impact or more in the next 24 hours.`,
        data: { featureId, day, events: upcoming.map((e) => ({ eventId: e.eventId, title: e.title, currency: e.currency, impact: e.impact, time: e.time })) },
      });
    }
  }
  return notices;
};

/** News protection's notices due at `now`. */
export const newsProtectionNotices = (featureId: string, s: NewsProtectionNoticeSettings, events: readonly NoticeEvent[], now: Date): NewsNotice[] => {
  if (s.advanceWarningMinutes <= 0) return [];
  const t = now.getTime();
  return matching(events, s.impact, s.includeGlobalEvents).flatMap((e): NewsNotice[] => {
    const close = Date.parse(e.time) - s.closeBeforeMinutes * MINUTE;
    if (t < close - s.advanceWarningMinutes * MINUTE || t >= close) return [];
    return [
      {
        id: `news-protection-warning/${featureId}/${e.eventId}/${e.time}`,
        eventType: 'NEWS_PROTECTION_WARNING',
        subject: `News protection closes copies in ${minutesUntil(close, t)} minutes: ${e.currency} ${e.title}`,
        text: `${describe(e)}: copies on ${e.currency === 'ALL' ? 'every symbol' : `symbols of ${e.currency}`} are closed at ${hhmm(new Date(close).toISOString())} UTC.`,
        data: { featureId, eventId: e.eventId, title: e.title, currency: e.currency, impact: e.impact, time: e.time, closeAt: new Date(close).toISOString() },
      },
    ];
  });
};
