// FeatureTradingWindowsDTO (spec: account feature, named only). Our reading: weekly windows, in a time
// zone of the account's choosing, in which master opens are copied; outside them new opens are not.
//   - A window starts on each of its days at `start` (local wall time in timeZone) and ends at `end` the
//     same day, or the next day when `end` is not after `start` (22:00-06:00 spans midnight; equal
//     times are a whole day). Daylight-saving changes move windows with the wall clock (luxon).
//   - Opens (market, pending orders, a pending fill with no copy) outside every window are skipped with
//     OUTSIDE_TRADING_WINDOW. Closes, partial closes and stop changes are always copied.
//   - closeAtWindowEnd: when a window ends and no other window goes on, the copier's open copies
//     (positions; pending orders stay) are closed; the close is asked for CLOSE_WINDOW_SECONDS after the
//     end (a refused close or a restart in that time still closes).
// Nothing is kept: whether now is inside a window and which end just passed are a function of `now`.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime, IANAZone } from 'luxon';
import { closeOf, type CopierFeature, type ManageContext, type ManagedAction, skip } from './rules.js';

export const TRADING_WINDOWS = 'FeatureTradingWindowsDTO';
/** How long after a window's end its close is still asked. */
export const CLOSE_WINDOW_SECONDS = 300;

const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
type Weekday = (typeof WEEKDAYS)[number];

const TimeOfDay = (description: string) => Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description });

export const TradingWindowDTO = Type.Object(
  {
    days: Type.Optional(
      Type.Array(Type.Union(WEEKDAYS.map((d) => Type.Literal(d))), {
        minItems: 1,
        maxItems: 7,
        uniqueItems: true,
        description: 'the days (in timeZone) on which the window starts; default every day',
      }),
    ),
    start: TimeOfDay('HH:mm, local time in timeZone: the window opens'),
    end: TimeOfDay('HH:mm, local time in timeZone: the window closes; not after start = the next day (equal = 24 hours)'),
  },
  { $id: 'TradingWindowDTO', additionalProperties: false, description: 'One weekly window of FeatureTradingWindowsDTO' },
);

const members = Type.Object({
  timeZone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "IANA time zone of the windows' days and times (Europe/London, America/New_York); default UTC",
  }),
  windows: Type.Array(TradingWindowDTO, { minItems: 1, maxItems: 50, description: 'the windows in which opens are copied' }),
  closeAtWindowEnd: Type.Boolean({ description: "true: when a window ends (and no other goes on) the copier's open copies are closed; default false" }),
});
export type TradingWindowsSettings = Static<typeof members>;

interface Span {
  readonly start: number;
  readonly end: number;
}

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

const at = (day: DateTime, hhmm: string): DateTime => {
  const [hour, minute] = hhmm.split(':').map(Number) as [number, number];
  return day.set({ hour, minute, second: 0, millisecond: 0 });
};

/** Every window span that starts on a local day from `daysBack` before `now`'s day to `daysAhead` after it. */
export const windowSpans = (s: TradingWindowsSettings, now: number, daysBack: number, daysAhead: number): Span[] => {
  const today = DateTime.fromMillis(now, { zone: s.timeZone }).startOf('day');
  const spans: Span[] = [];
  for (let offset = -daysBack; offset <= daysAhead; offset++) {
    const day = today.plus({ days: offset });
    const weekday: Weekday = WEEKDAYS[day.weekday - 1]!;
    for (const w of s.windows) {
      if (w.days && !w.days.includes(weekday)) continue;
      const overnight = minutesOf(w.end) <= minutesOf(w.start);
      const start = at(day, w.start).toMillis();
      const end = at(overnight ? day.plus({ days: 1 }) : day, w.end).toMillis();
      if (end > start) spans.push({ start, end });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
};

export const insideWindow = (s: TradingWindowsSettings, now: number): boolean => windowSpans(s, now, 1, 0).some((w) => w.start <= now && now < w.end);

/** The next time a window opens after `now`, within a week; null if none. */
const nextOpening = (s: TradingWindowsSettings, now: number): number | null => windowSpans(s, now, 0, 7).find((w) => w.start > now)?.start ?? null;

/** The latest window end at or before `now` within the close window, when no window goes on at `now`. */
const justEnded = (s: TradingWindowsSettings, now: number): number | null => {
  if (insideWindow(s, now)) return null;
  const ends = windowSpans(s, now, 2, 0)
    .map((w) => w.end)
    .filter((end) => end <= now && now < end + CLOSE_WINDOW_SECONDS * 1000);
  return ends.length ? Math.max(...ends) : null;
};

const iso = (millis: number, zone: string): string => DateTime.fromMillis(millis, { zone }).toISO({ suppressMilliseconds: true })!;

const closesAtEnd = (s: TradingWindowsSettings, ctx: ManageContext): ManagedAction[] => {
  if (!s.closeAtWindowEnd) return [];
  const now = Date.parse(ctx.now);
  const end = justEnded(s, now);
  if (end === null) return [];
  return ctx.copies
    .filter((copy) => Date.parse(copy.openTime) < end)
    .map((copy) => closeOf(copy, `trading window ended at ${iso(end, s.timeZone)}: #${copy.slavePositionId} closed (closeAtWindowEnd)`));
};

export const tradingWindows: CopierFeature<TradingWindowsSettings> = {
  type: TRADING_WINDOWS,
  scopes: ['account'],
  multiple: false,
  members,
  defaults: { timeZone: 'UTC', closeAtWindowEnd: false },
  description: `Weekly windows in which master opens are copied to this account. Each window opens on each of its days (default every day) at start and closes at end, local wall time in timeZone (IANA, default UTC; daylight-saving changes follow the wall clock); an end not after start closes the next day (22:00-06:00), equal times give 24 hours. Outside every window, opens (market, pending orders) are skipped with OUTSIDE_TRADING_WINDOW; closes, partial closes and stop changes are always copied. closeAtWindowEnd (default false): when a window ends and no other window goes on, the open copies of every copier of the account are closed (positions; pending orders stay), asked for ${CLOSE_WINDOW_SECONDS} seconds after the end. Applies to every copier of the account.`,
  check: (s) => (IANAZone.isValidZone(s.timeZone) ? null : `timeZone ${s.timeZone} is not an IANA time zone`),
  rules: {
    filterOpen: (s, ctx) => {
      const now = Date.parse(ctx.now);
      if (insideWindow(s, now)) return null;
      const next = nextOpening(s, now);
      return skip(
        'OUTSIDE_TRADING_WINDOW',
        `outside the trading windows (${s.timeZone})${next === null ? '' : `; the next opens at ${iso(next, s.timeZone)}`}`,
      );
    },
    manage: (s, ctx) => closesAtEnd(s, ctx),
  },
};
