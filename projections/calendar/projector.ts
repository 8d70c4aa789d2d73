// The economic calendar read model: one row per calendar event as its last revision has it, and one row
// per revision (the publication is revision 0) with what it changed. Global like the calendar's streams
// (domain/calendar/events.ts); the operations under /projects/{projectId}/economicCalendar read it.
import { sql } from 'kysely';
import { seriesOf } from '../../domain/calendar/entry.js';
import { calendarEventTypes, type CalendarEvent } from '../../domain/calendar/events.js';
import type { Projection } from '../projection.js';

export const calendarProjection: Projection = {
  name: 'calendar',
  version: 1,
  handles: calendarEventTypes,
  tables: ['calendar_events', 'calendar_event_revisions'],
  async createTables(db, schema) {
    await sql`CREATE TABLE ${sql.id(schema, 'calendar_events')} (
      event_id uuid PRIMARY KEY,
      series text NOT NULL,
      title text NOT NULL,
      country text NOT NULL,
      currency text NOT NULL,
      impact text NOT NULL,
      time timestamptz NOT NULL,
      all_day boolean NOT NULL,
      forecast text,
      previous text,
      actual text,
      revision integer NOT NULL,
      source text NOT NULL,
      created timestamptz NOT NULL,
      updated timestamptz NOT NULL)`.execute(db);
    await sql`CREATE TABLE ${sql.id(schema, 'calendar_event_revisions')} (
      event_id uuid NOT NULL,
      revision integer NOT NULL,
      at timestamptz NOT NULL,
      source text NOT NULL,
      changes jsonb NOT NULL,
      PRIMARY KEY (event_id, revision))`.execute(db);
  },
  async createIndexes(db, schema) {
    await sql`CREATE INDEX ON ${sql.id(schema, 'calendar_events')} (time)`.execute(db);
    await sql`CREATE INDEX ON ${sql.id(schema, 'calendar_events')} (series, time)`.execute(db);
  },
  async apply(db, recorded) {
    const event = recorded as unknown as CalendarEvent;
    const { eventId, entry, source, at } = event.data;
    const row = {
      series: seriesOf(entry),
      title: entry.title,
      country: entry.country,
      currency: entry.currency,
      impact: entry.impact,
      time: entry.time,
      all_day: entry.allDay,
      forecast: entry.forecast,
      previous: entry.previous,
      actual: entry.actual,
      source,
      updated: at,
    };
    switch (event.type) {
      case 'CalendarEventPublished':
        await db
          .insertInto('calendar_events')
          .values({ event_id: eventId, ...row, revision: 0, created: at })
          .onConflict((oc) => oc.column('event_id').doNothing())
          .execute();
        await db
          .insertInto('calendar_event_revisions')
          .values({ event_id: eventId, revision: 0, at, source, changes: '[]' })
          .onConflict((oc) => oc.columns(['event_id', 'revision']).doNothing())
          .execute();
        return;
      case 'CalendarEventRevised': {
        const current = await db.selectFrom('calendar_events').select('revision').where('event_id', '=', eventId).executeTakeFirst();
        const revision = (current?.revision ?? 0) + 1;
        await db
          .updateTable('calendar_events')
          .set({ ...row, revision })
          .where('event_id', '=', eventId)
          .execute();
        await db
          .insertInto('calendar_event_revisions')
          .values({ event_id: eventId, revision, at, source, changes: JSON.stringify(event.data.changes) })
          .onConflict((oc) => oc.columns(['event_id', 'revision']).doNothing())
          .execute();
        return;
      }
    }
  },
};
