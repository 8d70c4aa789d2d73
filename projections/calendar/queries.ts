// Queries of the economic calendar read model.
import { type Kysely, sql } from 'kysely';
import type { CalendarRecord } from '../../domain/calendar/analytics.js';
import type { Impact } from '../../domain/calendar/entry.js';
import type { CalendarChange } from '../../domain/calendar/events.js';
import type { ReadModels } from '../schema.js';

export interface CalendarRow extends CalendarRecord {
  readonly revision: number;
  readonly source: string;
  readonly created: string;
  readonly updated: string;
}

export interface CalendarRevisionRow {
  readonly revision: number;
  readonly at: string;
  readonly source: string;
  readonly changes: readonly CalendarChange[];
}

const iso = (d: Date | string): string => new Date(d).toISOString();

const rowOf = (r: {
  event_id: string;
  title: string;
  country: string;
  currency: string;
  impact: string;
  time: Date;
  all_day: boolean;
  forecast: string | null;
  previous: string | null;
  actual: string | null;
  revision: number;
  source: string;
  created: Date;
  updated: Date;
}): CalendarRow => ({
  eventId: r.event_id,
  title: r.title,
  country: r.country,
  currency: r.currency,
  impact: r.impact as Impact,
  time: iso(r.time),
  allDay: r.all_day,
  forecast: r.forecast,
  previous: r.previous,
  actual: r.actual,
  revision: r.revision,
  source: r.source,
  created: iso(r.created),
  updated: iso(r.updated),
});

const columns = [
  'event_id',
  'title',
  'country',
  'currency',
  'impact',
  'time',
  'all_day',
  'forecast',
  'previous',
  'actual',
  'revision',
  'source',
  'created',
  'updated',
] as const;

export interface CalendarFilter {
  readonly from: string;
  /** Exclusive. */
  readonly to: string;
  readonly currencies?: readonly string[];
  readonly countries?: readonly string[];
  readonly impacts?: readonly Impact[];
  /** Part of the title, without case. */
  readonly search?: string;
}

const filtered = (db: Kysely<ReadModels>, f: CalendarFilter) => {
  let q = db.selectFrom('calendar_events').where('time', '>=', new Date(f.from)).where('time', '<', new Date(f.to));
  if (f.currencies?.length) q = q.where('currency', 'in', [...f.currencies]);
  if (f.countries?.length) q = q.where('country', 'in', [...f.countries]);
  if (f.impacts?.length) q = q.where('impact', 'in', [...f.impacts]);
  if (f.search) q = q.where(sql<boolean>`position(lower(${f.search}) in lower(title)) > 0`);
  return q;
};

/** A page of the events of `filter`, by time then id; and how many there are in all. */
export const calendarPage = async (
  db: Kysely<ReadModels>,
  filter: CalendarFilter,
  page: number,
  size: number,
): Promise<{ rows: CalendarRow[]; total: number }> => {
  const [rows, count] = await Promise.all([
    filtered(db, filter)
      .select(columns)
      .orderBy('time')
      .orderBy('event_id')
      .limit(size)
      .offset(page * size)
      .execute(),
    filtered(db, filter)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(rowOf), total: Number(count.n) };
};

/** Every event of `filter`, by time (the analytics' input). */
export const calendarEvents = async (db: Kysely<ReadModels>, filter: CalendarFilter): Promise<CalendarRow[]> =>
  (await filtered(db, filter).select(columns).orderBy('time').orderBy('event_id').execute()).map(rowOf);

export const findCalendarEvent = async (db: Kysely<ReadModels>, eventId: string): Promise<CalendarRow | undefined> => {
  const row = await db.selectFrom('calendar_events').select(columns).where('event_id', '=', eventId).executeTakeFirst();
  return row ? rowOf(row) : undefined;
};

/** The event's revisions, oldest first (0 is the publication). */
export const calendarRevisions = async (db: Kysely<ReadModels>, eventId: string): Promise<CalendarRevisionRow[]> =>
  (await db.selectFrom('calendar_event_revisions').selectAll().where('event_id', '=', eventId).orderBy('revision').execute()).map((r) => ({
    revision: r.revision,
    at: iso(r.at),
    source: r.source,
    changes: r.changes as CalendarChange[],
  }));

/** The releases of the series of `event` at or before `until`, the last `limit`, oldest first. */
export const seriesHistory = async (db: Kysely<ReadModels>, eventId: string, until: string, limit: number): Promise<CalendarRow[]> => {
  const rows = await db
    .selectFrom('calendar_events')
    .select(columns)
    .where('series', '=', (eb) => eb.selectFrom('calendar_events as e').select('e.series').where('e.event_id', '=', eventId))
    .where('time', '<=', new Date(until))
    .orderBy('time', 'desc')
    .limit(limit)
    .execute();
  return rows.map(rowOf).reverse();
};
