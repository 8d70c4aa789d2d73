// The news filter's views (spec "Economic calendar, news and alerts": GET .../newsFilter/symbolMapping,
// GET .../newsFilter/preview, POST .../newsFilter/backtest): the rule of FeatureNewsFilterDTO
// (domain/copy/features/newsFilter.ts) applied to the calendar read model and, for the backtest, to an
// account's closed trades (the history read model). Nothing here changes anything.
import { type Impact, impactsFrom } from '../domain/calendar/entry.js';
import { affects, currenciesOfSymbol } from '../domain/calendar/symbols.js';
import { newsFilter, type NewsFilterFeatureSettings, newsFilterSettingsOf, newsFilterVerdict } from '../domain/copy/features/newsFilter.js';
import { invalid } from '../domain/shared/errors.js';
import { calendarEvents, type CalendarRow } from '../projections/calendar/queries.js';
import { closedTradesBetween } from '../projections/history/queries.js';
import { listOf, rangeOf } from './calendarViews.js';
import type { Services } from './services.js';

export const MAX_SYMBOLS = 20;
export const MAX_PREVIEW_DAYS = 14;
export const MAX_BACKTEST_DAYS = 366;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The comma-separated symbols of a request: 1 to 20, else 400 [VALIDATION_FAILED]. */
export const symbolsOf = (text: string): string[] => {
  const symbols = listOf(text);
  if (symbols.length === 0) throw invalid('[VALIDATION_FAILED]', 'symbols must name at least one symbol', { field: 'symbols' });
  if (symbols.length > MAX_SYMBOLS) throw invalid('[VALIDATION_FAILED]', `at most ${MAX_SYMBOLS} symbols per call`, { field: 'symbols' });
  return symbols;
};

export interface SymbolCurrencyMapping {
  readonly symbol: string;
  readonly currencies: readonly string[];
  readonly includesGlobalEvents: boolean;
}

/** GET .../newsFilter/symbolMapping: the calendar currencies of each symbol. */
export const newsSymbolMapping = (symbols: readonly string[], includeGlobalEvents: boolean): SymbolCurrencyMapping[] =>
  symbols.map((symbol) => ({ symbol, currencies: currenciesOfSymbol(symbol), includesGlobalEvents: includeGlobalEvents }));

export interface PreviewRequest {
  readonly symbols: readonly string[];
  readonly impact: Impact;
  readonly before: number;
  readonly after: number;
  readonly includeHolidays: boolean;
  readonly includeGlobalEvents: boolean;
  readonly days: number;
}

export interface BlackoutWindow {
  readonly from: string;
  readonly to: string;
  readonly event: CalendarRow;
}

/** GET .../newsFilter/preview: each symbol's blackout windows (and bank holidays) from now over `days` days. */
export const newsFilterPreview = async (services: Pick<Services, 'db' | 'clock'>, request: PreviewRequest) => {
  const now = services.clock();
  const to = new Date(now.getTime() + request.days * DAY);
  // Events up to `before` minutes after the end still open a window inside it; those `after` minutes before now still close one.
  const events = await calendarEvents(services.db, {
    from: new Date(now.getTime() - request.after * MINUTE).toISOString(),
    to: new Date(to.getTime() + request.before * MINUTE).toISOString(),
  });
  const impacts = impactsFrom(request.impact);
  const symbols = request.symbols.map((symbol) => {
    const currencies = currenciesOfSymbol(symbol);
    const blackouts: BlackoutWindow[] = events
      .filter((e) => impacts.includes(e.impact) && !e.allDay && affects(e.currency, currencies, request.includeGlobalEvents))
      .map((event) => {
        const at = Date.parse(event.time);
        return { from: new Date(at - request.before * MINUTE).toISOString(), to: new Date(at + request.after * MINUTE).toISOString(), event };
      })
      .filter((w) => Date.parse(w.to) >= now.getTime() && Date.parse(w.from) < to.getTime());
    const holidays = request.includeHolidays
      ? events.filter(
          (e) =>
            e.impact === 'HOLIDAY' && affects(e.currency, currencies, false) && Date.parse(e.time) < to.getTime() && Date.parse(e.time) + DAY > now.getTime(),
        )
      : [];
    return { symbol, currencies, blackouts, holidays };
  });
  return { from: now.toISOString(), to: to.toISOString(), impact: request.impact, before: request.before, after: request.after, symbols };
};

export interface BacktestRequest {
  readonly accountId: string;
  readonly from?: string;
  readonly to?: string;
  /** FeatureNewsFilterDTO's members; those left out take the feature's defaults. */
  readonly setting?: Partial<NewsFilterFeatureSettings>;
}

export interface BacktestTrade {
  readonly positionId: string;
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  readonly openTime: string;
  readonly closeTime: string;
  readonly result: number;
  readonly verdict: 'BLOCKED' | 'REDUCED' | 'ALLOWED';
  readonly reason: string | null;
  readonly message: string | null;
  readonly eventId: string | null;
}

/** The feature's settings of a backtest: the members sent over the defaults, checked as the feature is. */
export const backtestSettings = (sent: Partial<NewsFilterFeatureSettings> | undefined): NewsFilterFeatureSettings => {
  const settings = { ...newsFilter.defaults, ...(sent ?? {}) } as NewsFilterFeatureSettings;
  const problem = newsFilter.check?.(settings);
  if (problem) throw invalid('[VALIDATION_FAILED]', problem, { field: 'setting' });
  return settings;
};

/**
 * POST .../newsFilter/backtest: the account's positions closed from `from` to `to` (default the last 30
 * days; at most 366), each replayed as a market open at its open time through the news filter.
 */
export const newsFilterBacktest = async (services: Pick<Services, 'db' | 'clock'>, request: BacktestRequest) => {
  const settings = backtestSettings(request.setting);
  const range = rangeOf(request.from, request.to, { from: new Date(services.clock().getTime() - 30 * DAY), days: 30 }, MAX_BACKTEST_DAYS);
  const rows = await closedTradesBetween(services.db, request.accountId, range.from.toISOString(), range.to.toISOString());
  // A position closed in parts is one trade: its first open, its last close, the sum of its parts.
  const byPosition = new Map<string, { symbol: string; side: 'Buy' | 'Sell'; volume: number; openTime: number; closeTime: number; result: number }>();
  for (const r of rows) {
    const prior = byPosition.get(r.position_id);
    const result = r.profit + r.swap + r.commission;
    const open = new Date(r.open_time).getTime();
    const close = new Date(r.close_time).getTime();
    byPosition.set(
      r.position_id,
      prior
        ? {
            ...prior,
            volume: prior.volume + r.volume,
            openTime: Math.min(prior.openTime, open),
            closeTime: Math.max(prior.closeTime, close),
            result: prior.result + result,
          }
        : { symbol: r.symbol, side: r.side === 'Sell' ? 'Sell' : 'Buy', volume: r.volume, openTime: open, closeTime: close, result },
    );
  }
  const opens = [...byPosition.values()].map((p) => p.openTime);
  const reach = 24 * 60 * MINUTE + 240 * MINUTE;
  const events = opens.length
    ? await calendarEvents(services.db, { from: new Date(Math.min(...opens) - reach).toISOString(), to: new Date(Math.max(...opens) + reach).toISOString() })
    : [];
  const rule = newsFilterSettingsOf(settings);
  const round = (x: number) => Math.round(x * 100) / 100;
  const trades: BacktestTrade[] = [...byPosition.entries()]
    .sort((a, b) => a[1].openTime - b[1].openTime)
    .map(([positionId, p]) => {
      const verdict = newsFilterVerdict(rule, events, p.symbol, { kind: 'open', order: 'market' }, new Date(p.openTime).toISOString());
      const base = {
        positionId,
        symbol: p.symbol,
        side: p.side,
        volume: Math.round(p.volume * 1e8) / 1e8,
        openTime: new Date(p.openTime).toISOString(),
        closeTime: new Date(p.closeTime).toISOString(),
        result: round(p.result),
      };
      if (verdict.verdict === 'skip') return { ...base, verdict: 'BLOCKED', reason: verdict.reason, message: verdict.message, eventId: verdict.eventId };
      if (verdict.verdict === 'reduce') return { ...base, verdict: 'REDUCED', reason: 'BANK_HOLIDAY', message: verdict.message, eventId: verdict.eventId };
      return { ...base, verdict: 'ALLOWED', reason: null, message: null, eventId: null };
    });
  const blocked = trades.filter((t) => t.verdict === 'BLOCKED');
  const reduced = trades.filter((t) => t.verdict === 'REDUCED');
  return {
    accountId: request.accountId,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    setting: settings,
    totalTrades: trades.length,
    blockedTrades: blocked.length,
    reducedTrades: reduced.length,
    totalResult: round(trades.reduce((s, t) => s + t.result, 0)),
    blockedResult: round(blocked.reduce((s, t) => s + t.result, 0)),
    trades,
  };
};
