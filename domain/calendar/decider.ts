// One economic calendar event: the first import publishes it; a later import that differs in any member
// revises it (each revision lists what changed, from what to what); the same import again changes
// nothing. A source that leaves out the actual (a weekly feed before the release) never erases one it
// had: an actual once published stays until a source gives another.
import type { Decider } from '../shared/command.js';
import { invalid } from '../shared/errors.js';
import type { CalendarCommand } from './commands.js';
import { type CalendarEntry, checkEntry, REVISABLE } from './entry.js';
import type { CalendarChange, CalendarEvent } from './events.js';

export interface CalendarEventState {
  readonly entry: CalendarEntry | null;
  readonly revisions: number;
}

export const initialState: CalendarEventState = { entry: null, revisions: 0 };

const changesBetween = (before: CalendarEntry, after: CalendarEntry): CalendarChange[] =>
  REVISABLE.filter((m) => before[m] !== after[m]).map((member) => ({ member, from: before[member], to: after[member] }));

export const decide = (command: CalendarCommand, state: CalendarEventState): CalendarEvent[] => {
  const { eventId, source } = command.data;
  const at = command.metadata.now;
  const problem = checkEntry(command.data.entry);
  if (problem) throw invalid('[VALIDATION_FAILED]', `calendar event ${command.data.entry.title}: ${problem}`);
  const incoming: CalendarEntry = { ...command.data.entry, time: new Date(command.data.entry.time).toISOString() };
  if (!state.entry) return [{ type: 'CalendarEventPublished', data: { eventId, entry: incoming, source, at } }];
  const entry: CalendarEntry = { ...incoming, currency: state.entry.currency, actual: incoming.actual ?? state.entry.actual };
  const changes = changesBetween(state.entry, entry);
  return changes.length === 0 ? [] : [{ type: 'CalendarEventRevised', data: { eventId, entry, changes, source, at } }];
};

export const evolve = (state: CalendarEventState, event: CalendarEvent): CalendarEventState => {
  switch (event.type) {
    case 'CalendarEventPublished':
      return { entry: event.data.entry, revisions: 0 };
    case 'CalendarEventRevised':
      return { entry: event.data.entry, revisions: state.revisions + 1 };
    default:
      return state;
  }
};

export const calendarEventDecider: Decider<CalendarCommand, CalendarEvent, CalendarEventState> = { decide, evolve, initialState };
