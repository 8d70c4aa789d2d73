// The file and feed formats a CalendarSource reads, each into calendar entries (domain/calendar/entry.ts):
//   - JSON: the widely used weekly-calendar feed (ff_calendar_thisweek.json: an array of {title,
//     country, date, impact, forecast, previous}, `country` holding a currency code, `date` ISO 8601
//     with its offset), and ours, the same members plus any of id, currency, actual, allDay, in an
//     array or under `events`;
//   - XML: the same feed's XML (<weeklyevents><event><title/><country/><date>MM-DD-YYYY</date>
//     <time>8:30am</time><impact/><forecast/><previous/></event>...), its times read as UTC (what the
//     feed publishes); "All Day", "Tentative" or a day without a time are all-day events;
//   - CSV: a header row naming any of id, date (or datetime, time), title (or event, name), country,
//     currency, impact, forecast, previous, actual (case-insensitive); a date without an offset is UTC;
//   - iCal (node-ical): every VEVENT; SUMMARY is the title ("USD: Non-Farm Payrolls" or "[USD] ..."
//     gives the currency too), DTSTART the time (a DATE value is all day), UID the id, LOCATION or
//     X-CURRENCY / X-COUNTRY the currency or country, and "Impact: High", "Forecast: 0.3%",
//     "Previous: ...", "Actual: ..." lines of DESCRIPTION (or CATEGORIES for the impact).
// An entry a file cannot say clearly (no title, no date, an unknown currency) is skipped and named in
// `skipped`, the rest is imported.
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import ical from 'node-ical';
import { type CalendarEntry, countryAndCurrency, impactOf } from '../../domain/calendar/entry.js';

export type CalendarFormat = 'json' | 'xml' | 'csv' | 'ics';

/** An entry read from a source, with the source's own id when it has one. */
export interface SourcedEntry {
  readonly id: string | null;
  readonly entry: CalendarEntry;
}

export interface ParsedCalendar {
  readonly entries: readonly SourcedEntry[];
  /** What was left out, one line each: "row 3: no date". */
  readonly skipped: readonly string[];
}

export class CalendarFormatError extends Error {}

/** The format of a file or a feed by its name, else by its first characters. */
export const formatOf = (name: string, text: string): CalendarFormat => {
  const ext = /\.([a-z]+)(?:\?.*)?$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === 'json' || ext === 'xml' || ext === 'csv') return ext;
  if (ext === 'ics' || ext === 'ical' || ext === 'ifb') return 'ics';
  const head = text.trimStart();
  if (head.startsWith('[') || head.startsWith('{')) return 'json';
  if (head.startsWith('<')) return 'xml';
  if (head.startsWith('BEGIN:VCALENDAR')) return 'ics';
  return 'csv';
};

const text = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object' && 'val' in (v as object)) return text((v as { val: unknown }).val);
  const s = String(v as string | number).trim();
  return s === '' ? null : s;
};

interface Raw {
  id?: unknown;
  title?: unknown;
  country?: unknown;
  currency?: unknown;
  impact?: unknown;
  date?: unknown;
  allDay?: unknown;
  forecast?: unknown;
  previous?: unknown;
  actual?: unknown;
}

/** An entry of raw members, whose `date` is already an ISO date-time; a reason when it cannot be one. */
const entryOf = (raw: Raw, allDay: boolean): SourcedEntry | string => {
  const title = text(raw.title);
  if (!title) return 'no title';
  const date = text(raw.date);
  if (!date || Number.isNaN(Date.parse(date))) return `${title}: no date-time (${date ?? 'none'})`;
  const place = countryAndCurrency(text(raw.country), text(raw.currency));
  if (!place) return `${title}: unknown country or currency (${text(raw.country) ?? text(raw.currency) ?? 'none'})`;
  const impact = impactOf(text(raw.impact));
  if (!impact) return `${title}: unknown impact ${text(raw.impact)}`;
  return {
    id: text(raw.id),
    entry: {
      title,
      ...place,
      impact,
      time: new Date(date).toISOString(),
      allDay: allDay || raw.allDay === true || text(raw.allDay) === 'true',
      forecast: text(raw.forecast),
      previous: text(raw.previous),
      actual: text(raw.actual),
    },
  };
};

const collect = (rows: readonly (SourcedEntry | string)[], label: (i: number) => string): ParsedCalendar => ({
  entries: rows.filter((r): r is SourcedEntry => typeof r !== 'string'),
  skipped: rows.flatMap((r, i) => (typeof r === 'string' ? [`${label(i)}: ${r}`] : [])),
});

/** A date with no offset or zone is UTC. */
const withZone = (date: string): string => (/[zZ]|[+-]\d\d:?\d\d$/.test(date) || !/\d\d:\d\d/.test(date) ? date : `${date.replace(' ', 'T')}Z`);

const parseJson = (body: string): ParsedCalendar => {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (error) {
    throw new CalendarFormatError(`not JSON: ${(error as Error).message}`);
  }
  const rows = Array.isArray(data) ? data : (data as { events?: unknown })?.events;
  if (!Array.isArray(rows)) throw new CalendarFormatError('JSON calendar: an array of events, or {"events": [...]}, expected');
  return collect(
    rows.map((r: Raw) => {
      if (typeof r !== 'object' || r === null) return 'not an object';
      const date = text(r.date);
      return entryOf({ ...r, date: date ? withZone(date) : null }, /^\d{4}-\d\d-\d\d$/.test(date ?? ''));
    }),
    (i) => `event ${i + 1}`,
  );
};

/** "8:30am" on "01-29-2024" (the feed's XML, UTC); null for an all-day event. */
const xmlTime = (day: string, time: string | null): { date: string; allDay: boolean } | null => {
  const d = /^(\d\d)-(\d\d)-(\d{4})$/.exec(day.trim());
  if (!d) return null;
  const iso = `${d[3]}-${d[1]}-${d[2]}`;
  const t = /^(\d{1,2}):(\d\d)\s*(am|pm)$/i.exec(time?.trim() ?? '');
  if (!t) return { date: `${iso}T00:00:00Z`, allDay: true };
  const hour = (Number(t[1]) % 12) + (t[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return { date: `${iso}T${String(hour).padStart(2, '0')}:${t[2]}:00Z`, allDay: false };
};

const parseXml = (body: string): ParsedCalendar => {
  let data: { weeklyevents?: { event?: unknown } };
  try {
    data = new XMLParser({ parseTagValue: false, trimValues: true }).parse(body, true) as typeof data;
  } catch (error) {
    throw new CalendarFormatError(`not XML: ${(error as Error).message}`);
  }
  if (!data.weeklyevents) throw new CalendarFormatError('XML calendar: <weeklyevents> expected');
  const events = data.weeklyevents.event;
  const rows = (Array.isArray(events) ? events : events ? [events] : []) as Raw[] & { time?: unknown }[];
  return collect(
    rows.map((r: Raw & { time?: unknown }) => {
      const when = xmlTime(text(r.date) ?? '', text(r.time));
      if (!when) return `${text(r.title) ?? '?'}: no date (${text(r.date) ?? 'none'})`;
      return entryOf({ ...r, date: when.date }, when.allDay);
    }),
    (i) => `event ${i + 1}`,
  );
};

const CSV_COLUMNS: Readonly<Record<string, keyof Raw>> = {
  id: 'id',
  eventid: 'id',
  date: 'date',
  datetime: 'date',
  time: 'date',
  title: 'title',
  event: 'title',
  name: 'title',
  country: 'country',
  currency: 'currency',
  impact: 'impact',
  forecast: 'forecast',
  previous: 'previous',
  actual: 'actual',
  allday: 'allDay',
};

const parseCsvText = (body: string): ParsedCalendar => {
  let rows: Record<string, string>[];
  try {
    rows = parseCsv(body, {
      columns: (header: string[]) =>
        header.map(
          (h) =>
            CSV_COLUMNS[
              h
                .trim()
                .toLowerCase()
                .replace(/[\s_-]/g, '')
            ] ?? h,
        ),
      skip_empty_lines: true,
      trim: true,
      bom: true,
    });
  } catch (error) {
    throw new CalendarFormatError(`not CSV: ${(error as Error).message}`);
  }
  return collect(
    rows.map((r) => {
      const date = text(r.date);
      return entryOf({ ...r, date: date ? withZone(date) : null }, /^\d{4}-\d\d-\d\d$/.test(date ?? ''));
    }),
    (i) => `row ${i + 2}`,
  );
};

const line = (description: string, name: string): string | null => new RegExp(`^\\s*${name}\\s*:\\s*(.+?)\\s*$`, 'im').exec(description)?.[1] ?? null;

const parseIcs = (body: string): ParsedCalendar => {
  let data: ical.CalendarResponse;
  try {
    data = ical.sync.parseICS(body);
  } catch (error) {
    throw new CalendarFormatError(`not iCal: ${(error as Error).message}`);
  }
  const events = Object.values(data).filter((c): c is ical.VEvent => c?.type === 'VEVENT');
  return collect(
    events.map((e) => {
      const summary = text(e.summary) ?? '';
      const prefixed = /^\s*\[?([A-Z]{3})\]?\s*[:-]?\s+(.+)$/.exec(summary);
      const description = text(e.description) ?? '';
      const extra = e as unknown as Record<string, unknown>;
      const location = text(e.location);
      const allDay = e.datetype === 'date' || (e.start as { dateOnly?: boolean } | undefined)?.dateOnly === true;
      const start = e.start
        ? allDay
          ? `${e.start.getFullYear()}-${String(e.start.getMonth() + 1).padStart(2, '0')}-${String(e.start.getDate()).padStart(2, '0')}T00:00:00Z`
          : e.start.toISOString()
        : null;
      return entryOf(
        {
          id: e.uid,
          title: prefixed?.[2] ?? summary,
          currency: text(extra['x-currency']) ?? prefixed?.[1] ?? (location && /^[A-Z]{3}$/.test(location) ? location : null),
          country: text(extra['x-country']) ?? (location && /^[A-Z]{2}$/.test(location) ? location : null),
          impact: line(description, 'impact') ?? e.categories?.map((c) => impactOf(c) && c).find(Boolean) ?? null,
          date: start,
          forecast: line(description, 'forecast'),
          previous: line(description, 'previous'),
          actual: line(description, 'actual'),
        },
        allDay,
      );
    }),
    (i) => `VEVENT ${i + 1}`,
  );
};

/** The entries of a file or feed body in `format`. */
export const parseCalendar = (format: CalendarFormat, body: string): ParsedCalendar => {
  switch (format) {
    case 'json':
      return parseJson(body);
    case 'xml':
      return parseXml(body);
    case 'csv':
      return parseCsvText(body);
    case 'ics':
      return parseIcs(body);
  }
};
