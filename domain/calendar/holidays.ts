// Bank holidays (spec GET /projects/{projectId}/bankHolidays) from date-holidays' offline rules for
// every country, not a table of our own: the public and bank holidays of the countries asked for (ISO
// 3166 alpha-2; default the countries of the eight majors), in a range of days. The euro area (EU) has
// no holidays of its own in date-holidays: the ECB's TARGET2 closing days stand in for it (New Year,
// Good Friday, Easter Monday, 1 May, 25 and 26 December), computed by date-holidays' Easter rules for DE.
import Holidays from 'date-holidays';
import { MAJORS } from './entry.js';

export interface BankHoliday {
  /** YYYY-MM-DD, the day in the country. */
  readonly date: string;
  readonly country: string;
  readonly currency: string | null;
  readonly name: string;
  /** date-holidays' type: public or bank. */
  readonly type: string;
  /** When it starts and ends, UTC (the country's day in its own time zone). */
  readonly start: string;
  readonly end: string;
}

export const DEFAULT_HOLIDAY_COUNTRIES: readonly string[] = MAJORS.map((m) => m.country);
const TARGET2 =
  /^(New Year's Day|Good Friday|Easter Monday|Labour Day|Labor Day|Christmas Day|Boxing Day|St\. Stephen's Day|Second Day of Christmas|Neujahr|Karfreitag|Ostermontag|Maifeiertag|Tag der Arbeit|1\. Weihnachtstag|2\. Weihnachtstag|Weihnachtstag|Zweiter Weihnachtsfeiertag|Christtag|Stefanitag)$/i;

/** Whether date-holidays knows `country` (or it is EU). */
export const knownCountry = (country: string): boolean => country === 'EU' || new Holidays().getCountries()[country] !== undefined;

const currencyOf = (country: string): string | null => MAJORS.find((m) => m.country === country)?.currency ?? (country === 'EU' ? 'EUR' : null);

/** The holidays of `countries` whose day lies within [from, to] (YYYY-MM-DD), by date then country. */
export const bankHolidays = (countries: readonly string[], from: string, to: string): BankHoliday[] => {
  const years: number[] = [];
  for (let y = Number(from.slice(0, 4)); y <= Number(to.slice(0, 4)); y++) years.push(y);
  const out: BankHoliday[] = [];
  for (const country of countries) {
    const rules = new Holidays(country === 'EU' ? 'DE' : country, { languages: ['en'], types: ['public', 'bank'] });
    for (const year of years) {
      for (const h of rules.getHolidays(year, 'en')) {
        const date = h.date.slice(0, 10);
        if (date < from || date > to) continue;
        if (h.type !== 'public' && h.type !== 'bank') continue;
        if (country === 'EU' && !TARGET2.test(h.name)) continue;
        out.push({ date, country, currency: currencyOf(country), name: h.name, type: h.type, start: h.start.toISOString(), end: h.end.toISOString() });
      }
    }
  }
  const seen = new Set<string>();
  return out
    .filter((h) => {
      const key = `${h.country}|${h.date}|${h.name}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.date.localeCompare(b.date) || a.country.localeCompare(b.country));
};
