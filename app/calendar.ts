// Importing the economic calendar: every entry a CalendarSource reads (engine/calendar/source.ts) is a
// command on its calendar event (domain/calendar), so a new release is published, a changed forecast,
// actual or time becomes a revision and the same entry again changes nothing. The command line (npm run
// calendar -- import FILE), the watched folder, the sample week and the online feed all come here.
import { type CalendarCommand } from '../domain/calendar/commands.js';
import { calendarEventDecider } from '../domain/calendar/decider.js';
import { eventIdOf } from '../domain/calendar/entry.js';
import { calendarEventStream } from '../domain/calendar/events.js';
import { systemContext } from '../domain/shared/command.js';
import { DomainError } from '../domain/shared/errors.js';
import type { CalendarSource } from '../engine/calendar/source.js';
import { handleCommand } from '../store/commandHandler.js';
import { type CommandServices, settle } from './services.js';

export const CALENDAR_READ_MODELS = ['calendar'];

export interface CalendarImport {
  readonly source: string;
  /** Entries read from the source. */
  readonly read: number;
  readonly published: number;
  readonly revised: number;
  readonly unchanged: number;
  /** What the source had but could not be imported, one line each. */
  readonly skipped: readonly string[];
}

/** Reads `source` and imports what it read; waits for the calendar read model when anything changed. */
export const importCalendar = async (
  services: CommandServices,
  source: CalendarSource,
  correlationId = `calendar-${crypto.randomUUID()}`,
): Promise<CalendarImport> => {
  const parsed = await source.read();
  const counts = { published: 0, revised: 0, unchanged: 0 };
  const skipped = [...parsed.skipped];
  const seen = new Set<string>();
  for (const { id, entry } of parsed.entries) {
    const eventId = eventIdOf(entry, id);
    if (seen.has(eventId)) {
      skipped.push(`${entry.currency} ${entry.title} ${entry.time}: the same event twice in one source (the first kept)`);
      continue;
    }
    seen.add(eventId);
    const command: CalendarCommand = {
      type: 'ImportCalendarEvent',
      data: { eventId, entry, source: source.name },
      metadata: { now: services.clock().toISOString(), context: systemContext(correlationId) },
    };
    try {
      const { events } = await handleCommand(services.store, calendarEventStream(eventId), calendarEventDecider, command);
      const kind = events[0]?.type;
      if (kind === 'CalendarEventPublished') counts.published++;
      else if (kind === 'CalendarEventRevised') counts.revised++;
      else counts.unchanged++;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      skipped.push(error.message);
    }
  }
  if (counts.published + counts.revised > 0) await settle(services, CALENDAR_READ_MODELS);
  return { source: source.name, read: parsed.entries.length, ...counts, skipped };
};
