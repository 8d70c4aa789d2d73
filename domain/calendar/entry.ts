// One release of the economic calendar (spec "Economic calendar, news and alerts"): what a calendar
// source (a file, an online weekly feed) says about it, normalised. The spec names the members only
// (country, currencies, impact, forecast, previous, actual, revisions); their shapes are ours:
//   - country: ISO 3166 alpha-2 ('EU' for the euro area, 'WW' for "All": a release of no one country);
//   - currency: ISO 4217 ('ALL' for a release of no one currency);
//   - impact: HOLIDAY, NONE, LOW, MEDIUM, HIGH (the weekly feed's Holiday, Non-Economic, Low, Medium, High);
//   - forecast, previous, actual: the text as published ("0.3%", "215K"), numbers read by numericValue.
// An event's identity (eventIdOf) is its currency, its title and its UTC day: importing the same
// release again finds it, and a changed forecast, actual or time within the day becomes a revision.
import { v5 as uuidv5 } from 'uuid';

export const IMPACTS = ['HOLIDAY', 'NONE', 'LOW', 'MEDIUM', 'HIGH'] as const;
export type Impact = (typeof IMPACTS)[number];

export interface CalendarEntry {
  readonly title: string;
  readonly country: string;
  readonly currency: string;
  readonly impact: Impact;
  /** ISO 8601, UTC: when the figure is released (the day's start for an all-day event). */
  readonly time: string;
  /** An all-day event (a holiday, "Tentative", "All Day" in the weekly feed). */
  readonly allDay: boolean;
  readonly forecast: string | null;
  readonly previous: string | null;
  readonly actual: string | null;
}

/** The members a revision may change (every member but the identity). */
export const REVISABLE = ['title', 'country', 'impact', 'time', 'allDay', 'forecast', 'previous', 'actual'] as const;
export type RevisableMember = (typeof REVISABLE)[number];

/** The eight majors (rate outlook, exposure), with their country and central bank. */
export const MAJORS: readonly { readonly currency: string; readonly country: string; readonly centralBank: string }[] = [
  { currency: 'USD', country: 'US', centralBank: 'Federal Reserve' },
  { currency: 'EUR', country: 'EU', centralBank: 'European Central Bank' },
  { currency: 'GBP', country: 'GB', centralBank: 'Bank of England' },
  { currency: 'JPY', country: 'JP', centralBank: 'Bank of Japan' },
  { currency: 'CHF', country: 'CH', centralBank: 'Swiss National Bank' },
  { currency: 'CAD', country: 'CA', centralBank: 'Bank of Canada' },
  { currency: 'AUD', country: 'AU', centralBank: 'Reserve Bank of Australia' },
  { currency: 'NZD', country: 'NZ', centralBank: 'Reserve Bank of New Zealand' },
];

/** Currencies of calendar countries beyond the majors (the weekly feed's "country" holds currency codes). */
const MORE: Readonly<Record<string, string>> = {
  CNY: 'CN',
  HKD: 'HK',
  SGD: 'SG',
  SEK: 'SE',
  NOK: 'NO',
  DKK: 'DK',
  PLN: 'PL',
  MXN: 'MX',
  ZAR: 'ZA',
  TRY: 'TR',
  INR: 'IN',
  BRL: 'BR',
  KRW: 'KR',
  RUB: 'RU',
  HUF: 'HU',
  CZK: 'CZ',
};
/** Euro-area members: a release of Germany is a EUR release. */
const EURO_AREA = ['AT', 'BE', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK'];

const COUNTRY_OF: Readonly<Record<string, string>> = { ...Object.fromEntries(MAJORS.map((m) => [m.currency, m.country])), ...MORE, ALL: 'WW' };
const CURRENCY_OF: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(COUNTRY_OF).map(([currency, country]) => [country, currency])),
  ...Object.fromEntries(EURO_AREA.map((c) => [c, 'EUR'])),
  UK: 'GBP',
};

/** Country and currency from what a source gives: a currency code (the weekly feed), a country code, or both. */
export const countryAndCurrency = (country: string | null | undefined, currency: string | null | undefined): { country: string; currency: string } | null => {
  const c = (country ?? '').trim().toUpperCase();
  const k = (currency ?? '').trim().toUpperCase();
  if (k && COUNTRY_OF[k]) return { country: c.length === 2 ? c : COUNTRY_OF[k], currency: k };
  if (c === 'ALL' || c === 'WW') return { country: 'WW', currency: 'ALL' };
  if (COUNTRY_OF[c]) return { country: COUNTRY_OF[c], currency: c };
  if (CURRENCY_OF[c]) return { country: c === 'UK' ? 'GB' : c, currency: CURRENCY_OF[c] };
  if (/^[A-Z]{2}$/.test(c) && /^[A-Z]{3}$/.test(k)) return { country: c, currency: k };
  return null;
};

/** The impact of a source's word (High, Medium, Low, Holiday, Non-Economic, 1-3). */
export const impactOf = (word: string | null | undefined): Impact | null => {
  const w = (word ?? '').trim().toLowerCase();
  if (w === 'high' || w === '3' || w === 'red') return 'HIGH';
  if (w === 'medium' || w === 'moderate' || w === '2' || w === 'orange') return 'MEDIUM';
  if (w === 'low' || w === '1' || w === 'yellow') return 'LOW';
  if (w === 'holiday') return 'HOLIDAY';
  if (w === 'non-economic' || w === 'none' || w === '0' || w === 'gray' || w === '') return 'NONE';
  return null;
};

/** The impacts at or above `impact` (a minimum: HIGH is HIGH only, MEDIUM is MEDIUM and HIGH). */
export const impactsFrom = (impact: Impact): Impact[] =>
  impact === 'HOLIDAY' ? ['HOLIDAY'] : IMPACTS.slice(IMPACTS.indexOf(impact)).filter((i) => i !== 'HOLIDAY');

const CALENDAR_EVENT_NAMESPACE = '4f3c8a52-6c1d-4d8e-9b0a-2e7f5d9c1a36';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The series of a release (the same indicator in other months): its currency and its title. */
export const seriesOf = (entry: Pick<CalendarEntry, 'currency' | 'title'>): string =>
  `${entry.currency}:${entry.title.trim().toLowerCase().replace(/\s+/g, ' ')}`;

/** The event id: a source's own id (a uuid as it is, other ids hashed), else currency, title and UTC day. */
export const eventIdOf = (entry: Pick<CalendarEntry, 'currency' | 'title' | 'time'>, sourceId?: string | null): string => {
  const own = sourceId?.trim();
  if (own) return UUID.test(own) ? own.toLowerCase() : uuidv5(`id:${own}`, CALENDAR_EVENT_NAMESPACE);
  return uuidv5(`${seriesOf(entry)}|${entry.time.slice(0, 10)}`, CALENDAR_EVENT_NAMESPACE);
};

/**
 * The number in a published figure: "0.3%" 0.3, "-1.2" -1.2, "215K" 215000, "1.5M", "2.1B", "<0.1"
 * 0.1; null when there is none. Forecast and actual are read alike, so a surprise keeps their unit.
 */
export const numericValue = (text: string | null | undefined): number | null => {
  if (!text) return null;
  const m = /(-?\d+(?:[.,]\d+)?)\s*([KMBT])?/i.exec(text.replace(/\s/g, ''));
  if (!m) return null;
  const n = Number(m[1]!.replace(',', '.'));
  const scale = { K: 1e3, M: 1e6, B: 1e9, T: 1e12 }[(m[2] ?? '').toUpperCase()] ?? 1;
  return Number.isFinite(n) ? n * scale : null;
};

/** The problem of an entry in words, or null. */
export const checkEntry = (entry: CalendarEntry): string | null => {
  if (!entry.title.trim()) return 'title is empty';
  if (entry.title.length > 200) return 'title is longer than 200 characters';
  if (Number.isNaN(Date.parse(entry.time))) return `time ${entry.time} is not a date-time`;
  if (!IMPACTS.includes(entry.impact)) return `impact ${String(entry.impact)} is not one of ${IMPACTS.join(', ')}`;
  for (const m of ['forecast', 'previous', 'actual'] as const) {
    const v = entry[m];
    if (v !== null && v.length > 64) return `${m} is longer than 64 characters`;
  }
  return null;
};
