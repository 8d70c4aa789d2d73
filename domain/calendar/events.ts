// Events of one economic calendar event (stream `calendarEvent-<eventId>`). The calendar is market data,
// the same for every project of the service (an operator imports it once: a file, the watched folder,
// the online feed), so its streams belong to no project; the operations under /projects/{projectId}
// read it for the project's key. Every change a source brings is a revision: the history of GET
// .../economicCalendar/{eventId} is this stream.
import type { CalendarEntry, RevisableMember } from './entry.js';

/** A member's value before and after a revision. */
export type CalendarChange = { readonly member: RevisableMember; readonly from: unknown; readonly to: unknown };

export type CalendarEvent =
  | { type: 'CalendarEventPublished'; data: { eventId: string; entry: CalendarEntry; source: string; at: string } }
  | { type: 'CalendarEventRevised'; data: { eventId: string; entry: CalendarEntry; changes: readonly CalendarChange[]; source: string; at: string } };

export type CalendarEventType = CalendarEvent['type'];
export const calendarEventTypes: readonly CalendarEventType[] = ['CalendarEventPublished', 'CalendarEventRevised'];

export const CALENDAR_EVENT_STREAM_PREFIX = 'calendarEvent-';
export const calendarEventStream = (eventId: string): string => `${CALENDAR_EVENT_STREAM_PREFIX}${eventId}`;
