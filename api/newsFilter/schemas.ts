// Schemas of the news filter's views (spec "Economic calendar, news and alerts": newsFilter/symbolMapping,
// newsFilter/preview, newsFilter/backtest). The spec names SymbolCurrencyMappingDTO, NewsFilterPreviewDTO,
// NewsFilterBacktestRequestDTO and NewsFilterBacktestDTO and no member of them; the reference is silent:
// the members below are ours, documented in each operation.
import { Type } from '@sinclair/typebox';
import { MAX_PREVIEW_DAYS, MAX_SYMBOLS } from '../../app/newsFilter.js';
import { MAX_BLACKOUT_MINUTES, newsFilter } from '../../domain/copy/features/newsFilter.js';
import { EconomicCalendarEventDTO } from '../calendar/schemas.js';
import { IsoDateOrDateTime, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const Symbols = Type.String({
  minLength: 1,
  maxLength: 1400,
  pattern: '^\\s*[A-Za-z0-9._#/+-]{1,64}(\\s*,\\s*[A-Za-z0-9._#/+-]{1,64})*\\s*$',
  description: `comma-separated symbols (EURUSD,XAUUSD), at most ${MAX_SYMBOLS}; more: 400 [VALIDATION_FAILED]`,
});
const Flag = (description: string) => Type.Union([Type.Literal('true'), Type.Literal('false')], { description });
const Lowest = Type.Union(
  ['LOW', 'MEDIUM', 'HIGH', 'low', 'medium', 'high'].map((i) => Type.Literal(i)),
  { description: 'the lowest impact that blocks: HIGH (default), MEDIUM (medium and high), LOW (low, medium and high)' },
);

export const SymbolMappingQuery = Type.Object(
  { symbols: Symbols, includeGlobalEvents: Type.Optional(Flag('true (default): releases of no one currency (ALL) affect every symbol')) },
  { additionalProperties: false },
);

export const SymbolCurrencyMappingDTO = Type.Object(
  {
    symbol: Type.String({ description: 'the symbol as asked, upper case' }),
    currencies: Type.Array(Type.String(), {
      description: 'the calendar currencies whose events affect it, base first; empty: the service cannot tell (no event affects it unless it is global)',
    }),
    includesGlobalEvents: Type.Boolean({ description: 'whether releases of no one currency (ALL) affect it, as asked' }),
  },
  { $id: 'SymbolCurrencyMappingDTO', additionalProperties: false },
);

const Minutes = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_BLACKOUT_MINUTES, description });

export const PreviewQuery = Type.Object(
  {
    symbols: Symbols,
    impact: Type.Optional(Lowest),
    before: Type.Optional(Minutes('blackout minutes before an event, 0 to 240 (default 30, as the feature)')),
    after: Type.Optional(Minutes('blackout minutes after an event, 0 to 240 (default 15, as the feature)')),
    includeHolidays: Type.Optional(Flag("true (default): each symbol's bank holidays (the calendar's HOLIDAY events of its currencies) are listed")),
    includeGlobalEvents: Type.Optional(Flag('true (default): releases of no one currency (ALL) affect every symbol')),
    days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PREVIEW_DAYS, description: `days ahead from now, default 7, at most ${MAX_PREVIEW_DAYS}` })),
  },
  { additionalProperties: false },
);

const BlackoutDTO = Type.Object(
  {
    from: IsoDateTime,
    to: IsoDateTime,
    event: EconomicCalendarEventDTO,
  },
  { additionalProperties: false, description: 'a blackout window: from `before` minutes before the event to `after` minutes after it' },
);

export const NewsFilterPreviewDTO = Type.Object(
  {
    from: IsoDateTime,
    to: IsoDateTime,
    impact: Type.String({ description: 'the lowest impact that blocks' }),
    before: Type.Integer(),
    after: Type.Integer(),
    symbols: Type.Array(
      Type.Object(
        {
          symbol: Type.String(),
          currencies: Type.Array(Type.String()),
          blackouts: Type.Array(BlackoutDTO, { description: 'by time; windows that overlap [from, to]' }),
          holidays: Type.Array(EconomicCalendarEventDTO, { description: "the symbol's bank holidays in the range (empty with includeHolidays=false)" }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'NewsFilterPreviewDTO', additionalProperties: false },
);

export const NewsFilterBacktestRequestDTO = Type.Object(
  {
    accountId: Uuid,
    from: Type.Optional(IsoDateOrDateTime),
    to: Type.Optional(IsoDateOrDateTime),
    setting: Type.Optional(
      Type.Partial(newsFilter.members, {
        additionalProperties: false,
        description: 'FeatureNewsFilterDTO members to replay (the same bounds); members left out take the feature defaults',
      }),
    ),
  },
  { $id: 'NewsFilterBacktestRequestDTO', additionalProperties: false },
);

const BacktestTradeDTO = Type.Object(
  {
    positionId: Type.String(),
    symbol: Type.String(),
    side: Type.String({ description: 'Buy or Sell' }),
    volume: Type.Number({ description: 'the lots closed, all parts' }),
    openTime: IsoDateTime,
    closeTime: IsoDateTime,
    result: Type.Number({ description: "profit + swap + commission of all its parts, the account's currency" }),
    verdict: Type.Union([Type.Literal('BLOCKED'), Type.Literal('REDUCED'), Type.Literal('ALLOWED')], {
      description: 'what the filter would have done to its open: skipped it, reduced its lot (holiday REDUCE_SIZE), or let it through',
    }),
    reason: Nullable(Type.String({ description: 'NEWS_BLACKOUT or BANK_HOLIDAY' })),
    message: Nullable(Type.String({ description: 'the reason in words, as the account log would say it' })),
    eventId: Nullable(Type.String({ description: 'the calendar event that decided it' })),
  },
  { additionalProperties: false },
);

export const NewsFilterBacktestDTO = Type.Object(
  {
    accountId: Uuid,
    from: IsoDateTime,
    to: IsoDateTime,
    setting: Type.Object({}, { additionalProperties: true, description: 'the FeatureNewsFilterDTO members replayed, every one' }),
    totalTrades: Type.Integer(),
    blockedTrades: Type.Integer(),
    reducedTrades: Type.Integer(),
    totalResult: Type.Number({ description: 'the result of every trade replayed' }),
    blockedResult: Type.Number({ description: 'the result of the trades the filter would have blocked (negative: it would have saved that much)' }),
    trades: Type.Array(BacktestTradeDTO, { description: 'every closed position of the range, by open time' }),
  },
  { $id: 'NewsFilterBacktestDTO', additionalProperties: false },
);
