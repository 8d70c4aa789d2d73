// Calendar rows to the wire (api/calendar/schemas.ts).
import type { CalendarRevisionRow, CalendarRow } from '../../projections/calendar/queries.js';

export const toCalendarEventDTO = (row: CalendarRow) => ({
  id: row.eventId,
  title: row.title,
  country: row.country,
  currency: row.currency,
  currencies: [row.currency],
  impact: row.impact,
  time: row.time,
  allDay: row.allDay,
  forecast: row.forecast,
  previous: row.previous,
  actual: row.actual,
  revision: row.revision,
  source: row.source,
  updated: row.updated,
});

export const toCalendarEventDetailDTO = (row: CalendarRow, revisions: readonly CalendarRevisionRow[]) => ({
  ...toCalendarEventDTO(row),
  revisions: revisions.map((r) => ({ revision: r.revision, at: r.at, source: r.source, changes: r.changes })),
});
