// Calendar months and days in a time zone (the service's TIME_ZONE, app/config.ts): where money is
// counted by the month (usage and invoices, domain/billing; a signal provider's earnings and follower
// costs, domain/earnings). A day is the zone's calendar day, 23 or 25 hours long when the clocks
// change; a month runs from the 1st 00:00 to the next 1st 00:00 in the zone. 'UTC' gives UTC's.
import { DateTime } from 'luxon';

export interface Month {
  readonly year: number;
  /** 1 = January. */
  readonly month: number;
}

/** A day of a month: [start, end) in ms. */
export interface CalendarDay {
  readonly start: number;
  readonly end: number;
}

export const nextMonth = (m: Month): Month => (m.month === 12 ? { year: m.year + 1, month: 1 } : { year: m.year, month: m.month + 1 });

export const previousMonth = (m: Month): Month => (m.month === 1 ? { year: m.year - 1, month: 12 } : { year: m.year, month: m.month - 1 });

/** The first instant (ms) of `m` in `zone`. */
export const monthStartIn = (m: Month, zone: string): number => DateTime.fromObject({ year: m.year, month: m.month, day: 1 }, { zone }).toMillis();

/** The first instant (ms) after `m` in `zone`. */
export const monthEndIn = (m: Month, zone: string): number => monthStartIn(nextMonth(m), zone);

/** The month of `instant` (ms or ISO text) in `zone`. */
export const monthIn = (instant: number | string, zone: string): Month => {
  const at = DateTime.fromMillis(typeof instant === 'number' ? instant : Date.parse(instant), { zone });
  return { year: at.year, month: at.month };
};

/** The calendar days of `m` in `zone`, first to last. */
export const daysOfMonth = (m: Month, zone: string): CalendarDay[] => {
  const days: CalendarDay[] = [];
  const first = DateTime.fromObject({ year: m.year, month: m.month, day: 1 }, { zone });
  for (let day = 0; day < first.daysInMonth!; day++) {
    days.push({ start: first.plus({ days: day }).toMillis(), end: first.plus({ days: day + 1 }).toMillis() });
  }
  return days;
};

/** The end (ms) of the day `instant` is in, in `zone`: the next midnight there. */
export const endOfDayIn = (instant: number, zone: string): number => DateTime.fromMillis(instant, { zone }).startOf('day').plus({ days: 1 }).toMillis();
