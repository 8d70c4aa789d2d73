// Days, weeks and months in the service's time zone (luxon): the same boundaries for account
// information's profits, performance metrics, risk limits and profit targets. A week starts on Monday
// 00:00 (ISO); labels are YYYY-MM-DD, YYYY-Www (ISO week) and YYYY-MM.
import { DateTime } from 'luxon';

export type PeriodUnit = 'day' | 'week' | 'month';

/** The start of the period that contains `at`, in `zone`, as a UTC ISO string. */
export const periodStart = (unit: PeriodUnit, at: string | Date, zone: string): string =>
  toDateTime(at, zone)
    .startOf(unit === 'week' ? 'week' : unit)
    .toUTC()
    .toISO()!;

/** The start of the next period after the one containing `at`. */
export const nextPeriodStart = (unit: PeriodUnit, at: string | Date, zone: string): string =>
  toDateTime(at, zone)
    .startOf(unit)
    .plus({ [`${unit}s`]: 1 })
    .toUTC()
    .toISO()!;

export const periodLabel = (unit: PeriodUnit, at: string | Date, zone: string): string => {
  const t = toDateTime(at, zone);
  if (unit === 'day') return t.toISODate()!;
  if (unit === 'week') return `${t.weekYear}-W${String(t.weekNumber).padStart(2, '0')}`;
  return t.toFormat('yyyy-MM');
};

const toDateTime = (at: string | Date, zone: string): DateTime => {
  const t = typeof at === 'string' ? DateTime.fromISO(at, { zone }) : DateTime.fromJSDate(at, { zone });
  if (!t.isValid) throw new RangeError(`not a time in ${zone}: ${String(at)}`);
  return t;
};

/** Whether luxon (Node's full ICU) knows the IANA time zone. */
export const isTimeZone = (zone: string): boolean => DateTime.now().setZone(zone).isValid;

export const hourOf = (at: string, zone: string): number => toDateTime(at, zone).hour;

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

export const weekdayOf = (at: string, zone: string): (typeof WEEKDAYS)[number] => WEEKDAYS[toDateTime(at, zone).weekday - 1]!;

/** A query bound: an ISO date-time, or a date (YYYY-MM-DD) meaning the whole day in `zone`. */
export const boundOf = (value: string, end: boolean, zone: string): string => {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = DateTime.fromISO(value, { zone });
    return (end ? day.endOf('day') : day.startOf('day')).toUTC().toISO()!;
  }
  return DateTime.fromISO(value, { setZone: true }).toUTC().toISO()!;
};
