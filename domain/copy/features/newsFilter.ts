// FeatureNewsFilterDTO (spec "Economic calendar, news and alerts"; copier): the rule and the feature the
// catalogue runs (rules need 'calendar': the engine hands it the calendar's events around its clock's
// `now`, engine/copy/featureInputs.ts). While a calendar event
// affecting a symbol's currencies (domain/calendar/symbols.ts) lies within blackoutBeforeMinutes before
// and blackoutAfterMinutes after `now` (each 0 to 240), new opens on that symbol are skipped with
// NEWS_BLACKOUT and the event in the reason; a close is never blocked; SL/TP changes only with
// blockStopChanges; market and pending opens separately; per-symbol overrides of the window; on a bank
// holiday of the symbol's currencies, holidayMode NONE, REDUCE_SIZE (a volume factor) or SKIP_NEW_OPENS.
import { type Static, Type } from '@sinclair/typebox';
import type { CalendarRecord } from '../../calendar/analytics.js';
import { IMPACTS, type Impact, impactsFrom } from '../../calendar/entry.js';
import { affects, currenciesOfSymbol } from '../../calendar/symbols.js';
import { type CopierFeature, type FeatureRunContext, skip } from './rules.js';

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

// ---- the feature (FeatureNewsFilterDTO) ------------------------------------------------------------

const Minutes = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_BLACKOUT_MINUTES, description });

/**
 * A notification target (spec NotificationTargetDTO: a channel feature instance, optionally narrowed to
 * one recipient). Stored with the feature; app/newsWarnings.ts sends the advance warnings and the daily
 * agenda (domain/notification/newsWarnings.ts says what is due when).
 */
export const NotificationTargetMembers = Type.Object(
  {
    featureId: Type.String({ format: 'uuid', description: 'the channel feature (a webhook, e-mail, Telegram or Discord notification feature)' }),
    recipient: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'one recipient of the channel (its key); absent: every recipient' })),
  },
  { additionalProperties: false },
);

const members = Type.Object({
  blackoutBeforeMinutes: Minutes('minutes before an affecting event from which new opens are skipped (0 to 240; default 30)'),
  blackoutAfterMinutes: Minutes('minutes after an affecting event until which new opens are skipped (0 to 240; default 15)'),
  impact: Type.Union(
    IMPACTS.filter((i) => i !== 'HOLIDAY' && i !== 'NONE').map((i) => Type.Literal(i)),
    { description: 'the lowest impact of an event that blocks: LOW, MEDIUM or HIGH (default HIGH)' },
  ),
  blockMarketOrders: Type.Boolean({ description: 'skip new market opens in a blackout (default true)' }),
  blockPendingOrders: Type.Boolean({ description: 'skip new pending orders in a blackout (default true)' }),
  blockStopChanges: Type.Boolean({ description: "skip copying the master's SL/TP changes in a blackout (default false)" }),
  includeGlobalEvents: Type.Boolean({ description: 'events of no one currency (ALL) affect every symbol (default true)' }),
  holidayMode: Type.Union([Type.Literal('NONE'), Type.Literal('REDUCE_SIZE'), Type.Literal('SKIP_NEW_OPENS')], {
    description:
      "on a bank holiday of one of a symbol's currencies (the calendar's HOLIDAY events, UTC day): NONE (default) copies as usual, REDUCE_SIZE multiplies the lot of new opens by holidayVolumeFactor, SKIP_NEW_OPENS skips them (BANK_HOLIDAY)",
  }),
  holidayVolumeFactor: Type.Number({ minimum: 0, maximum: 1, description: "REDUCE_SIZE's factor of the lot, 0 to 1 (default 0.5)" }),
  symbolOverrides: Type.Array(
    Type.Object(
      {
        symbol: Type.String({ minLength: 1, maxLength: 64, description: "the slave's symbol" }),
        blackoutBeforeMinutes: Type.Optional(Minutes('this symbol’s minutes before; absent: the feature’s')),
        blackoutAfterMinutes: Type.Optional(Minutes('this symbol’s minutes after; absent: the feature’s')),
        disabled: Type.Optional(Type.Boolean({ description: 'true: the filter does not apply to this symbol' })),
      },
      { additionalProperties: false },
    ),
    { maxItems: 200, description: "per-symbol windows (the slave's symbol, without case), or the filter disabled for a symbol" },
  ),
  advanceWarningMinutes: Type.Integer({
    minimum: 0,
    maximum: 1440,
    description: 'minutes before a blackout starts to warn the notification targets (0 = no warning, default); sent once, until the blackout starts',
  }),
  dailyAgenda: Type.Boolean({
    description:
      "send the day's affecting events to the notification targets each day (default false): the next 24 hours' events of at least impact, with their blackouts, at dailyAgendaTime",
  }),
  dailyAgendaTime: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:mm UTC of the daily agenda (default 06:00)' }),
  notificationTargets: Type.Array(NotificationTargetMembers, {
    maxItems: 20,
    description: 'where advance warnings and the daily agenda go (NotificationTargetDTO)',
  }),
});
export type NewsFilterFeatureSettings = Static<typeof members>;

/** The rule's settings from the feature's members. */
export const newsFilterSettingsOf = (s: NewsFilterFeatureSettings): NewsFilterSettings => ({
  blackoutBeforeMinutes: s.blackoutBeforeMinutes,
  blackoutAfterMinutes: s.blackoutAfterMinutes,
  impact: s.impact,
  blockMarketOrders: s.blockMarketOrders,
  blockPendingOrders: s.blockPendingOrders,
  blockStopChanges: s.blockStopChanges,
  includeGlobalEvents: s.includeGlobalEvents,
  holidayMode: s.holidayMode,
  holidayVolumeFactor: s.holidayVolumeFactor,
  symbolOverrides: Object.fromEntries(s.symbolOverrides.map(({ symbol, ...window }) => [symbol.toUpperCase(), window] as const)),
});

/** How far around `now` the engine reads the calendar for this rule: the widest window, and the whole UTC day (holidays). */
export const NEWS_CALENDAR_REACH_MINUTES = MAX_BLACKOUT_MINUTES + 24 * 60;

const calendarOf = (ctx: FeatureRunContext): readonly CalendarRecord[] => ctx.calendar ?? [];

const orderOf = (orderType: string): 'market' | 'pending' => (orderType === 'Buy' || orderType === 'Sell' ? 'market' : 'pending');

export const newsFilter: CopierFeature<NewsFilterFeatureSettings> = {
  type: NEWS_FILTER,
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: {
    blackoutBeforeMinutes: 30,
    blackoutAfterMinutes: 15,
    impact: 'HIGH',
    blockMarketOrders: true,
    blockPendingOrders: true,
    blockStopChanges: false,
    includeGlobalEvents: true,
    holidayMode: 'NONE',
    holidayVolumeFactor: 0.5,
    symbolOverrides: [],
    advanceWarningMinutes: 0,
    dailyAgenda: false,
    dailyAgendaTime: '06:00',
    notificationTargets: [],
  },
  description:
    "Skips new opens on a symbol while an economic calendar event of at least `impact` affecting one of its currencies (domain/calendar/symbols.ts; GET /newsFilter/symbolMapping shows them) lies from blackoutBeforeMinutes before to blackoutAfterMinutes after the engine's clock (0 to 240 each): skip reason NEWS_BLACKOUT with the event in the account log. A close is never blocked. blockMarketOrders and blockPendingOrders choose which opens; blockStopChanges also skips copying the master's SL/TP changes in a blackout. symbolOverrides give a symbol its own window or disable the filter for it. holidayMode on a bank holiday of the symbol's currencies: NONE, REDUCE_SIZE (lot x holidayVolumeFactor) or SKIP_NEW_OPENS (BANK_HOLIDAY). Notices to notificationTargets (NotificationTargetDTO: a channel of GET /projects/{projectId}/notificationChannels, recipient absent = all of it), each sent once, on the engine's clock: with advanceWarningMinutes above 0, a warning that many minutes before each blackout starts (for every event of at least `impact`; due until the blackout starts, so none after a downtime past it); with dailyAgenda, the events of the next 24 hours with their blackouts and bank holidays at dailyAgendaTime (HH:mm UTC; due for an hour).",
  check: (s) => {
    const seen = new Set<string>();
    for (const o of s.symbolOverrides) {
      if (seen.has(o.symbol.toUpperCase())) return `symbol ${o.symbol} has two overrides`;
      seen.add(o.symbol.toUpperCase());
    }
    return checkNewsFilter(newsFilterSettingsOf(s));
  },
  rules: {
    needs: ['calendar'],
    filterOpen: (s, ctx) => {
      const verdict = newsFilterVerdict(
        newsFilterSettingsOf(s),
        calendarOf(ctx),
        ctx.slaveSymbol,
        { kind: 'open', order: orderOf(ctx.trade.orderType) },
        ctx.now,
      );
      return verdict.verdict === 'skip' ? skip(verdict.reason, verdict.message) : null;
    },
    adjustVolume: (s, volume, ctx) => {
      const verdict = newsFilterVerdict(
        newsFilterSettingsOf(s),
        calendarOf(ctx),
        ctx.slaveSymbol,
        { kind: 'open', order: orderOf(ctx.trade.orderType) },
        ctx.now,
      );
      return verdict.verdict === 'reduce' ? { volume: volume * verdict.factor } : { volume };
    },
    onModify: (s, ctx) => {
      const symbol = ctx.copy?.symbol;
      if (!symbol) return null;
      const verdict = newsFilterVerdict(newsFilterSettingsOf(s), calendarOf(ctx), symbol, { kind: 'modify' }, ctx.now);
      return verdict.verdict === 'skip' ? skip(verdict.reason, verdict.message) : null;
    },
  },
};
