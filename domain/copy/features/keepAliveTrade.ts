// FeatureKeepAliveTradeDTO (spec: closeAfterInSeconds; research, copy-trading.md: MetaCopier's
// KeepAliveTrade, "keep-alive cron trades"). Brokers and prop firms close or archive accounts that do
// not trade for a while; a copier whose master is quiet leaves its slave idle. Our reading: a small
// trade placed on the slave account on a schedule, and closed closeAfterInSeconds later.
//   - When: every intervalHours hours, at whole multiples of intervalHours since 1970-01-01T00:00Z
//     (24: each day at 00:00 UTC; 6: 00:00, 06:00, 12:00 and 18:00 UTC), or at `time` (HH:mm, UTC) on
//     `weekdays` (default every day): one of the two. Only due times after the feature was added count.
//   - What: a market `orderType` (default Buy) of `volume` lots (default the symbol's minimum; rounded
//     down to its lot step, at least its minimum) of `symbol` at the slave's broker, without stops.
//   - onlyIfInactive (default false): placed only if the slave account opened or closed no position
//     (whoever traded: any copier, by hand; keep-alive trades aside) since the due time before.
//   - closeAfterInSeconds (the reference: 0 to 3600, default 0): the trade is closed that long after it
//     opened; 0 closes it at once (at the first management tick after its open).
//   - Once per due time, whatever happens: the trade is a standalone trade (rules.ts standaloneTradeId)
//     keyed by its feature and due time, with a client order id of that key, so a second tick or a
//     restart never places it twice. A due time missed (the service was down, the broker refused) is
//     tried every second until the next one. None is placed while the previous one is still open.
//   - The copier's copy rules never see it: it is no copy of a master position, so no master event
//     closes it, resync and copyOpenPositions leave it alone, and other features (trailing stops,
//     scheduled closes, guardrails, counts and series) do not count or touch it. An inactive or
//     monitor-only copier places none, but still closes one that is open when its time comes.
// Nothing is kept in memory: the open trade and its open time come from the copier's copies read
// model, so its close survives a restart too. Both the open and the close are in the slave's log.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { roundDownToStep } from '../rounding.js';
import { type CopierFeature, type CopyRecord, type ManageContext, type ManagedAction, standaloneTradeId } from './rules.js';
import { TimeOfDay, WEEKDAYS, type Weekday } from './scheduledCloseReopen.js';

export const KEEP_ALIVE_TRADE = 'FeatureKeepAliveTradeDTO';
const MAX_CLOSE_AFTER_SECONDS = 3600;

const members = Type.Object({
  symbol: Type.String({ minLength: 1, maxLength: 64, description: "the slave broker's symbol to trade (compared without case)" }),
  orderType: Type.Union([Type.Literal('Buy'), Type.Literal('Sell')], { description: 'the side of the keep-alive trade; default Buy' }),
  volume: Type.Optional(
    Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1000 }), Type.Null()], {
      description: "lots; null or left out (default): the symbol's minimum. Rounded down to the lot step, at least the minimum",
    }),
  ),
  intervalHours: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 720 }), Type.Null()], {
      description: 'a trade every this many hours, at whole multiples of it since 1970-01-01T00:00Z (24: daily at 00:00 UTC); give this or time',
    }),
  ),
  time: Type.Optional(
    Type.Union([TimeOfDay('HH:mm, UTC'), Type.Null()], { description: 'HH:mm, UTC: a trade at this time on each of weekdays; give this or intervalHours' }),
  ),
  weekdays: Type.Optional(
    Type.Array(Type.Union(WEEKDAYS.map((d) => Type.Literal(d))), {
      minItems: 1,
      maxItems: 7,
      uniqueItems: true,
      description: 'UTC weekdays of `time`; default every day',
    }),
  ),
  onlyIfInactive: Type.Boolean({
    description: 'true: placed only if the slave account opened or closed no position (keep-alive trades aside) since the due time before; default false',
  }),
  closeAfterInSeconds: Type.Integer({
    minimum: 0,
    maximum: MAX_CLOSE_AFTER_SECONDS,
    description:
      'Defines the duration in seconds after which the opened trade will be closed automatically. Default 0: closed at once (at the first management tick after it opened, about a second).',
  }),
});
export type KeepAliveTradeSettings = Static<typeof members>;

/** A due time of the schedule and the one before it (Unix milliseconds). */
interface Due {
  readonly at: number;
  readonly previous: number;
}

const HOUR_MS = 3_600_000;

/** The latest due time at or before `now`, with the one before it; null when the schedule has none (never: weekdays is non-empty). */
export const latestDue = (s: KeepAliveTradeSettings, now: number): Due | null => {
  if (s.intervalHours != null) {
    const every = s.intervalHours * HOUR_MS;
    const at = Math.floor(now / every) * every;
    return { at, previous: at - every };
  }
  if (s.time == null) return null;
  const [hour, minute] = s.time.split(':').map(Number) as [number, number];
  const days: readonly Weekday[] = s.weekdays ?? WEEKDAYS;
  const today = DateTime.fromMillis(now, { zone: 'utc' }).startOf('day');
  const found: number[] = [];
  // Two occurrences lie within the last 15 days whatever the weekdays.
  for (let back = 0; back <= 14 && found.length < 2; back++) {
    const day = today.minus({ days: back });
    if (!days.includes(WEEKDAYS[day.weekday - 1]!)) continue;
    const at = day.set({ hour, minute, second: 0, millisecond: 0 }).toMillis();
    if (at <= now) found.push(at);
  }
  return found.length === 2 ? { at: found[0]!, previous: found[1]! } : null;
};

const iso = (millis: number): string => DateTime.fromMillis(millis, { zone: 'utc' }).toISO()!;

const closeOfTrade = (trade: CopyRecord, s: KeepAliveTradeSettings): ManagedAction => ({
  kind: 'close',
  slavePositionId: trade.slavePositionId,
  masterPositionId: trade.masterPositionId,
  symbol: trade.symbol,
  volume: trade.volume,
  message: `Keep-alive trade #${trade.slavePositionId} (${trade.side} ${trade.volume} ${trade.symbol}, opened at ${trade.openedAt}, held ${s.closeAfterInSeconds} seconds)`,
});

const placement = (s: KeepAliveTradeSettings, ctx: ManageContext, featureId: string): ManagedAction | null => {
  const now = Date.parse(ctx.now);
  const due = latestDue(s, now);
  if (!due) return null;
  if (ctx.configuredAt !== undefined && due.at < Date.parse(ctx.configuredAt)) return null;
  const own = ctx.standalone ?? [];
  const id = standaloneTradeId(featureId, iso(due.at));
  if (own.some((t) => t.masterPositionId === id)) return null;
  // The one before still open (its close refused, a market closed): it keeps the account alive.
  if (own.some((t) => t.closedAt === null)) return null;
  if (s.onlyIfInactive && ctx.slaveLastTradeAt != null && Date.parse(ctx.slaveLastTradeAt) >= due.previous) return null;
  const spec = [...ctx.specs.values()].find((sp) => sp.symbol.toLowerCase() === s.symbol.toLowerCase());
  if (!spec) {
    return {
      kind: 'skip',
      masterPositionId: id,
      reason: 'SYMBOL_NOT_MAPPED',
      message: `keep-alive trade due at ${iso(due.at)} not placed: the slave's broker has no symbol ${s.symbol}`,
    };
  }
  const wanted = s.volume ?? spec.minLot;
  const volume = Math.min(Math.max(roundDownToStep(wanted, spec.lotStep), spec.minLot), spec.maxLot);
  return {
    kind: 'standaloneOpen',
    masterPositionId: id,
    symbol: spec.symbol,
    side: s.orderType,
    volume,
    message: `Keep-alive trade due at ${iso(due.at)} (to close after ${s.closeAfterInSeconds} seconds): ${s.orderType} ${volume} ${spec.symbol}`,
  };
};

export const keepAliveTrade: CopierFeature<KeepAliveTradeSettings> = {
  type: KEEP_ALIVE_TRADE,
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { orderType: 'Buy', onlyIfInactive: false, closeAfterInSeconds: 0 },
  description:
    "Keep-alive trades, so the slave account stays active (brokers and prop firms close or archive accounts that do not trade): a small trade placed on the slave on a schedule and closed closeAfterInSeconds (0 to 3600; default 0: at once, at the first management tick after its open, about a second) later. Schedule, one of: intervalHours (every so many hours, at whole multiples of it since 1970-01-01T00:00Z: 24 is daily at 00:00 UTC), or time (HH:mm, UTC) on weekdays (default every day); only due times after the feature was added count. The trade: a market orderType (default Buy) of volume lots (default the symbol's minimum; rounded down to the lot step, at least the minimum) of symbol at the slave's broker, without stops. onlyIfInactive (default false): placed only if the slave account opened or closed no position (whoever traded; keep-alive trades aside) since the due time before. Each due time places at most one trade, after a restart too; one missed (service down, broker refused) is tried every second until the next due time; none is placed while the previous one is still open, nor while the copier is inactive or monitor-only (an open one is still closed on time). The keep-alive trade is no copy: no master event, resync or copyOpenPositions closes it, and other features neither count nor manage it. Its open and close are in the slave account's logs.",
  check: (s) => {
    const interval = s.intervalHours != null;
    const time = s.time != null;
    if (interval === time) return 'give either intervalHours or time (with weekdays), not both and not neither';
    if (s.weekdays !== undefined && !time) return 'weekdays go with time';
    if (interval && s.closeAfterInSeconds >= s.intervalHours! * 3600)
      return `closeAfterInSeconds ${s.closeAfterInSeconds} must be shorter than intervalHours (${s.intervalHours! * 3600} seconds)`;
    return null;
  },
  rules: {
    needs: ['slaveActivity'],
    manage: (s, ctx, featureId) => {
      const now = Date.parse(ctx.now);
      const closes = (ctx.standalone ?? [])
        .filter((t) => t.closedAt === null && Date.parse(t.openedAt) + s.closeAfterInSeconds * 1000 <= now)
        .map((t) => closeOfTrade(t, s));
      const open = placement(s, ctx, featureId);
      return open ? [...closes, open] : closes;
    },
  },
};
