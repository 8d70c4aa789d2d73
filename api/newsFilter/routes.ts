// The news filter's views (spec "Economic calendar, news and alerts", all under /projects/{projectId}):
//   GET  .../newsFilter/symbolMapping   the calendar currencies of symbols (max 20)
//   GET  .../newsFilter/preview         the blackout windows of symbols over the next days (max 20 symbols, 14 days)
//   POST .../newsFilter/backtest        an account's closed trades replayed through a news filter
// Use cases in app/newsFilter.ts, the rule in domain/copy/features/newsFilter.ts (FeatureNewsFilterDTO).
import type { Static } from '@sinclair/typebox';
import { newsFilterBacktest, newsFilterPreview, newsSymbolMapping, symbolsOf } from '../../app/newsFilter.js';
import type { Services } from '../../app/services.js';
import type { Impact } from '../../domain/calendar/entry.js';
import { toCalendarEventDTO } from '../calendar/dto.js';
import { ProjectParams } from '../calendar/schemas.js';
import type { Caller, Routes } from '../route.js';
import { loadAccount } from '../shared/accounts.js';
import { checkProjectScope } from '../shared/projects.js';
import { errorResponses } from '../shared/schemas.js';
import {
  NewsFilterBacktestDTO,
  NewsFilterBacktestRequestDTO,
  NewsFilterPreviewDTO,
  PreviewQuery,
  SymbolCurrencyMappingDTO,
  SymbolMappingQuery,
} from './schemas.js';
import { Type } from '@sinclair/typebox';

const TAG = 'Economic calendar';
type ProjectP = { projectId: string };
const ABOUT =
  'Needs a project-level key of this project (another project: 404 [PROJECT_NOT_FOUND]; an account-level key: 403 [PROJECT_LEVEL_API_KEY_REQUIRED]). The members of the answer are ours (the reference document defines none), documented here.';
const CURRENCIES =
  "A symbol's currencies: those of a currency pair (EURUSD: EUR, USD; suffixes like .m or pro are ignored), the quote currency of metals and crypto (XAUUSD: USD), the home market of common index and oil names (US500: USD, GER40: EUR, UK100: GBP, JP225: JPY); none when the service cannot tell.";

export const newsFilterRoutes = (routes: Routes, services: Services): void => {
  const scope = (caller: Caller, projectId: string) => checkProjectScope(caller, projectId, 'the news filter');
  const reads = errorResponses(400, 401, 403, 404);

  routes.add<ProjectP, Static<typeof SymbolMappingQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/newsFilter/symbolMapping',
    tag: TAG,
    operationId: 'getNewsFilterSymbolMapping',
    summary: 'The calendar currencies of symbols (SymbolCurrencyMappingDTO list)',
    description: `symbols: comma-separated, required, at most 20 (more: 400 [VALIDATION_FAILED]); includeGlobalEvents default true. One entry per distinct symbol, in the order asked: { symbol, currencies, includesGlobalEvents }. ${CURRENCIES} A per-symbol override of FeatureNewsFilterDTO can give a symbol its own window or disable the filter for it. ${ABOUT}`,
    params: ProjectParams,
    query: SymbolMappingQuery,
    responses: { 200: { description: 'the mapping', schema: Type.Array(SymbolCurrencyMappingDTO) }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      return { body: newsSymbolMapping(symbolsOf(query.symbols), query.includeGlobalEvents !== 'false') };
    },
  });

  routes.add<ProjectP, Static<typeof PreviewQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/newsFilter/preview',
    tag: TAG,
    operationId: 'getNewsFilterPreview',
    summary: 'Blackout windows of symbols over the next days (NewsFilterPreviewDTO)',
    description: `symbols: comma-separated, required, at most 20; impact the lowest that blocks (default HIGH); before and after the blackout minutes around an event, 0 to 240 (defaults 30 and 15, as FeatureNewsFilterDTO); includeHolidays (default true) lists the bank holidays of each symbol's currencies; includeGlobalEvents (default true); days ahead from now (the service clock), default 7, at most 14 (more: 400 [VALIDATION_FAILED]). Answer: { from, to, impact, before, after, symbols: [{ symbol, currencies, blackouts: [{ from, to, event }], holidays: [event] }] }, events as GET .../economicCalendar answers them; a window already running at \`from\` is included. ${CURRENCIES} ${ABOUT}`,
    params: ProjectParams,
    query: PreviewQuery,
    responses: { 200: { description: 'the preview', schema: NewsFilterPreviewDTO }, ...reads },
    async handler({ params, query, caller }) {
      scope(caller, params.projectId);
      const preview = await newsFilterPreview(services, {
        symbols: symbolsOf(query.symbols),
        impact: (query.impact?.toUpperCase() ?? 'HIGH') as Impact,
        before: query.before ?? 30,
        after: query.after ?? 15,
        includeHolidays: query.includeHolidays !== 'false',
        includeGlobalEvents: query.includeGlobalEvents !== 'false',
        days: query.days ?? 7,
      });
      return {
        body: {
          ...preview,
          symbols: preview.symbols.map((s) => ({
            ...s,
            blackouts: s.blackouts.map((b) => ({ from: b.from, to: b.to, event: toCalendarEventDTO(b.event) })),
            holidays: s.holidays.map(toCalendarEventDTO),
          })),
        },
      };
    },
  });

  routes.add<ProjectP, unknown, Static<typeof NewsFilterBacktestRequestDTO>>({
    method: 'post',
    path: '/projects/{projectId}/newsFilter/backtest',
    tag: TAG,
    operationId: 'backtestNewsFilter',
    summary: "Replays a news filter over an account's closed trades (NewsFilterBacktestDTO)",
    description: `Body NewsFilterBacktestRequestDTO: { accountId (required, an account of this project: else 404 [ACCOUNT_NOT_FOUND]), from, to (the close times; default the last 30 days, at most 366 days; a date is its whole UTC day), setting (FeatureNewsFilterDTO members with their bounds; left out: the feature's defaults) }. Each position closed in the range (its parts summed) is replayed as a market open at its open time against the economic calendar as it is now: BLOCKED (NEWS_BLACKOUT or BANK_HOLIDAY with SKIP_NEW_OPENS), REDUCED (holiday REDUCE_SIZE) or ALLOWED, with the message the account log would carry. Answer: { accountId, from, to, setting (every member), totalTrades, blockedTrades, reducedTrades, totalResult, blockedResult, trades }. Changes nothing. ${ABOUT}`,
    params: ProjectParams,
    body: NewsFilterBacktestRequestDTO,
    responses: { 200: { description: 'the replay', schema: NewsFilterBacktestDTO }, ...reads },
    async handler({ params, body, caller }) {
      scope(caller, params.projectId);
      const account = await loadAccount(services, caller, body.accountId);
      return {
        body: await newsFilterBacktest(services, {
          accountId: account.id,
          ...(body.from ? { from: body.from } : {}),
          ...(body.to ? { to: body.to } : {}),
          ...(body.setting ? { setting: body.setting } : {}),
        }),
      };
    },
  });
};
