// The economic calendar's read use cases (spec "Economic calendar, news and alerts"): the ranges and
// defaults the spec gives, the read model's queries and the computations of domain/calendar. A bad
// range is a DomainError ([VALIDATION_FAILED]) the API answers with 400.
import { periodStart } from '../domain/analytics/periods.js';
import { type CalendarRecord, rateOutlook, riskHeatmap, surpriseIndex } from '../domain/calendar/analytics.js';
import { type Impact, impactsFrom, MAJORS } from '../domain/calendar/entry.js';
import { bankHolidays, DEFAULT_HOLIDAY_COUNTRIES, knownCountry } from '../domain/calendar/holidays.js';
import { affects, currenciesOfSymbol } from '../domain/calendar/symbols.js';
import { invalid } from '../domain/shared/errors.js';
import { calendarEvents, calendarPage, type CalendarFilter, type CalendarRow } from '../projections/calendar/queries.js';
import { openPositionsOf } from '../projections/positions/queries.js';
import type { Services } from './services.js';

const DAY_MS = 86_400_000;
/** The longest range a list, heatmap or holidays call covers. */
export const MAX_RANGE_DAYS = 366;
export const MAX_HEATMAP_DAYS = 31;
/** The last day a range may reach (its exclusive end at most its midnight). */
const LAST_DAY = Date.UTC(9999, 11, 31);

const isDate = (s: string): boolean => /^\d{4}-\d\d-\d\d$/.test(s);

/** A query's from/to: a date-time as it is, a date its whole UTC day; `to` exclusive. */
export const rangeOf = (
  from: string | undefined,
  to: string | undefined,
  defaults: { from: Date; days: number },
  maxDays: number,
): { from: Date; to: Date } => {
  const start = from ? new Date(isDate(from) ? `${from}T00:00:00Z` : from) : defaults.from;
  const end = to ? new Date(isDate(to) ? Date.parse(`${to}T00:00:00Z`) + DAY_MS : Date.parse(to)) : new Date(start.getTime() + defaults.days * DAY_MS);
  if (end.getTime() < start.getTime()) throw invalid('[VALIDATION_FAILED]', 'to must not be before from', { field: 'to' });
  // Answers name their days as ISO dates, which end with the year 9999.
  if (end.getTime() > LAST_DAY) throw invalid('[VALIDATION_FAILED]', 'the range must end by 9999-12-31', { field: from && !to ? 'from' : 'to' });
  if (end.getTime() - start.getTime() > maxDays * DAY_MS)
    throw invalid('[VALIDATION_FAILED]', `from and to may be at most ${maxDays} days apart`, { field: 'to' });
  return { from: start, to: end };
};

export const listOf = (text: string | undefined): string[] =>
  text
    ? [
        ...new Set(
          text
            .split(',')
            .map((s) => s.trim().toUpperCase())
            .filter(Boolean),
        ),
      ]
    : [];

/** The start of today in the service's time zone. */
const today = (services: Pick<Services, 'clock' | 'config'>): Date => new Date(periodStart('day', services.clock(), services.config.timeZone));

export interface CalendarListRequest {
  readonly from?: string;
  readonly to?: string;
  readonly currencies?: string;
  readonly countries?: string;
  readonly impact?: string;
  readonly search?: string;
  readonly page?: number;
  readonly size?: number;
}

/** GET .../economicCalendar: by default the current day (service time zone) and the seven after it. */
export const listCalendar = async (services: Pick<Services, 'db' | 'clock' | 'config'>, request: CalendarListRequest) => {
  const range = rangeOf(request.from, request.to, { from: today(services), days: 8 }, MAX_RANGE_DAYS);
  const page = request.page ?? 0;
  const size = request.size ?? 20;
  const filter: CalendarFilter = {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    currencies: listOf(request.currencies),
    countries: listOf(request.countries),
    impacts: listOf(request.impact) as Impact[],
    ...(request.search ? { search: request.search } : {}),
  };
  const { rows, total } = await calendarPage(services.db, filter, page, size);
  return { rows, total, page, size, from: filter.from, to: filter.to };
};

export interface ExposurePosition {
  readonly positionId: string;
  readonly symbol: string;
  readonly orderType: string;
  readonly volume: number;
  readonly currencies: readonly string[];
  readonly eventIds: readonly string[];
}

/** GET .../economicCalendar/exposure: the account's open positions against the events of the next `days` days of their currencies. */
export const calendarExposure = async (services: Pick<Services, 'db' | 'clock'>, accountId: string, days: number, impact: Impact) => {
  const now = services.clock();
  const to = new Date(now.getTime() + days * DAY_MS);
  const positions = (await openPositionsOf(services.db, accountId)).filter((p) => p.kind === 'position');
  const currencies = [...new Set(positions.flatMap((p) => currenciesOfSymbol(p.symbol)))];
  const events = currencies.length
    ? (await calendarEvents(services.db, { from: now.toISOString(), to: to.toISOString(), impacts: impactsFrom(impact) })).filter((e) =>
        affects(e.currency, currencies, true),
      )
    : [];
  const exposed: ExposurePosition[] = positions.map((p) => {
    const mine = currenciesOfSymbol(p.symbol);
    return {
      positionId: p.id,
      symbol: p.symbol,
      orderType: p.order_type,
      volume: Number(p.volume),
      currencies: mine,
      eventIds: events.filter((e) => affects(e.currency, mine, true)).map((e) => e.eventId),
    };
  });
  const exposedCurrencies = currencies.filter((c) => events.some((e) => e.currency === c || e.currency === 'ALL'));
  return { from: now.toISOString(), to: to.toISOString(), impact, positions: exposed, events, exposedCurrencies };
};

const majors = (text: string | undefined): string[] => {
  const asked = listOf(text);
  return asked.length ? asked : MAJORS.map((m) => m.currency);
};

/** GET .../economicCalendar/riskHeatmap: default the current day and the seven after it, the eight majors; at most 31 days. */
export const calendarHeatmap = async (services: Pick<Services, 'db' | 'clock' | 'config'>, request: { from?: string; to?: string; currencies?: string }) => {
  const range = rangeOf(request.from, request.to, { from: today(services), days: 8 }, MAX_HEATMAP_DAYS);
  const currencies = majors(request.currencies);
  const events = await calendarEvents(services.db, { from: range.from.toISOString(), to: range.to.toISOString(), currencies });
  const from = range.from.toISOString().slice(0, 10);
  const to = new Date(range.to.getTime() - 1).toISOString().slice(0, 10);
  return { from, to, currencies, cells: riskHeatmap(events, currencies, from, to) };
};

/** All the history of `currencies` up to now (surprise index and rate outlook read whole series). */
const historyOf = async (services: Pick<Services, 'db'>, currencies: readonly string[], until: Date): Promise<CalendarRow[]> =>
  calendarEvents(services.db, { from: '1970-01-01T00:00:00Z', to: until.toISOString(), currencies });

/** GET .../economicCalendar/surpriseIndex: the releases of the last `days` days (default 90). */
export const calendarSurpriseIndex = async (services: Pick<Services, 'db' | 'clock'>, request: { currencies?: string; days?: number }) => {
  const now = services.clock();
  const currencies = majors(request.currencies);
  const records: CalendarRecord[] = await historyOf(services, currencies, new Date(now.getTime() + 1));
  return surpriseIndex(records, currencies, new Date(now.getTime() - (request.days ?? 90) * DAY_MS).toISOString(), now.toISOString());
};

/** GET .../economicCalendar/rateOutlook: the eight majors unless currencies are asked for. */
export const calendarRateOutlook = async (services: Pick<Services, 'db' | 'clock'>, request: { currencies?: string }) => {
  const now = services.clock();
  const currencies = majors(request.currencies);
  const records = await calendarEvents(services.db, { from: '1970-01-01T00:00:00Z', to: '9999-01-01T00:00:00Z', currencies });
  return rateOutlook(records, currencies, now.toISOString());
};

/** GET .../bankHolidays: default the next 30 days (from today, UTC), the majors' countries; at most 366 days. */
export const listBankHolidays = (services: Pick<Services, 'clock'>, request: { from?: string; to?: string; countries?: string }) => {
  const now = services.clock();
  const range = rangeOf(request.from, request.to, { from: new Date(`${now.toISOString().slice(0, 10)}T00:00:00Z`), days: 30 }, MAX_RANGE_DAYS);
  const asked = listOf(request.countries);
  const unknown = asked.filter((c) => !knownCountry(c));
  if (unknown.length) throw invalid('[VALIDATION_FAILED]', `countries: ${unknown.join(', ')} not known (ISO 3166 alpha-2)`, { field: 'countries' });
  return bankHolidays(
    asked.length ? asked : DEFAULT_HOLIDAY_COUNTRIES,
    range.from.toISOString().slice(0, 10),
    new Date(range.to.getTime() - 1).toISOString().slice(0, 10),
  );
};
