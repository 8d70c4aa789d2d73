// The tables of the economic calendar read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface CalendarEventsTable {
  event_id: string;
  /** Currency and title: the same indicator in other releases (history, surprise index). */
  series: string;
  title: string;
  country: string;
  currency: string;
  impact: string;
  time: Timestamp;
  all_day: boolean;
  forecast: string | null;
  previous: string | null;
  actual: string | null;
  /** 0 when published, one more for each revision. */
  revision: number;
  source: string;
  created: Timestamp;
  updated: Timestamp;
}

export interface CalendarEventRevisionsTable {
  event_id: string;
  revision: number;
  at: Timestamp;
  source: string;
  /** [{member, from, to}]; empty for the publication. */
  changes: ColumnType<unknown, string, string>;
}

export interface CalendarTables {
  calendar_events: CalendarEventsTable;
  calendar_event_revisions: CalendarEventRevisionsTable;
}
