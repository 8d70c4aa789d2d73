// FeatureTradingWindowsDTO (the reference: tradingWindows of TradingWindowDTO {activeDays, startTime,
// endTime}, closePositionsAtWindowEnd default true, temporarilySkipUntilNextWindow default false,
// symbolsConfiguration; the spec: account feature, named only). Our reading:
//   - A window's times are date-times whose date is ignored (the reference): its time of day, in the
//     offset written with it ("2025-01-01 08:00:00+02:00" is 08:00 at UTC+02:00). Our extra `timeZone`
//     (IANA), when set, reads the written times as wall times of that zone instead, the written offset
//     ignored, so daylight-saving changes move the windows with the wall clock (luxon).
//   - activeDays: 1 Monday to 7 Sunday, in the window's zone, the days the window starts on; none or
//     empty = every day. A window ends the same day at endTime, or the next day when endTime is not
//     after startTime (22:00-06:00 spans midnight; equal times are a whole day).
//   - Opens (market, pending orders, a pending fill with no copy) outside every window are skipped with
//     OUTSIDE_TRADING_WINDOW; with temporarilySkipUntilNextWindow they are held back instead until the
//     next window opens, and copied then at the market if the master still holds them (the filters
//     run again then). Closes, partial closes and stop changes are always copied.
//   - closePositionsAtWindowEnd (default true, the reference's): when a window ends and no other window
//     goes on, the copier's open copies (positions; pending orders stay) are closed; the close is asked
//     for CLOSE_WINDOW_SECONDS after the end (a refused close or a restart in that time still closes).
//   - Attached to an account it applies to every copier of the account; to a copier, to that copier.
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own windows and members, by the symbol of
//     the copy (opens) and of each copy (closes at the window end).
// Nothing is kept: whether now is inside a window and which end just passed are a function of `now`.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import { closeOf, type CopierFeature, type ManageContext, type ManagedAction, skip } from './rules.js';

export const TRADING_WINDOWS = 'FeatureTradingWindowsDTO';
/** How long after a window's end its close is still asked. */
export const CLOSE_WINDOW_SECONDS = 300;

const Time = (description: string) => Type.String({ format: 'date-time', maxLength: 64, description });

export const TradingWindowDTO = Type.Object(
  {
    activeDays: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), {
        maxItems: 7,
        uniqueItems: true,
        description: 'the days the window starts on, 1 Monday to 7 Sunday, in its zone; absent or empty = every day',
      }),
    ),
    startTime: Time(
      'the window opens at this time of day; the date is ignored, the offset written is its zone (2025-01-01 08:00:00+00:00), or with timeZone the time is read as a wall time of that zone',
    ),
    endTime: Time('the window closes at this time of day (the date is ignored); not after startTime = the next day, equal = 24 hours'),
  },
  { additionalProperties: false, description: 'One weekly window of FeatureTradingWindowsDTO (TradingWindowDTO)' },
);
type Window = Static<typeof TradingWindowDTO>;

const general = Type.Object({
  tradingWindows: Type.Array(TradingWindowDTO, { minItems: 1, maxItems: 50, description: 'the windows in which opens are copied' }),
  closePositionsAtWindowEnd: Type.Boolean({
    description: "true (default): when a window ends (and no other goes on) the copier's open copies are closed",
  }),
  temporarilySkipUntilNextWindow: Type.Boolean({
    description:
      'true: an open outside the windows is held back until the next window opens and copied then if the master still holds it; false (default): it is skipped (OUTSIDE_TRADING_WINDOW)',
  }),
  timeZone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        "ours: an IANA time zone (Europe/London); when set, the windows' times are wall times of this zone (their written offset ignored) and their days this zone's days. Absent (default): each time in its own offset",
    }),
  ),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'The trading windows per symbol: e.g. {"XAUUSD": {"tradingWindows": [{"startTime": "2025-01-01 13:00:00+00:00", "endTime": "2025-01-01 20:00:00+00:00"}]}}.',
);
export type TradingWindowsSettings = Static<typeof members>;

interface Span {
  readonly start: number;
  readonly end: number;
}

/** A written time with its own offset; invalid when it does not parse. */
const written = (time: string): DateTime => DateTime.fromISO(time.trim().replace(' ', 'T'), { setZone: true });

interface Shape {
  readonly zone: Zone;
  readonly days: readonly number[] | null;
  readonly start: { readonly hour: number; readonly minute: number; readonly second: number };
  readonly end: { readonly hour: number; readonly minute: number; readonly second: number };
}

const clock = (t: DateTime) => ({ hour: t.hour, minute: t.minute, second: t.second });

/** A window's zone, days and times of day. */
const shapeOf = (s: Pick<General, 'timeZone'>, w: Window): Shape => {
  const start = written(w.startTime);
  const end = written(w.endTime);
  const zone: Zone = s.timeZone ? IANAZone.create(s.timeZone) : FixedOffsetZone.instance(start.offset);
  return {
    zone,
    days: w.activeDays && w.activeDays.length > 0 ? w.activeDays : null,
    start: clock(start),
    end: clock(s.timeZone ? end : end.setZone(zone)),
  };
};

const seconds = (t: Shape['start']): number => t.hour * 3600 + t.minute * 60 + t.second;

/** Every window span that starts on a day (in its zone) from `daysBack` before `now`'s day to `daysAhead` after it. */
export const windowSpans = (s: General, now: number, daysBack: number, daysAhead: number): Span[] => {
  const spans: Span[] = [];
  for (const w of s.tradingWindows) {
    const shape = shapeOf(s, w);
    const today = DateTime.fromMillis(now, { zone: shape.zone }).startOf('day');
    const overnight = seconds(shape.end) <= seconds(shape.start);
    for (let offset = -daysBack; offset <= daysAhead; offset++) {
      const day = today.plus({ days: offset });
      if (shape.days && !shape.days.includes(day.weekday)) continue;
      const start = day.set({ ...shape.start, millisecond: 0 }).toMillis();
      const end = (overnight ? day.plus({ days: 1 }) : day).set({ ...shape.end, millisecond: 0 }).toMillis();
      if (end > start) spans.push({ start, end });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
};

export const insideWindow = (s: General, now: number): boolean => windowSpans(s, now, 1, 0).some((w) => w.start <= now && now < w.end);

/** The next time a window opens after `now`, within a week; null if none. */
const nextOpening = (s: General, now: number): number | null => windowSpans(s, now, 0, 7).find((w) => w.start > now)?.start ?? null;

/** The latest window end at or before `now` within the close window, when no window goes on at `now`. */
const justEnded = (s: General, now: number): number | null => {
  if (insideWindow(s, now)) return null;
  const ends = windowSpans(s, now, 2, 0)
    .map((w) => w.end)
    .filter((end) => end <= now && now < end + CLOSE_WINDOW_SECONDS * 1000);
  return ends.length ? Math.max(...ends) : null;
};

const iso = (millis: number, s: General): string => DateTime.fromMillis(millis, { zone: s.timeZone ?? 'UTC' }).toISO({ suppressMilliseconds: true })!;
const where = (s: General): string => (s.timeZone ? ` (${s.timeZone})` : '');

const closesAtEnd = (s: General, ctx: ManageContext): ManagedAction[] => {
  if (!s.closePositionsAtWindowEnd) return [];
  const now = Date.parse(ctx.now);
  const end = justEnded(s, now);
  if (end === null) return [];
  return ctx.copies
    .filter((copy) => Date.parse(copy.openTime) < end)
    .map((copy) => closeOf(copy, `trading window ended at ${iso(end, s)}: #${copy.slavePositionId} closed (closePositionsAtWindowEnd)`));
};

/** The problems of one effective setting in words, or null. */
const problems = (s: General): string | null => {
  if (s.timeZone !== undefined && !IANAZone.isValidZone(s.timeZone)) return `timeZone ${s.timeZone} is not an IANA time zone`;
  for (const [i, w] of s.tradingWindows.entries()) {
    for (const name of ['startTime', 'endTime'] as const) {
      if (!written(w[name]).isValid) return `tradingWindows[${i}].${name} ${w[name]} is not a date-time with an offset`;
    }
  }
  return null;
};

export const tradingWindows: CopierFeature<TradingWindowsSettings> = {
  type: TRADING_WINDOWS,
  scopes: ['account', 'copier'],
  multiple: false,
  members,
  defaults: { closePositionsAtWindowEnd: true, temporarilySkipUntilNextWindow: false, symbolsConfiguration: {} },
  description: `Weekly windows in which master opens are copied. Each window (TradingWindowDTO) opens on each of its activeDays (1 Monday to 7 Sunday; absent or empty = every day) at the time of day of startTime and closes at that of endTime; the dates are ignored and each time is read in the offset written with it (2025-01-01 08:00:00+00:00 is 08:00 UTC), or, with our timeZone (IANA), as a wall time of that zone (daylight-saving changes follow the wall clock). An endTime not after startTime closes the next day (22:00-06:00), equal times give 24 hours. Outside every window, opens (market, pending orders) are skipped with OUTSIDE_TRADING_WINDOW, or with temporarilySkipUntilNextWindow held back until the next window opens and copied then if the master still holds them; closes, partial closes and stop changes are always copied. closePositionsAtWindowEnd (default true): when a window ends and no other window goes on, the open copies are closed (positions; pending orders stay), asked for ${CLOSE_WINDOW_SECONDS} seconds after the end. On an account it applies to every copier of the account. symbolsConfiguration gives a slave symbol its own windows and members.`,
  check: (s) => checkSymbolsConfiguration(s, problems),
  rules: perSymbolRules<General>({
    filterOpen: (s, ctx) => {
      const now = Date.parse(ctx.now);
      if (insideWindow(s, now)) return null;
      const next = nextOpening(s, now);
      if (s.temporarilySkipUntilNextWindow && next !== null) return null;
      return skip('OUTSIDE_TRADING_WINDOW', `outside the trading windows${where(s)}${next === null ? '' : `; the next opens at ${iso(next, s)}`}`);
    },
    deferOpen: (s, ctx) => {
      if (!s.temporarilySkipUntilNextWindow) return null;
      const now = Date.parse(ctx.now);
      if (insideWindow(s, now)) return null;
      const next = nextOpening(s, now);
      return next === null ? null : new Date(next).toISOString();
    },
    manage: (s, ctx) => closesAtEnd(s, ctx),
  }),
};
