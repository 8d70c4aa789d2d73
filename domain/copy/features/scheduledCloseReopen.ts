// FeatureScheduledCloseReopenDTO with CloseReopenScheduleDTO (spec: copier and account scope; closes
// matching positions at a UTC time and optionally reopens later; active weekdays, labels,
// reopenDayOffset, skip new trades until reopen (including pending), close only profitable positions,
// maximum loss in points, negative-swap-only closing, restore SL/TP, maximum reopen slippage, skip
// reopen when master closed meanwhile). Our reading, per schedule:
//   - Close: on each active weekday (UTC) at closeTime, the copies this copier opened before closeTime
//     that match are closed. Matching: the symbols (patterns; empty = all), and when asked only copies
//     in profit (profit + swap above 0), only copies at most maxLossInPoints in loss, only copies that
//     pay swap (the symbol's swap rate of their side is negative; where the rate is not known, swap
//     charged so far is negative). The close is asked every second for CLOSE_WINDOW_SECONDS after
//     closeTime (a restart or a refused close in that time still closes), never after the reopen.
//   - Reopen (reopenTime set): reopenDayOffset days after the close day, at reopenTime, each copy this
//     schedule closed is opened again at market with its side, symbol and lots, once (a key per
//     schedule and close day), tried for REOPEN_WINDOW_SECONDS: only while the master still holds the
//     position (unless skipReopenIfMasterClosed is false), and only while the price (the same side of
//     the book as the close: bid for a buy) is at most maxReopenSlippageInPoints from the price it
//     closed at. restoreSlTp: the reopened copy gets the master position's current stop loss and take
//     profit (swapped under reverse); otherwise none.
//   - skipNewTradesUntilReopen: from closeTime until the reopen, new master opens on matching symbols
//     (market and pending) are not copied (SCHEDULED_PAUSE).
//   - label names the schedule in the log and in the reopen's key.
// Nothing is kept in memory: what was closed, when and at what price comes from the copier's history
// (closedBy = this feature's type, closedAt, closePrice), so a restart between close and reopen
// changes nothing. A close belongs to the schedule whose close time is the latest at or before it
// (within the close window). As an account feature it applies to every copier of the slave account.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { copiedStops } from '../reverse.js';
import { roundPrice } from '../rounding.js';
import { symbolMatcher, SymbolPattern, symbolPatternsProblem } from './permittedSymbols.js';
import { closeOf, type CopierFeature, type CopyRecord, type ManageContext, type ManagedAction, type ManagedCopy, type OpenContext, skip } from './rules.js';

export const SCHEDULED_CLOSE_REOPEN = 'FeatureScheduledCloseReopenDTO';
/** How long after closeTime the close is still asked (at most until the reopen). */
export const CLOSE_WINDOW_SECONDS = 300;
/** How long after the reopen time the reopen is still tried. */
export const REOPEN_WINDOW_SECONDS = 1800;
/** A close recorded a little after the close window (the venue's answer took time) still belongs to it. */
const CLOSE_RECORD_SLACK_SECONDS = 60;

export const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const TimeOfDay = (description: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description });

export const CloseReopenScheduleDTO = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 64, description: "the schedule's name, unique in the feature: in the log and the reopen's key" }),
    closeTime: TimeOfDay('HH:mm, UTC: when matching copies are closed'),
    weekdays: Type.Optional(
      Type.Array(Type.Union(WEEKDAYS.map((d) => Type.Literal(d))), {
        minItems: 1,
        maxItems: 7,
        uniqueItems: true,
        description: 'UTC weekdays on which the schedule closes; default every day',
      }),
    ),
    symbols: Type.Optional(
      Type.Array(SymbolPattern, {
        maxItems: 500,
        description: 'slave symbols (`*`, `?` patterns, without case) the schedule closes and pauses; default empty = all',
      }),
    ),
    reopenTime: Type.Optional(
      Type.Union([TimeOfDay('HH:mm, UTC: when closed copies are reopened'), Type.Null()], { description: 'HH:mm, UTC; null (default) = no reopen' }),
    ),
    reopenDayOffset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7,
        description: 'days after the close day on which the reopen happens; default 0 (reopenTime must then be after closeTime)',
      }),
    ),
    skipNewTradesUntilReopen: Type.Optional(
      Type.Boolean({
        description:
          'true: from closeTime until the reopen, new master opens, pending orders included, are not copied (SCHEDULED_PAUSE); needs reopenTime; default false',
      }),
    ),
    closeOnlyProfitable: Type.Optional(Type.Boolean({ description: 'true: only copies in profit (profit + swap above 0) are closed; default false' })),
    maxLossInPoints: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 10_000_000 }), Type.Null()], {
        description: 'copies more than this many points in loss stay open; null (default) = no limit',
      }),
    ),
    negativeSwapOnly: Type.Optional(
      Type.Boolean({
        description: "true: only copies that pay swap are closed (their side's swap rate is negative; unknown rate: swap so far negative); default false",
      }),
    ),
    restoreSlTp: Type.Optional(
      Type.Boolean({ description: "true (default): a reopened copy gets the master position's current stop loss and take profit; false: none" }),
    ),
    maxReopenSlippageInPoints: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0, maximum: 10_000_000 }), Type.Null()], {
        description: 'a copy is reopened only while the price is at most this many points from where it closed; null (default) = any',
      }),
    ),
    skipReopenIfMasterClosed: Type.Optional(
      Type.Boolean({ description: 'true (default): a copy whose master position closed meanwhile is not reopened (MASTER_CLOSED_BEFORE_REOPEN)' }),
    ),
  },
  { $id: 'CloseReopenScheduleDTO', additionalProperties: false, description: 'One close (and reopen) time of FeatureScheduledCloseReopenDTO' },
);
type ScheduleSetting = Static<typeof CloseReopenScheduleDTO>;

const members = Type.Object({
  schedules: Type.Array(CloseReopenScheduleDTO, { minItems: 1, maxItems: 20, description: 'the close (and reopen) times' }),
});
export type ScheduledCloseReopenSettings = Static<typeof members>;

/** A schedule with every default filled in. */
interface Schedule {
  readonly label: string;
  readonly closeTime: string;
  readonly weekdays: readonly Weekday[];
  readonly symbols: readonly string[];
  readonly reopenTime: string | null;
  readonly reopenDayOffset: number;
  readonly skipNewTradesUntilReopen: boolean;
  readonly closeOnlyProfitable: boolean;
  readonly maxLossInPoints: number | null;
  readonly negativeSwapOnly: boolean;
  readonly restoreSlTp: boolean;
  readonly maxReopenSlippageInPoints: number | null;
  readonly skipReopenIfMasterClosed: boolean;
}

const scheduleOf = (s: ScheduleSetting): Schedule => ({
  label: s.label,
  closeTime: s.closeTime,
  weekdays: s.weekdays ?? WEEKDAYS,
  symbols: s.symbols ?? [],
  reopenTime: s.reopenTime ?? null,
  reopenDayOffset: s.reopenDayOffset ?? 0,
  skipNewTradesUntilReopen: s.skipNewTradesUntilReopen ?? false,
  closeOnlyProfitable: s.closeOnlyProfitable ?? false,
  maxLossInPoints: s.maxLossInPoints ?? null,
  negativeSwapOnly: s.negativeSwapOnly ?? false,
  restoreSlTp: s.restoreSlTp ?? true,
  maxReopenSlippageInPoints: s.maxReopenSlippageInPoints ?? null,
  skipReopenIfMasterClosed: s.skipReopenIfMasterClosed ?? true,
});

/** One day's close of a schedule and the reopen that follows it. */
interface Occurrence {
  readonly schedule: Schedule;
  readonly close: number;
  readonly reopen: number | null;
  /** The close day, yyyy-MM-dd: with the label, the reopen's key. */
  readonly day: string;
}

const atTime = (day: DateTime, hhmm: string): DateTime => {
  const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
  return day.set({ hour, minute, second: 0, millisecond: 0 });
};

/** The schedule's close on `day` (a UTC date), or null when the schedule is off that weekday. */
const occurrenceOn = (schedule: Schedule, day: DateTime): Occurrence | null => {
  if (!schedule.weekdays.includes(WEEKDAYS[day.weekday - 1]!)) return null;
  return {
    schedule,
    close: atTime(day, schedule.closeTime).toMillis(),
    reopen: schedule.reopenTime === null ? null : atTime(day.plus({ days: schedule.reopenDayOffset }), schedule.reopenTime).toMillis(),
    day: day.toISODate()!,
  };
};

/** Occurrences whose close day lies within `daysBack` days before the day of `at`, newest first. */
const occurrencesBefore = (schedules: readonly Schedule[], at: number, daysBack: number): Occurrence[] => {
  const today = DateTime.fromMillis(at, { zone: 'utc' }).startOf('day');
  const out: Occurrence[] = [];
  for (let back = 0; back <= daysBack; back++) {
    for (const schedule of schedules) {
      const occurrence = occurrenceOn(schedule, today.minus({ days: back }));
      if (occurrence && occurrence.close <= at) out.push(occurrence);
    }
  }
  return out.sort((a, b) => b.close - a.close);
};

const closeWindowEnd = (o: Occurrence): number => Math.min(o.close + CLOSE_WINDOW_SECONDS * 1000, o.reopen ?? Number.POSITIVE_INFINITY);

const iso = (millis: number): string => DateTime.fromMillis(millis, { zone: 'utc' }).toISO()!;

const matchesSymbol = (schedule: Schedule, symbol: string): boolean => schedule.symbols.length === 0 || symbolMatcher(schedule.symbols)(symbol);

/** Whether the schedule closes the copy: its symbol, and the profit, loss and swap conditions asked for. */
const closesCopy = (schedule: Schedule, copy: ManagedCopy): boolean => {
  if (!matchesSymbol(schedule, copy.symbol)) return false;
  if (schedule.closeOnlyProfitable && copy.profit + copy.swap <= 0) return false;
  if (schedule.maxLossInPoints !== null) {
    const direction = copy.side === 'Buy' ? 1 : -1;
    const loss = direction * (Math.round(copy.openPrice / copy.spec.point) - Math.round(copy.currentPrice / copy.spec.point));
    if (loss > schedule.maxLossInPoints) return false;
  }
  if (schedule.negativeSwapOnly) {
    const rate = copy.side === 'Buy' ? copy.spec.swapLong : copy.spec.swapShort;
    if (rate === undefined ? copy.swap >= 0 : rate >= 0) return false;
  }
  return true;
};

const closes = (schedules: readonly Schedule[], ctx: ManageContext): ManagedAction[] => {
  const now = Date.parse(ctx.now);
  const asked = new Set<string>();
  const actions: ManagedAction[] = [];
  for (const occurrence of occurrencesBefore(schedules, now, 1)) {
    if (now >= closeWindowEnd(occurrence)) continue;
    for (const copy of ctx.copies) {
      if (asked.has(copy.slavePositionId) || Date.parse(copy.openTime) >= occurrence.close) continue;
      if (!closesCopy(occurrence.schedule, copy)) continue;
      asked.add(copy.slavePositionId);
      const reopen = occurrence.reopen === null ? '' : `; reopens at ${iso(occurrence.reopen)}`;
      actions.push(
        closeOf(copy, `scheduled close '${occurrence.schedule.label}' at ${occurrence.schedule.closeTime} UTC: #${copy.slavePositionId} closed${reopen}`),
      );
    }
  }
  return actions;
};

/** The occurrence a close recorded at `closedAt` belongs to: the latest close at or before it, within its window. */
const ownerOf = (schedules: readonly Schedule[], closedAt: number): Occurrence | undefined =>
  occurrencesBefore(schedules, closedAt, 1).find((o) => closedAt < closeWindowEnd(o) + CLOSE_RECORD_SLACK_SECONDS * 1000);

const reopens = (schedules: readonly Schedule[], ctx: ManageContext): ManagedAction[] => {
  const now = Date.parse(ctx.now);
  const actions: ManagedAction[] = [];
  for (const record of ctx.history) {
    if (record.closedBy !== SCHEDULED_CLOSE_REOPEN || record.closedAt === null) continue;
    const owner = ownerOf(schedules, Date.parse(record.closedAt));
    if (!owner || owner.reopen === null || now < owner.reopen || now >= owner.reopen + REOPEN_WINDOW_SECONDS * 1000) continue;
    const action = reopenOf(owner, record, ctx);
    if (action) actions.push(action);
  }
  return actions;
};

const reopenOf = (owner: Occurrence, record: CopyRecord, ctx: ManageContext): ManagedAction | null => {
  const { schedule } = owner;
  const what = `scheduled reopen '${schedule.label}' of master #${record.masterPositionId} (${record.side} ${record.volume} ${record.symbol})`;
  const held = (reason: 'MASTER_CLOSED_BEFORE_REOPEN' | 'REOPEN_SLIPPAGE_EXCEEDED', why: string): ManagedAction => ({
    kind: 'skip',
    masterPositionId: record.masterPositionId,
    reason,
    message: `${what} not done: ${why}`,
  });
  const master = ctx.masterPositions.find((p) => p.masterPositionId === record.masterPositionId);
  if (!master && schedule.skipReopenIfMasterClosed) return held('MASTER_CLOSED_BEFORE_REOPEN', 'the master closed the position meanwhile');
  const spec = ctx.specs.get(record.symbol);
  if (schedule.maxReopenSlippageInPoints !== null) {
    const quote = ctx.quotes.get(record.symbol);
    const closePrice = record.closePrice ?? null;
    if (!quote || !spec || closePrice === null) return null;
    // The same side of the book as the close: a buy closed at the bid.
    const price = record.side === 'Buy' ? quote.bid : quote.ask;
    const distance = Math.abs(Math.round(price / spec.point) - Math.round(closePrice / spec.point));
    if (distance > schedule.maxReopenSlippageInPoints) {
      return held(
        'REOPEN_SLIPPAGE_EXCEEDED',
        `the price ${price} is ${distance} points from the close at ${closePrice}, more than ${schedule.maxReopenSlippageInPoints}; tried until ${iso(owner.reopen! + REOPEN_WINDOW_SECONDS * 1000)}`,
      );
    }
  }
  const stops = schedule.restoreSlTp && master ? copiedStops(master, ctx.copier) : { stopLoss: null, takeProfit: null };
  const round = (price: number | null) => (price === null || !spec ? price : roundPrice(price, spec.digits));
  return {
    kind: 'reopen',
    key: `${schedule.label}/${owner.day}`,
    masterPositionId: record.masterPositionId,
    symbol: record.symbol,
    side: record.side,
    volume: record.volume,
    stopLoss: round(stops.stopLoss),
    takeProfit: round(stops.takeProfit),
    message: `${what}, closed at ${record.closedAt}`,
  };
};

const paused = (schedules: readonly Schedule[], ctx: OpenContext): Occurrence | undefined => {
  const now = Date.parse(ctx.now);
  const waiting = schedules.filter((s) => s.skipNewTradesUntilReopen && s.reopenTime !== null && matchesSymbol(s, ctx.slaveSymbol));
  const daysBack = Math.max(0, ...waiting.map((s) => s.reopenDayOffset)) + 1;
  return occurrencesBefore(waiting, now, daysBack).find((o) => o.reopen !== null && now < o.reopen);
};

export const scheduledCloseReopen: CopierFeature<ScheduledCloseReopenSettings> = {
  type: SCHEDULED_CLOSE_REOPEN,
  scopes: ['copier', 'account'],
  multiple: false,
  members,
  defaults: {},
  description: `Closes matching copies at UTC times and optionally reopens them later, per schedule (CloseReopenScheduleDTO). On each of its weekdays (UTC; default every day) at closeTime, the copies opened before closeTime on its symbols (default all) are closed, except, when asked: copies not in profit (closeOnlyProfitable; profit + swap), copies more than maxLossInPoints in loss, copies that pay no swap (negativeSwapOnly: their side's swap rate is not negative; unknown rate: no swap charged so far). The close is tried for ${CLOSE_WINDOW_SECONDS} seconds after closeTime. With reopenTime, reopenDayOffset days after the close day each copy the schedule closed is opened again at market, once, with its side, symbol and lots, tried for ${REOPEN_WINDOW_SECONDS / 60} minutes: not when the master closed the position meanwhile (skipReopenIfMasterClosed, default true; MASTER_CLOSED_BEFORE_REOPEN), and only while the price (the close's side of the book) is at most maxReopenSlippageInPoints from the close price (REOPEN_SLIPPAGE_EXCEEDED). restoreSlTp (default true): the reopened copy gets the master position's current stop loss and take profit. skipNewTradesUntilReopen: from closeTime until the reopen, new master opens on its symbols, pending orders included, are not copied (SCHEDULED_PAUSE). The history records the closes as made by ${SCHEDULED_CLOSE_REOPEN}. As an account feature it applies to every copier of the account.`,
  check: (s) => {
    const labels = new Set<string>();
    for (const schedule of s.schedules.map(scheduleOf)) {
      const label = schedule.label.toLowerCase();
      if (labels.has(label)) return `two schedules are labelled '${schedule.label}'`;
      labels.add(label);
      if (schedule.reopenTime !== null && schedule.reopenDayOffset === 0 && schedule.reopenTime <= schedule.closeTime) {
        return `schedule '${schedule.label}': reopenTime ${schedule.reopenTime} must be after closeTime ${schedule.closeTime} on the same day (or set reopenDayOffset)`;
      }
      if (schedule.skipNewTradesUntilReopen && schedule.reopenTime === null) return `schedule '${schedule.label}': skipNewTradesUntilReopen needs a reopenTime`;
      const problem = symbolPatternsProblem(schedule.symbols, `schedule '${schedule.label}' symbols`);
      if (problem) return problem;
    }
    return null;
  },
  rules: {
    filterOpen: (s, ctx) => {
      const pause = paused(s.schedules.map(scheduleOf), ctx);
      return pause
        ? skip('SCHEDULED_PAUSE', `schedule '${pause.schedule.label}' closed at ${iso(pause.close)}: new trades wait for the reopen at ${iso(pause.reopen!)}`)
        : null;
    },
    manage: (s, ctx) => {
      const schedules = s.schedules.map(scheduleOf);
      return [...closes(schedules, ctx), ...reopens(schedules, ctx)];
    },
  },
};
