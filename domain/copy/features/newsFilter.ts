// FeatureNewsFilterDTO (spec "Economic calendar, news and alerts"; copier): the pure rule only, not yet in
// the feature catalogue nor fed by the engine (issue 18, left for the next round). While a calendar event
// affecting a symbol's currencies (domain/calendar/symbols.ts) lies within blackoutBeforeMinutes before
// and blackoutAfterMinutes after `now` (each 0 to 240), new opens on that symbol are skipped with
// NEWS_BLACKOUT and the event in the reason; a close is never blocked; SL/TP changes only with
// blockStopChanges; market and pending opens separately; per-symbol overrides of the window; on a bank
// holiday of the symbol's currencies, holidayMode NONE, REDUCE_SIZE (a volume factor) or SKIP_NEW_OPENS.
import type { CalendarRecord } from '../../calendar/analytics.js';
import { type Impact, impactsFrom } from '../../calendar/entry.js';
import { affects, currenciesOfSymbol } from '../../calendar/symbols.js';

export const NEWS_FILTER = 'FeatureNewsFilterDTO';
export const MAX_BLACKOUT_MINUTES = 240;

export interface NewsFilterWindow {
  readonly blackoutBeforeMinutes: number;
  readonly blackoutAfterMinutes: number;
}

export interface NewsFilterSettings extends NewsFilterWindow {
  /** The lowest impact that blocks (default HIGH). */
  readonly impact: Impact;
  readonly blockMarketOrders: boolean;
  readonly blockPendingOrders: boolean;
  readonly blockStopChanges: boolean;
  /** Releases of no one currency (ALL) affect every symbol. */
  readonly includeGlobalEvents: boolean;
  readonly holidayMode: 'NONE' | 'REDUCE_SIZE' | 'SKIP_NEW_OPENS';
  /** REDUCE_SIZE's factor of the volume, 0 to 1 (default 0.5). */
  readonly holidayVolumeFactor: number;
  /** A slave symbol's own window (or `disabled`). */
  readonly symbolOverrides: Readonly<Record<string, Partial<NewsFilterWindow> & { readonly disabled?: boolean }>>;
}

export type NewsAction = { readonly kind: 'open'; readonly order: 'market' | 'pending' } | { readonly kind: 'close' } | { readonly kind: 'modify' };

export type NewsVerdict =
  | { readonly verdict: 'go' }
  | { readonly verdict: 'skip'; readonly reason: 'NEWS_BLACKOUT' | 'BANK_HOLIDAY'; readonly message: string; readonly eventId: string }
  | { readonly verdict: 'reduce'; readonly factor: number; readonly message: string; readonly eventId: string };

const MINUTE = 60_000;

/** The problem of a setting in words, or null. */
export const checkNewsFilter = (s: NewsFilterSettings): string | null => {
  const windows = [s, ...Object.values(s.symbolOverrides)];
  for (const w of windows) {
    for (const m of ['blackoutBeforeMinutes', 'blackoutAfterMinutes'] as const) {
      const v = w[m];
      if (v !== undefined && (!Number.isInteger(v) || v < 0 || v > MAX_BLACKOUT_MINUTES)) return `${m} must be an integer from 0 to ${MAX_BLACKOUT_MINUTES}`;
    }
  }
  if (!(s.holidayVolumeFactor >= 0 && s.holidayVolumeFactor <= 1)) return 'holidayVolumeFactor must be from 0 to 1';
  return null;
};

/** What the news filter says about `action` on `symbol` (the slave's) at `now`, given the calendar's events around it. */
export const newsFilterVerdict = (s: NewsFilterSettings, events: readonly CalendarRecord[], symbol: string, action: NewsAction, now: string): NewsVerdict => {
  if (action.kind === 'close') return { verdict: 'go' };
  if (action.kind === 'modify' && !s.blockStopChanges) return { verdict: 'go' };
  if (action.kind === 'open' && action.order === 'market' && !s.blockMarketOrders) return { verdict: 'go' };
  if (action.kind === 'open' && action.order === 'pending' && !s.blockPendingOrders) return { verdict: 'go' };
  const override = s.symbolOverrides[symbol] ?? s.symbolOverrides[symbol.toUpperCase()];
  if (override?.disabled) return { verdict: 'go' };
  const before = override?.blackoutBeforeMinutes ?? s.blackoutBeforeMinutes;
  const after = override?.blackoutAfterMinutes ?? s.blackoutAfterMinutes;
  const currencies = currenciesOfSymbol(symbol);
  const t = Date.parse(now);
  const impacts = impactsFrom(s.impact);
  const blocking = events
    .filter((e) => impacts.includes(e.impact) && !e.allDay && affects(e.currency, currencies, s.includeGlobalEvents))
    .find((e) => {
      const at = Date.parse(e.time);
      return t >= at - before * MINUTE && t <= at + after * MINUTE;
    });
  if (blocking) {
    return {
      verdict: 'skip',
      reason: 'NEWS_BLACKOUT',
      eventId: blocking.eventId,
      message: `news blackout on ${symbol}: ${blocking.currency} ${blocking.title} (${blocking.impact}) at ${blocking.time}, blackout ${before} min before to ${after} min after`,
    };
  }
  if (action.kind !== 'open' || s.holidayMode === 'NONE') return { verdict: 'go' };
  const day = now.slice(0, 10);
  const holiday = events.find((e) => e.impact === 'HOLIDAY' && e.time.slice(0, 10) === day && affects(e.currency, currencies, false));
  if (!holiday) return { verdict: 'go' };
  const message = `bank holiday of ${holiday.currency} (${holiday.title}) on ${day}`;
  return s.holidayMode === 'SKIP_NEW_OPENS'
    ? { verdict: 'skip', reason: 'BANK_HOLIDAY', eventId: holiday.eventId, message: `${message}: new opens skipped` }
    : { verdict: 'reduce', factor: s.holidayVolumeFactor, eventId: holiday.eventId, message: `${message}: volume x${s.holidayVolumeFactor}` };
};
