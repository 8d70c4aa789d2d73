// FeatureNewsProtectionDTO (spec "Economic calendar, news and alerts"; account): closes copies before an
// economic calendar event that affects their symbol and, per reopenMode, opens them again after it.
// Our reading, on the engine's clock, for every copier of the account (a copier's management tick):
//   - Affecting event: a calendar event of at least `impact`, not all-day, of one of the symbol's
//     currencies (domain/calendar/symbols.ts; ALL with includeGlobalEvents).
//   - Close: from closeBeforeMinutes (1 to 120) before the event until the event, each copy on an
//     affected symbol is closed, except with onlyLosingPositions a copy not in loss (profit + swap >= 0),
//     and with minimumFloatingProfit a copy whose profit + swap is at least that (it rides the news).
//     cancelPendingOrders: the copier's pending orders on affected symbols are cancelled too (never
//     placed again; the master's later fill is copied as usual).
//   - Reopen (reopenMode SAME_VOLUME or RESYNC_WITH_MASTER): reopenAfterMinutes after the event, each
//     copy this feature closed is opened again at market, once per event (the event id is the reopen's
//     key), tried until reopenIntentExpiryMinutes later (then REOPEN_INTENT_EXPIRED is logged once),
//     never while the symbol is inside another event's close window. SAME_VOLUME: the closed copy's
//     side, symbol and lots, the master's current stops when it still holds the position (none
//     otherwise); requireMasterPosition (default true) reopens only while the master holds it.
//     RESYNC_WITH_MASTER: only while the master holds the position (always), with its current stops
//     (swapped under reverse), and the closed copy's lots in the proportion of what the master holds
//     now to what it held at the close (a partial close of the master meanwhile reopens less; the
//     master's partial closes since are read from the history read model: need 'masterCloses').
//   - Re-open guards, each logged as a skip and tried again until the intent expires: the master
//     closed the position (MASTER_CLOSED_BEFORE_REOPEN), the price moved against the copy by more than
//     maxAdverseMovePoints from where it was closed (REOPEN_ADVERSE_MOVE: the close's side of the book;
//     a buy closed at the bid is adverse when the bid is higher now), the spread is wider than
//     maxSpreadPoints (REOPEN_SPREAD_TOO_WIDE).
// Nothing is kept in memory: the closes are copy events (closedBy = this feature, closedAt, closePrice in
// the copier's history) and the calendar is a read model, so a restart inside a window changes nothing.
import { type Static, Type } from '@sinclair/typebox';
import type { CalendarRecord } from '../../calendar/analytics.js';
import { IMPACTS, impactsFrom } from '../../calendar/entry.js';
import { affects, currenciesOfSymbol } from '../../calendar/symbols.js';
import { NotificationTargetMembers } from './newsFilter.js';
import { copiedStops } from '../reverse.js';
import { floorToStep, roundPrice } from '../rounding.js';
import { exact, toNumber } from '../../shared/decimal.js';
import type { SymbolSpec } from '../types.js';
import { closeOf, type CopierFeature, type CopyRecord, type ManageContext, type ManagedAction } from './rules.js';

export const NEWS_PROTECTION = 'FeatureNewsProtectionDTO';
export const MAX_CLOSE_BEFORE_MINUTES = 120;
/** A close recorded a little after the event (the venue's answer took time) still belongs to it. */
const CLOSE_RECORD_SLACK_MS = 60_000;
/** How long after the intent expired its expiry is still logged. */
const EXPIRY_NOTICE_MS = 5 * 60_000;
const MINUTE = 60_000;

const NullableInt = (maximum: number, description: string) => Type.Union([Type.Integer({ minimum: 0, maximum }), Type.Null()], { description });

const members = Type.Object({
  closeBeforeMinutes: Type.Integer({
    minimum: 1,
    maximum: MAX_CLOSE_BEFORE_MINUTES,
    description: 'minutes before an affecting event from which copies on its symbols are closed (1 to 120; default 15)',
  }),
  impact: Type.Union(
    IMPACTS.filter((i) => i !== 'HOLIDAY' && i !== 'NONE').map((i) => Type.Literal(i)),
    { description: 'the lowest impact of an event that closes: LOW, MEDIUM or HIGH (default HIGH)' },
  ),
  includeGlobalEvents: Type.Boolean({ description: 'events of no one currency (ALL) affect every symbol (default true)' }),
  reopenMode: Type.Union([Type.Literal('NONE'), Type.Literal('SAME_VOLUME'), Type.Literal('RESYNC_WITH_MASTER')], {
    description:
      "NONE (default): closed copies stay closed; SAME_VOLUME: reopened with the lots they had; RESYNC_WITH_MASTER: reopened only while the master holds the position, with the master's current stops",
  }),
  reopenAfterMinutes: Type.Integer({
    minimum: 0,
    maximum: 240,
    description: 'minutes after the event at which closed copies are reopened (0 to 240; default 15)',
  }),
  onlyLosingPositions: Type.Boolean({ description: 'true: only copies in loss (profit + swap below 0) are closed (default false)' }),
  minimumFloatingProfit: Type.Union([Type.Number({ minimum: 0, maximum: 1e12 }), Type.Null()], {
    description: "a copy whose profit + swap (the account's currency) is at least this stays open; null (default) = off",
  }),
  cancelPendingOrders: Type.Boolean({
    description: "true: the copier's pending orders on affected symbols are cancelled in the close window too (default false)",
  }),
  maxAdverseMovePoints: NullableInt(
    10_000_000,
    'reopen guard: not while the price moved more than this many points against the copy since its close; null (default) = off',
  ),
  maxSpreadPoints: NullableInt(10_000_000, 'reopen guard: not while the spread is wider than this many points; null (default) = off'),
  reopenIntentExpiryMinutes: Type.Integer({
    minimum: 1,
    maximum: 1440,
    description: 'reopen guard: a reopen not done this many minutes after its time is given up (REOPEN_INTENT_EXPIRED; default 60)',
  }),
  requireMasterPosition: Type.Boolean({
    description: 'reopen guard: only while the master still holds the position (default true; RESYNC_WITH_MASTER always)',
  }),
  advanceWarningMinutes: Type.Integer({
    minimum: 0,
    maximum: 1440,
    description: 'minutes before a close window to warn the notification targets (0 = no warning, default); sent once, until the closing',
  }),
  notificationTargets: Type.Array(NotificationTargetMembers, { maxItems: 20, description: 'where advance warnings go (NotificationTargetDTO)' }),
});
export type NewsProtectionSettings = Static<typeof members>;

const affecting = (s: NewsProtectionSettings, calendar: readonly CalendarRecord[], symbol: string): CalendarRecord[] => {
  const currencies = currenciesOfSymbol(symbol);
  const impacts = impactsFrom(s.impact);
  return calendar.filter((e) => impacts.includes(e.impact) && !e.allDay && affects(e.currency, currencies, s.includeGlobalEvents));
};

/** The affecting event whose close window holds `at`, if any. */
const windowAt = (s: NewsProtectionSettings, events: readonly CalendarRecord[], at: number): CalendarRecord | undefined =>
  events.find((e) => {
    const time = Date.parse(e.time);
    return at >= time - s.closeBeforeMinutes * MINUTE && at < time;
  });

const describe = (e: CalendarRecord): string => `${e.currency} ${e.title} (${e.impact}) at ${new Date(e.time).toISOString()}`;

const closes = (s: NewsProtectionSettings, ctx: ManageContext, calendar: readonly CalendarRecord[]): ManagedAction[] => {
  const now = Date.parse(ctx.now);
  const actions: ManagedAction[] = [];
  for (const copy of ctx.copies) {
    const event = windowAt(s, affecting(s, calendar, copy.symbol), now);
    if (!event) continue;
    const result = copy.profit + copy.swap;
    if (s.onlyLosingPositions && result >= 0) continue;
    if (s.minimumFloatingProfit !== null && result >= s.minimumFloatingProfit) continue;
    const reopen = s.reopenMode === 'NONE' ? '' : `; reopens ${s.reopenAfterMinutes} min after it (${s.reopenMode})`;
    actions.push(closeOf(copy, `news protection: #${copy.slavePositionId} closed ${s.closeBeforeMinutes} min before ${describe(event)}${reopen}`));
  }
  if (s.cancelPendingOrders) {
    for (const order of ctx.pendingCopies ?? []) {
      const event = windowAt(s, affecting(s, calendar, order.symbol), now);
      if (!event) continue;
      actions.push({
        kind: 'cancel',
        slavePositionId: order.slavePositionId,
        masterPositionId: order.masterPositionId,
        symbol: order.symbol,
        message: `news protection: pending order #${order.slavePositionId} cancelled before ${describe(event)}`,
      });
    }
  }
  return actions;
};

/** The event a close recorded at `closedAt` was made for: the first affecting event whose window (plus slack) holds it. */
const ownerOf = (s: NewsProtectionSettings, events: readonly CalendarRecord[], closedAt: number): CalendarRecord | undefined =>
  events
    .filter((e) => {
      const time = Date.parse(e.time);
      return closedAt >= time - s.closeBeforeMinutes * MINUTE && closedAt < time + CLOSE_RECORD_SLACK_MS;
    })
    .sort((a, b) => Date.parse(a.time) - Date.parse(b.time))[0];

/**
 * RESYNC_WITH_MASTER's lots: the closed copy's lots in the proportion of what the master holds now to
 * what it held when the copy closed (its volume now plus what it closed since), down to the lot step;
 * 0 when that is below the minimum lot. A master that closed nothing since: the copy's lots.
 */
const resyncedVolume = (record: CopyRecord, masterVolume: number, masterCloses: NonNullable<ManageContext['masterCloses']>, spec: SymbolSpec): number => {
  const closedAt = Date.parse(record.closedAt!);
  const closedSince = masterCloses
    .filter((c) => c.masterPositionId === record.masterPositionId && Date.parse(c.at) > closedAt)
    .reduce((sum, c) => sum.plus(exact(c.volume)), exact(0));
  if (closedSince.isZero()) return record.volume;
  const share = floorToStep(
    exact(record.volume)
      .times(exact(masterVolume))
      .dividedBy(closedSince.plus(exact(masterVolume))),
    exact(spec.lotStep),
  );
  return share.lessThan(exact(spec.minLot)) ? 0 : toNumber(share);
};

const reopenOf = (s: NewsProtectionSettings, ctx: ManageContext, record: CopyRecord, event: CalendarRecord, reopenAt: number): ManagedAction | null => {
  const what = `news protection reopen of master #${record.masterPositionId} (${record.side} ${record.volume} ${record.symbol}) after ${describe(event)}`;
  const held = (reason: 'MASTER_CLOSED_BEFORE_REOPEN' | 'REOPEN_ADVERSE_MOVE' | 'REOPEN_SPREAD_TOO_WIDE', why: string): ManagedAction => ({
    kind: 'skip',
    masterPositionId: record.masterPositionId,
    reason,
    message: `${what} not done yet: ${why}; tried until ${new Date(reopenAt + s.reopenIntentExpiryMinutes * MINUTE).toISOString()}`,
  });
  const master = ctx.masterPositions.find((p) => p.masterPositionId === record.masterPositionId);
  if (!master && (s.requireMasterPosition || s.reopenMode === 'RESYNC_WITH_MASTER'))
    return held('MASTER_CLOSED_BEFORE_REOPEN', 'the master closed the position');
  const spec = ctx.specs.get(record.symbol);
  const quote = ctx.quotes.get(record.symbol);
  if (s.maxSpreadPoints !== null || s.maxAdverseMovePoints !== null) {
    if (!quote || !spec) return null;
    const spread = Math.round(quote.ask / spec.point) - Math.round(quote.bid / spec.point);
    if (s.maxSpreadPoints !== null && spread > s.maxSpreadPoints)
      return held('REOPEN_SPREAD_TOO_WIDE', `the spread is ${spread} points, above ${s.maxSpreadPoints}`);
    const closePrice = record.closePrice ?? null;
    if (s.maxAdverseMovePoints !== null && closePrice !== null) {
      // The close's side of the book: a buy closed at the bid, a sell at the ask.
      const price = record.side === 'Buy' ? quote.bid : quote.ask;
      const moved = Math.round(price / spec.point) - Math.round(closePrice / spec.point);
      const adverse = record.side === 'Buy' ? moved : -moved;
      if (adverse > s.maxAdverseMovePoints)
        return held(
          'REOPEN_ADVERSE_MOVE',
          `the price ${price} moved ${adverse} points against the copy from its close at ${closePrice}, above ${s.maxAdverseMovePoints}`,
        );
    }
  }
  const volume = s.reopenMode === 'RESYNC_WITH_MASTER' && master && spec ? resyncedVolume(record, master.volume, ctx.masterCloses ?? [], spec) : record.volume;
  if (volume <= 0)
    return {
      kind: 'skip',
      masterPositionId: record.masterPositionId,
      reason: 'MASTER_CLOSED_BEFORE_REOPEN',
      message: `${what} not done: the master holds ${master?.volume ?? 0} lots, the copy's share is below the symbol's minimum lot`,
    };
  const stops = master ? copiedStops(master, ctx.copier) : { stopLoss: null, takeProfit: null };
  const round = (price: number | null) => (price === null || !spec ? price : roundPrice(price, spec.digits));
  return {
    kind: 'reopen',
    key: `news/${event.eventId}`,
    masterPositionId: record.masterPositionId,
    symbol: record.symbol,
    side: record.side,
    volume,
    stopLoss: round(stops.stopLoss),
    takeProfit: round(stops.takeProfit),
    message: `${what} (${s.reopenMode}${volume === record.volume ? '' : `, ${volume} lots for what the master still holds`}), closed at ${record.closedAt}`,
  };
};

const reopens = (s: NewsProtectionSettings, ctx: ManageContext, calendar: readonly CalendarRecord[]): ManagedAction[] => {
  if (s.reopenMode === 'NONE') return [];
  const now = Date.parse(ctx.now);
  const live = new Set(ctx.copies.map((c) => c.masterPositionId));
  const actions: ManagedAction[] = [];
  for (const record of ctx.history) {
    if (record.closedBy !== NEWS_PROTECTION || record.closedAt === null || live.has(record.masterPositionId)) continue;
    const closedAt = Date.parse(record.closedAt);
    // Copied again since (reopened, or the master's position copied anew): nothing to reopen.
    if (ctx.history.some((r) => r.masterPositionId === record.masterPositionId && Date.parse(r.openedAt) > closedAt)) continue;
    const events = affecting(s, calendar, record.symbol);
    const event = ownerOf(s, events, closedAt);
    if (!event) continue;
    const reopenAt = Date.parse(event.time) + s.reopenAfterMinutes * MINUTE;
    const expiry = reopenAt + s.reopenIntentExpiryMinutes * MINUTE;
    if (now < reopenAt) continue;
    if (now >= expiry) {
      if (now < expiry + EXPIRY_NOTICE_MS)
        actions.push({
          kind: 'skip',
          masterPositionId: record.masterPositionId,
          reason: 'REOPEN_INTENT_EXPIRED',
          message: `news protection reopen of master #${record.masterPositionId} (${record.symbol}) after ${describe(event)} given up: not done within ${s.reopenIntentExpiryMinutes} min`,
        });
      continue;
    }
    // Inside the close window of a later event: the reopen waits for that one.
    if (windowAt(s, events, now)) continue;
    const action = reopenOf(s, ctx, record, event, reopenAt);
    if (action) actions.push(action);
  }
  return actions;
};

export const newsProtection: CopierFeature<NewsProtectionSettings> = {
  type: NEWS_PROTECTION,
  scopes: ['account'],
  multiple: false,
  members,
  defaults: {
    closeBeforeMinutes: 15,
    impact: 'HIGH',
    includeGlobalEvents: true,
    reopenMode: 'NONE',
    reopenAfterMinutes: 15,
    onlyLosingPositions: false,
    minimumFloatingProfit: null,
    cancelPendingOrders: false,
    maxAdverseMovePoints: null,
    maxSpreadPoints: null,
    reopenIntentExpiryMinutes: 60,
    requireMasterPosition: true,
    advanceWarningMinutes: 0,
    notificationTargets: [],
  },
  description:
    "Closes the account's copies on a symbol closeBeforeMinutes (1 to 120) before an economic calendar event of at least `impact` that affects one of its currencies (events of no one currency too with includeGlobalEvents), on the engine's clock, for every copier of the account. onlyLosingPositions: only copies in loss; minimumFloatingProfit: a copy with at least this profit + swap stays open; cancelPendingOrders: the copier's pending orders on the symbol are cancelled too. reopenMode NONE leaves them closed; SAME_VOLUME reopens each closed copy reopenAfterMinutes after the event at market with its lots (the master's current stops when it still holds the position); RESYNC_WITH_MASTER reopens only while the master holds the position, with its current stops and the closed copy's lots in proportion to what the master still holds (a partial close of the master after the copy closed reopens less; below the minimum lot nothing reopens). Re-open guards, each a skip in the account log tried again until the intent expires: requireMasterPosition (MASTER_CLOSED_BEFORE_REOPEN), maxAdverseMovePoints from the close price (REOPEN_ADVERSE_MOVE), maxSpreadPoints (REOPEN_SPREAD_TOO_WIDE); a reopen not done within reopenIntentExpiryMinutes is given up (REOPEN_INTENT_EXPIRED). The closes are copy events (closed by FeatureNewsProtectionDTO), so a restart inside a window changes nothing. With advanceWarningMinutes above 0, a warning goes to notificationTargets (channels of GET /projects/{projectId}/notificationChannels) that many minutes before each close window, once, on the engine's clock (due until the closing). Positions the account holds that are not copies are not touched.",
  rules: {
    needs: ['calendar', 'masterCloses'],
    logsItsReasons: true,
    manage: (s, ctx) => {
      const calendar = ctx.calendar ?? [];
      return [...closes(s, ctx, calendar), ...reopens(s, ctx, calendar)];
    },
  },
};
