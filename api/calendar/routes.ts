// The economic calendar (spec "Economic calendar, news and alerts", all under /projects/{projectId}):
//   GET .../economicCalendar                    list (from, to, currencies, countries, impact, search, page, size)
//   GET .../economicCalendar/exposure           an account's open positions against upcoming events
//   GET .../economicCalendar/riskHeatmap        event risk per currency and day
//   GET .../economicCalendar/surpriseIndex      actual vs forecast in standard deviations
//   GET .../economicCalendar/rateOutlook        from the imported rate decisions
//   GET .../economicCalendar/{eventId}          one event with its revision history
//   GET .../economicCalendar/{eventId}/history  past releases of the same indicator
//   GET .../bankHolidays                        date-holidays rules
// The calendar itself is the service's market data, the same for every project (domain/calendar/events.ts);
// only a project-level key of the project in the path reads it, and exposure reads only that project's accounts.
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { calendarExposure, calendarHeatmap, calendarRateOutlook, calendarSurpriseIndex, listBankHolidays, listCalendar } from '../../app/calendarViews.js';
import type { Services } from '../../app/services.js';
import type { Impact } from '../../domain/calendar/entry.js';
import { calendarRevisions, findCalendarEvent, seriesHistory } from '../../projections/calendar/queries.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import { loadAccount } from '../shared/accounts.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import { toCalendarEventDetailDTO, toCalendarEventDTO } from './dto.js';
import {
  BankHolidayDTO,
  BankHolidaysQuery,
  CalendarEventParams,
  CalendarListQuery,
  EconomicCalendarEventDetailDTO,
  EconomicCalendarEventDTO,
  EconomicCalendarPageDTO,
  ExposureDTO,
  ExposureQuery,
  HeatmapQuery,
  HistoryQuery,
  ProjectParams,
  RateOutlookDTO,
  RateOutlookQuery,
  RiskHeatmapDTO,
  SurpriseIndexDTO,
  SurpriseQuery,
} from './schemas.js';

const TAG = 'Economic calendar';
type ProjectP = { projectId: string };
const ABOUT =
  "The calendar is the service's market data, shared by every project: it comes from the operator's sources (npm run calendar -- import FILE, the watched folder DATA_DIR/calendar, the weekly feed at CALENDAR_FEED_URL, the sample week at the first start), and every change a source brings is a revision of the event. Needs a project-level key of this project (another project's id: 404 [PROJECT_NOT_FOUND]; an account-level key: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]).";
const RANGE = 'from and to: a date-time, or a date meaning its whole UTC day; to before from, or a range longer than allowed, gives 400 [VALIDATION_FAILED].';

export const calendarRoutes = (routes: Routes, services: Services): void => {
  const scope = (caller: Caller, projectId: string) => checkProjectScope(caller, projectId, 'the economic calendar');
  const loadEvent = async (eventId: string) => {
    const row = await findCalendarEvent(services.db, eventId);
    if (!row) throw new ApiError(404, '[CALENDAR_EVENT_NOT_FOUND]', `calendar event ${eventId} not found`);
    return row;
  };
  const reads = errorResponses(400, 401, 403, 404);

  routes.add<ProjectP, Static<typeof CalendarListQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/economicCalendar',
    tag: TAG,
    operationId: 'getEconomicCalendar',
    summary: 'Economic calendar events',
    description: `By time. Default range: the current day (TIME_ZONE) and the seven days after it; at most 366 days. ${RANGE} currencies, countries and impact are comma-separated lists (impact: the events of any of these impacts); search finds a part of the title without case. page from 0 (default 0), size default 20, at most 100 (more: 400). ${ABOUT}`,
    params: ProjectParams,
    query: CalendarListQuery,
    responses: { 200: { description: 'a page of events', schema: EconomicCalendarPageDTO }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      const { rows, total, page, size, from, to } = await listCalendar(services, query);
      return { body: { content: rows.map(toCalendarEventDTO), page, size, totalElements: total, totalPages: Math.ceil(total / size), from, to } };
    },
  });

  routes.add<ProjectP, Static<typeof ExposureQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/economicCalendar/exposure',
    tag: TAG,
    operationId: 'getEconomicCalendarExposure',
    summary: "An account's open positions against upcoming events",
    description: `accountId is required (an account of this project: else 404 [ACCOUNT_NOT_FOUND]); days ahead from now, default 3, at most 14; impact the lowest counted, default HIGH. The open positions (not pending orders) as the read models hold them; a symbol's currencies are those of the pair (EURUSD: EUR, USD), of the quote for metals and crypto (XAUUSD: USD), of the home market for common index and oil names (US500: USD, GER40: EUR). Releases of no one currency (ALL) affect every position. ${ABOUT}`,
    params: ProjectParams,
    query: ExposureQuery,
    responses: { 200: { description: 'the exposure', schema: ExposureDTO }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      const account = await loadAccount(services, caller, query.accountId);
      const exposure = await calendarExposure(services, account.id, query.days ?? 3, (query.impact?.toUpperCase() ?? 'HIGH') as Impact);
      return { body: { accountId: account.id, ...exposure, events: exposure.events.map(toCalendarEventDTO) } };
    },
  });

  routes.add<ProjectP, Static<typeof HeatmapQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/economicCalendar/riskHeatmap',
    tag: TAG,
    operationId: 'getEconomicCalendarRiskHeatmap',
    summary: 'Event risk per currency and day',
    description: `One cell per currency and UTC day: the counts of HIGH, MEDIUM, LOW and holiday events and a score (HIGH 3, MEDIUM 2, LOW 1, holiday 1). Default the current day and the seven after it, at most 31 days; currencies default the eight majors. ${RANGE} ${ABOUT}`,
    params: ProjectParams,
    query: HeatmapQuery,
    responses: { 200: { description: 'the heatmap', schema: RiskHeatmapDTO }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      return { body: await calendarHeatmap(services, query) };
    },
  });

  routes.add<ProjectP, Static<typeof SurpriseQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/economicCalendar/surpriseIndex',
    tag: TAG,
    operationId: 'getEconomicCalendarSurpriseIndex',
    summary: 'Surprise index per currency',
    description: `For each currency (default the eight majors), the releases of the last days (default 90, at most 365) with a numeric actual and forecast: surprise = actual - forecast, as a z-score against the earlier surprises of the same indicator (at most its last 24; with fewer than two, ±1 or 0 by the sign); the index is their impact-weighted mean (HIGH 3, MEDIUM 2, LOW 1). ${ABOUT}`,
    params: ProjectParams,
    query: SurpriseQuery,
    responses: { 200: { description: 'one index per currency', schema: Type.Array(SurpriseIndexDTO) }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      return { body: await calendarSurpriseIndex(services, query) };
    },
  });

  routes.add<ProjectP, Static<typeof RateOutlookQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/economicCalendar/rateOutlook',
    tag: TAG,
    operationId: 'getEconomicCalendarRateOutlook',
    summary: 'Rate outlook per currency',
    description: `From the imported rate decisions (titles such as Federal Funds Rate, Main Refinancing Rate, Official Bank Rate, Cash Rate, Overnight Rate, Policy Rate): the current rate (the last released decision's actual, else the next one's previous), the next decision and its forecast, the expected change in percentage points and the bias (HIKE, CUT, HOLD; UNKNOWN without figures). Without currencies, the eight majors. ${ABOUT}`,
    params: ProjectParams,
    query: RateOutlookQuery,
    responses: { 200: { description: 'one outlook per currency', schema: Type.Array(RateOutlookDTO) }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      return { body: await calendarRateOutlook(services, query) };
    },
  });

  routes.add<{ projectId: string; eventId: string }, unknown, unknown>({
    method: 'get',
    path: '/projects/{projectId}/economicCalendar/{eventId}',
    tag: TAG,
    operationId: 'getEconomicCalendarEvent',
    summary: 'One calendar event with its revision history',
    description: `revisions: oldest first; revision 0 is the first publication, each later one lists the members a source changed (forecast, actual, time ...) from and to. An unknown id: 404 [CALENDAR_EVENT_NOT_FOUND]. ${ABOUT}`,
    params: CalendarEventParams,
    responses: { 200: { description: 'the event', schema: EconomicCalendarEventDetailDTO }, ...reads },
    async handler({ params, caller }) {
      scope(caller, params.projectId);
      const row = await loadEvent(params.eventId);
      return { body: toCalendarEventDetailDTO(row, await calendarRevisions(services.db, row.eventId)) };
    },
  });

  routes.add<{ projectId: string; eventId: string }, Static<typeof HistoryQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/economicCalendar/{eventId}/history',
    tag: TAG,
    operationId: 'getEconomicCalendarEventHistory',
    summary: 'Past releases of the same indicator',
    description: `The releases of the event's indicator (same currency and title) up to now, the last limit ones (default 12, at most 60), oldest first. ${ABOUT}`,
    params: CalendarEventParams,
    query: HistoryQuery,
    responses: { 200: { description: 'past releases', schema: Type.Array(EconomicCalendarEventDTO) }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      const row = await loadEvent(params.eventId);
      return { body: (await seriesHistory(services.db, row.eventId, services.clock().toISOString(), query.limit ?? 12)).map(toCalendarEventDTO) };
    },
  });

  routes.add<ProjectP, Static<typeof BankHolidaysQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/bankHolidays',
    tag: TAG,
    operationId: 'getBankHolidays',
    summary: 'Bank holidays',
    description: `Public and bank holidays from the offline rules of date-holidays, by date. Default the next 30 days from today (UTC), at most 366 days; countries (ISO 3166 alpha-2, comma-separated) default the countries of the eight majors (US, EU, GB, JP, CH, CA, AU, NZ); EU stands for the euro area's TARGET2 closing days. An unknown country: 400 [VALIDATION_FAILED]. ${RANGE} Needs a project-level key of this project.`,
    params: ProjectParams,
    query: BankHolidaysQuery,
    responses: { 200: { description: 'the holidays', schema: Type.Array(BankHolidayDTO) }, ...reads },
    handler({ params, query, caller }) {
      scope(caller, params.projectId);
      return Promise.resolve({ body: listBankHolidays(services, query) });
    },
  });
};
