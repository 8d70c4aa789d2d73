import type { CommandMetadata } from '../shared/command.js';
import type { CalendarEntry } from './entry.js';

/** A source's word on one calendar event: new, changed or the same as before. `source` names it (file:..., feed:..., sample). */
export type CalendarCommand = { type: 'ImportCalendarEvent'; data: { eventId: string; entry: CalendarEntry; source: string }; metadata: CommandMetadata };
