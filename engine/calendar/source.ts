// CalendarSource, the port the economic calendar comes through (ARCHITECTURE.md "Outside systems"): a
// source reads its events when asked. Built in and offline: a file (CSV, JSON, XML or iCal by its name,
// npm run calendar -- import FILE, the watched folder DATA_DIR/calendar, the sample week of
// data/calendar). Online: an HTTP URL serving the weekly-calendar feed (JSON or XML), fetched with a
// time limit. Both end in the same import (app/calendar.ts), so every change is an event either way.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type CalendarFormat, CalendarFormatError, formatOf, type ParsedCalendar, parseCalendar } from './formats.js';

export interface CalendarSource {
  /** Names the source in each event it brings (file:NAME, feed:URL, sample). */
  readonly name: string;
  read(): Promise<ParsedCalendar>;
}

/** A calendar file: its format from its name (or its first characters). */
export const fileSource = (file: string, name = `file:${path.basename(file)}`): CalendarSource => ({
  name,
  async read() {
    const body = await readFile(file, 'utf8');
    return parseCalendar(formatOf(file, body), body);
  },
});

/** A body already in hand (a file's contents after a change of its dates: the sample week). */
export const textSource = (name: string, format: CalendarFormat, body: string): CalendarSource => ({
  name,
  read: () => Promise.resolve(parseCalendar(format, body)),
});

export const FEED_TIMEOUT_MS = 15_000;
/** The largest feed body read: a weekly feed is a few tens of kilobytes. */
export const FEED_MAX_BYTES = 5_000_000;

/**
 * The online weekly feed at `url`: JSON or XML by the answer's content type, else by the URL's name,
 * else by its first characters. A non-2xx answer, a time-out or a body that is no calendar fails the
 * read (the sync tries again at its next turn; nothing is imported from a failed read).
 */
export const httpSource = (url: string, options: { readonly fetch?: typeof fetch; readonly timeoutMs?: number } = {}): CalendarSource => ({
  name: `feed:${url}`,
  async read() {
    const response = await (options.fetch ?? fetch)(url, {
      headers: { accept: 'application/json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1', 'user-agent': 'copy-trading-service calendar sync' },
      signal: AbortSignal.timeout(options.timeoutMs ?? FEED_TIMEOUT_MS),
      redirect: 'follow',
    });
    if (!response.ok) throw new CalendarFormatError(`${url} answered ${response.status}`);
    const body = await response.text();
    if (body.length > FEED_MAX_BYTES) throw new CalendarFormatError(`${url} answered more than ${FEED_MAX_BYTES} bytes`);
    const type = response.headers.get('content-type') ?? '';
    const format: CalendarFormat = type.includes('json')
      ? 'json'
      : type.includes('xml')
        ? 'xml'
        : type.includes('calendar')
          ? 'ics'
          : formatOf(new URL(url).pathname, body);
    return parseCalendar(format, body);
  },
});
