// Schemas of the economic calendar operations (spec "Economic calendar, news and alerts", all under
// /projects/{projectId}). The spec gives the parameters, defaults and limits and names no payload member:
// the members below are ours, documented in each operation.
import { Type } from '@sinclair/typebox';
import { IMPACTS } from '../../domain/calendar/entry.js';
import { IsoDateOrDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const MAX_PAGE_SIZE = 100;
export const MAX_EXPOSURE_DAYS = 14;
export const MAX_HISTORY_LIMIT = 60;
export const MAX_SURPRISE_DAYS = 365;

export const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
export const CalendarEventParams = Type.Object({ projectId: Uuid, eventId: Uuid }, { additionalProperties: false });

const List = (description: string, pattern: string) => Type.String({ maxLength: 500, pattern: `^\\s*${pattern}(\\s*,\\s*${pattern})*\\s*$`, description });
const Currencies = List('comma-separated ISO 4217 currency codes (USD,EUR); ALL names releases of no one currency', '[A-Za-z]{3}');
const Countries = List('comma-separated ISO 3166 alpha-2 country codes (US,DE); EU is the euro area, WW releases of no one country', '[A-Za-z]{2}');
const ImpactName = Type.Union(
  IMPACTS.map((i) => Type.Literal(i)),
  { description: 'HOLIDAY, NONE, LOW, MEDIUM, HIGH' },
);
const Impacts = List(
  'comma-separated impacts, each of HOLIDAY, NONE, LOW, MEDIUM, HIGH (any case); the events of these impacts',
  '(?:[Hh][Oo][Ll][Ii][Dd][Aa][Yy]|[Nn][Oo][Nn][Ee]|[Ll][Oo][Ww]|[Mm][Ee][Dd][Ii][Uu][Mm]|[Hh][Ii][Gg][Hh])',
);

export const CalendarListQuery = Type.Object(
  {
    from: Type.Optional(IsoDateOrDateTime),
    to: Type.Optional(IsoDateOrDateTime),
    currencies: Type.Optional(Currencies),
    countries: Type.Optional(Countries),
    impact: Type.Optional(Impacts),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'part of the title, without case' })),
    page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'the page, from 0 (default 0)' })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: `events per page, default 20, at most ${MAX_PAGE_SIZE}` })),
  },
  { additionalProperties: false },
);

export const HistoryQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_HISTORY_LIMIT, description: `the last N releases, default 12, at most ${MAX_HISTORY_LIMIT}` }),
    ),
  },
  { additionalProperties: false },
);

export const ExposureQuery = Type.Object(
  {
    accountId: Uuid,
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EXPOSURE_DAYS, description: `days ahead from now, default 3, at most ${MAX_EXPOSURE_DAYS}` })),
    impact: Type.Optional(
      Type.Union(
        ['LOW', 'MEDIUM', 'HIGH', 'low', 'medium', 'high'].map((i) => Type.Literal(i)),
        { description: 'the lowest impact counted: HIGH (default) the high ones, MEDIUM medium and high, LOW low, medium and high' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const HeatmapQuery = Type.Object(
  { from: Type.Optional(IsoDateOrDateTime), to: Type.Optional(IsoDateOrDateTime), currencies: Type.Optional(Currencies) },
  { additionalProperties: false },
);

export const SurpriseQuery = Type.Object(
  {
    currencies: Type.Optional(Currencies),
    days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_SURPRISE_DAYS, description: `the releases of the last N days, default 90, at most ${MAX_SURPRISE_DAYS}` }),
    ),
  },
  { additionalProperties: false },
);

export const RateOutlookQuery = Type.Object({ currencies: Type.Optional(Currencies) }, { additionalProperties: false });

export const BankHolidaysQuery = Type.Object(
  { from: Type.Optional(IsoDateOrDateTime), to: Type.Optional(IsoDateOrDateTime), countries: Type.Optional(Countries) },
  { additionalProperties: false },
);

export const EconomicCalendarEventDTO = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    country: Type.String({ description: 'ISO 3166 alpha-2; EU the euro area, WW no one country' }),
    currency: Type.String({ description: 'ISO 4217; ALL no one currency' }),
    currencies: Type.Array(Type.String(), { description: 'the currencies it affects (today its currency)' }),
    impact: ImpactName,
    time: Type.String({ format: 'date-time', description: 'release time, UTC (the day start for an all-day event)' }),
    allDay: Type.Boolean(),
    forecast: Nullable(Type.String({ description: 'as published: 0.3%, 215K' })),
    previous: Nullable(Type.String()),
    actual: Nullable(Type.String({ description: 'null until released' })),
    revision: Type.Integer({ description: '0 as first published, one more for each change a source brought' }),
    source: Type.String({ description: 'where the last change came from: file:NAME, feed:URL, sample' }),
    updated: Type.String({ format: 'date-time' }),
  },
  { description: 'One release of the economic calendar (members ours: the spec shows none)' },
);

const RevisionDTO = Type.Object(
  {
    revision: Type.Integer(),
    at: Type.String({ format: 'date-time' }),
    source: Type.String(),
    changes: Type.Array(Type.Object({ member: Type.String(), from: Type.Unknown(), to: Type.Unknown() }), {
      description: 'what the revision changed, from and to; empty for the publication (revision 0)',
    }),
  },
  { description: 'One revision of a calendar event' },
);

export const EconomicCalendarEventDetailDTO = Type.Composite(
  [EconomicCalendarEventDTO, Type.Object({ revisions: Type.Array(RevisionDTO, { description: 'oldest first' }) })],
  {
    description: 'One calendar event with its revision history',
  },
);

export const EconomicCalendarPageDTO = Type.Object(
  {
    content: Type.Array(EconomicCalendarEventDTO),
    page: Type.Integer(),
    size: Type.Integer(),
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
  },
  { description: 'A page of calendar events, by time' },
);

export const ExposureDTO = Type.Object(
  {
    accountId: Uuid,
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    impact: Type.String(),
    exposedCurrencies: Type.Array(Type.String(), { description: 'currencies of the open positions with an upcoming event' }),
    positions: Type.Array(
      Type.Object({
        positionId: Type.String(),
        symbol: Type.String(),
        orderType: Type.String(),
        volume: Type.Number(),
        currencies: Type.Array(Type.String()),
        eventIds: Type.Array(Uuid, { description: 'the upcoming events of its currencies' }),
      }),
    ),
    events: Type.Array(EconomicCalendarEventDTO, { description: 'the upcoming events affecting any open position, by time' }),
  },
  { description: "An account's open positions against the upcoming events of their currencies" },
);

export const RiskHeatmapDTO = Type.Object(
  {
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    currencies: Type.Array(Type.String()),
    cells: Type.Array(
      Type.Object({
        currency: Type.String(),
        date: Type.String({ format: 'date' }),
        score: Type.Integer({ description: 'HIGH 3, MEDIUM 2, LOW 1, a holiday 1, summed over the day' }),
        high: Type.Integer(),
        medium: Type.Integer(),
        low: Type.Integer(),
        holidays: Type.Integer(),
        eventIds: Type.Array(Uuid),
      }),
    ),
  },
  { description: 'Event risk per currency and UTC day' },
);

export const SurpriseIndexDTO = Type.Object(
  {
    currency: Type.String(),
    index: Type.Number({ description: 'impact-weighted mean of the z-scores (HIGH 3, MEDIUM 2, LOW 1); 0 without releases' }),
    components: Type.Array(
      Type.Object({
        eventId: Uuid,
        title: Type.String(),
        time: Type.String({ format: 'date-time' }),
        impact: ImpactName,
        actual: Type.Number(),
        forecast: Type.Number(),
        surprise: Type.Number({ description: 'actual - forecast' }),
        zScore: Type.Number({ description: "the surprise in standard deviations of the series' earlier surprises (±1 or 0 with fewer than two)" }),
      }),
    ),
  },
  { description: 'The surprise index of one currency' },
);

const Decision = Type.Object({ eventId: Uuid, title: Type.String(), time: Type.String({ format: 'date-time' }) });
export const RateOutlookDTO = Type.Object(
  {
    currency: Type.String(),
    centralBank: Nullable(Type.String()),
    currentRate: Nullable(Type.Number({ description: 'percent' })),
    lastDecision: Nullable(Type.Composite([Decision, Type.Object({ actual: Nullable(Type.Number()) })])),
    nextDecision: Nullable(Type.Composite([Decision, Type.Object({ forecast: Nullable(Type.Number()), previous: Nullable(Type.Number()) })])),
    expectedChange: Nullable(Type.Number({ description: 'percentage points: next forecast minus current rate' })),
    bias: Type.Union([Type.Literal('HIKE'), Type.Literal('CUT'), Type.Literal('HOLD'), Type.Literal('UNKNOWN')]),
  },
  { description: 'The rate outlook of one currency, from the imported rate decisions' },
);

export const BankHolidayDTO = Type.Object(
  {
    date: Type.String({ format: 'date' }),
    country: Type.String(),
    currency: Nullable(Type.String()),
    name: Type.String(),
    type: Type.String({ description: 'public or bank (date-holidays)' }),
    start: Type.String({ format: 'date-time' }),
    end: Type.String({ format: 'date-time' }),
  },
  { description: 'One bank holiday (date-holidays rules)' },
);
