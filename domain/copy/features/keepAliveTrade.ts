// FeatureKeepAliveTradeDTO (the reference: symbol, cronExpressions "to trigger the trade (UTC time)",
// closeAfterInSeconds 0 to 3600, default 0; research, copy-trading.md: MetaCopier's KeepAliveTrade,
// "keep-alive cron trades"). Brokers and prop firms close or archive accounts that do not trade for a
// while; a copier whose master is quiet leaves its slave idle. Our reading: a small trade placed on the
// slave account at each firing of its cron expressions, and closed closeAfterInSeconds later.
//   - When: at each firing of any of cronExpressions (1 to 10), evaluated in UTC by croner (never
//     parsed by hand here). Accepted: what croner parses, with Quartz's habits: 5 fields (minute hour
//     day-of-month month day-of-week), 6 (seconds first, as Spring and Quartz) or 7 (a year last, as
//     Quartz), `?`, `L`, `W`, `#`, `0/5` steps, month and day names, @daily-style nicknames; the day of
//     month and the day of week both restricted must both match (Spring's reading). Refused, with a
//     400 [VALIDATION_FAILED] naming the expression: what croner refuses; a numeric day of week
//     (Monday is 1 in Unix cron and Spring but 2 in Quartz: names, MON-FRI, say it one way only);
//     several firings within one minute (a seconds field of more than one value: at most one trade a
//     minute); an expression that never fires. Firings at the same instant are one firing.
//   - What: a market `orderType` (default Buy) of `volume` lots (default null: the symbol's minimum, as
//     the reference says; rounded down to its lot step, at least its minimum) of `symbol` at the slave's
//     broker, without stops. orderType and volume are our extras.
//   - onlyIfInactive (our extra, default false): placed only if the slave account opened or closed no
//     position (whoever traded: any copier, by hand; keep-alive trades aside) since the firing before
//     (the first firing: since the feature was added).
//   - closeAfterInSeconds (the reference: 0 to 3600, default 0): the trade is closed that long after it
//     opened; 0 closes it at once (at the first management tick after its open).
//   - Once per firing, whatever happens: the trade is a standalone trade (rules.ts standaloneTradeId)
//     keyed by its feature and firing time, with a client order id of that key, so a second tick, a
//     replay or a restart never places it twice. Only firings after the feature was added count. A
//     firing missed (the service was stopped, the broker refused) is tried every second until the
//     next firing; after a stop only the latest missed firing is placed, once, the earlier ones are
//     not made up (one trade keeps the account alive). None is placed while the previous one is still
//     open: a firing while it is held is placed when it closes, if before the next firing.
//   - The copier's copy rules never see it: it is no copy of a master position, so no master event
//     closes it, resync and copyOpenPositions leave it alone, and other features (trailing stops,
//     scheduled closes, guardrails, counts and series) do not count or touch it. An inactive or
//     monitor-only copier places none, but still closes one that is open when its time comes.
//   - Scope: a copier (the spec) or an account (the reference: "keep alive trade feature (account)").
//     On an account it keeps the account alive, whatever its copiers: the keep-alive executor
//     (engine/schedule/keepAliveTrades.ts, records in domain/keepAlive) places one trade per firing on
//     the account, a master's, a lone account's or one with several copiers alike
//     (accountKeepAliveFiring below decides each firing; rules.ts accountScopeElsewhere keeps the
//     copiers out of it). There every firing is logged: the trade, or why none was placed (the trade
//     before still open, onlyIfInactive and the account traded, no such symbol, a risk limit hit or a
//     profit target locked), and every refusal of the broker. A copier's own keep-alive runs beside the
//     account's, each placing its own trades (unlike other features set at both scopes, of which only
//     the copier's runs for that copier).
// A copier's keep-alive keeps nothing in memory but parsed expressions: the open trade and its open
// time come from the copier's copies read model, so its close survives a restart too. Both the open and
// the close are in the slave's log.
import { type Static, Type } from '@sinclair/typebox';
import { Cron, type CronOptions } from 'croner';
import { DateTime } from 'luxon';
import { roundDownToStep } from '../rounding.js';
import { type CopierFeature, type CopyRecord, type ManageContext, type ManagedAction, standaloneTradeId } from './rules.js';

export const KEEP_ALIVE_TRADE = 'FeatureKeepAliveTradeDTO';
const MAX_CLOSE_AFTER_SECONDS = 3600;
const MAX_EXPRESSIONS = 10;
const MINUTE_MS = 60_000;

const members = Type.Object({
  symbol: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "the slave broker's symbol to trade (compared without case); the lot is the symbol's minimum unless volume says otherwise",
  }),
  cronExpressions: Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
    minItems: 1,
    maxItems: MAX_EXPRESSIONS,
    description:
      'Cron expressions to trigger the trade (UTC time), 1 to 10. 5 fields (minute hour day-of-month month day-of-week), 6 (seconds first) or 7 (a year last, as Quartz); `?`, `L`, `W`, `#`, `0/5` steps, month and day names and @daily-style nicknames are accepted; a day of month and a day of week both restricted must both match. Refused with 400 [VALIDATION_FAILED] naming the expression: an expression croner cannot parse, a numeric day of week (Monday is 1 in Unix cron but 2 in Quartz: use names, MON-FRI), more than one firing within a minute, an expression that never fires. Example: `0 0 12 ? * MON-FRI` (weekdays at 12:00 UTC).',
  }),
  orderType: Type.Union([Type.Literal('Buy'), Type.Literal('Sell')], { description: 'our extra: the side of the keep-alive trade; default Buy' }),
  volume: Type.Optional(
    Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: 1000 }), Type.Null()], {
      description:
        "our extra: lots; null or left out (default): the symbol's minimum, as the reference says. Rounded down to the lot step, at least the minimum",
    }),
  ),
  onlyIfInactive: Type.Boolean({
    description:
      'our extra: true: placed only if the slave account opened or closed no position (keep-alive trades aside) since the firing before (the first: since the feature was added); default false',
  }),
  closeAfterInSeconds: Type.Integer({
    minimum: 0,
    maximum: MAX_CLOSE_AFTER_SECONDS,
    description:
      'Defines the duration in seconds after which the opened trade will be closed automatically. Default 0: closed at once (at the first management tick after it opened, about a second).',
  }),
});
export type KeepAliveTradeSettings = Static<typeof members>;

/** croner, read in UTC; Spring's AND of day of month and day of week; Quartz's `0/5` steps. */
const CRON_OPTIONS: CronOptions = { timezone: 'UTC', paused: true, domAndDow: true, sloppyRanges: true };

/** Parsed expressions, kept (a parse costs about half a millisecond and management runs every second). */
const parsed = new Map<string, Cron>();
const cronOf = (expression: string): Cron => {
  let cron = parsed.get(expression);
  if (!cron) {
    if (parsed.size >= 1000) parsed.clear();
    cron = new Cron(expression, CRON_OPTIONS);
    parsed.set(expression, cron);
  }
  return cron;
};

/** Why croner's reading of `expression` is refused here, or null. */
export const cronExpressionProblem = (expression: string): string | null => {
  let cron: Cron;
  try {
    cron = cronOf(expression);
  } catch (error) {
    return `cron expression '${expression}' is not valid: ${(error as Error).message}`;
  }
  // Only where the fields sit is read here: their meaning is croner's.
  const fields = expression.trim().split(/\s+/);
  if (fields.length >= 5) {
    const dayOfWeek = fields[fields.length === 5 ? 4 : 5]!;
    if (/\d/.test(dayOfWeek.replace(/#\d+/g, ''))) {
      return `cron expression '${expression}': give the day of week by name (SUN to SAT, e.g. MON-FRI, FRI#2, FRIL): a number means another day in Unix cron than in Quartz`;
    }
  }
  if (fields.length >= 6) {
    // The seconds field alone: more than one value fires within a minute, whatever the other fields.
    const [first, second] = new Cron(`${fields[0]} * * * * *`, CRON_OPTIONS).nextRuns(2, new Date(0));
    if (first && second && second.getTime() - first.getTime() < MINUTE_MS) {
      return `cron expression '${expression}' fires more than once a minute: at most one keep-alive trade a minute`;
    }
  }
  if (cron.nextRun(new Date(0)) === null) return `cron expression '${expression}' never fires`;
  return null;
};

/** A firing of the expressions and the one before it (Unix milliseconds; previous null: none before). */
interface Firing {
  readonly at: number;
  readonly previous: number | null;
}

/** The latest firing of one expression at or before a time, the one before, and the next: valid from at to next. */
interface Window {
  readonly at: number | null;
  readonly previous: number | null;
  readonly next: number | null;
}
const windows = new Map<string, Window>();
const windowOf = (expression: string, now: number): Window => {
  const known = windows.get(expression);
  if (known && (known.at === null || known.at <= now) && (known.next === null || now < known.next)) return known;
  const cron = cronOf(expression);
  // previousRuns counts a run earlier in the same second: one a millisecond later includes a firing at now.
  const [at, previous] = cron.previousRuns(2, new Date(now + 1));
  const next = cron.nextRun(new Date(now));
  const window = { at: at?.getTime() ?? null, previous: previous?.getTime() ?? null, next: next?.getTime() ?? null };
  if (windows.size >= 1000) windows.clear();
  windows.set(expression, window);
  return window;
};

/** The latest firing of any of the expressions at or before `now`, with the one before it; null when none fired yet. */
export const latestFiring = (expressions: readonly string[], now: number): Firing | null => {
  const each = expressions.map((e) => windowOf(e, now));
  const times = each.flatMap((w) => [w.at, w.previous]).filter((t): t is number => t !== null && t <= now);
  if (times.length === 0) return null;
  const at = Math.max(...times);
  const before = times.filter((t) => t < at);
  return { at, previous: before.length ? Math.max(...before) : null };
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
  const due = latestFiring(s.cronExpressions, now);
  if (!due) return null;
  if (ctx.configuredAt !== undefined && due.at < Date.parse(ctx.configuredAt)) return null;
  const own = ctx.standalone ?? [];
  const id = standaloneTradeId(featureId, iso(due.at));
  if (own.some((t) => t.masterPositionId === id)) return null;
  // The one before still open (its close refused, a market closed): it keeps the account alive.
  if (own.some((t) => t.closedAt === null)) return null;
  const since = due.previous ?? (ctx.configuredAt !== undefined ? Date.parse(ctx.configuredAt) : -Infinity);
  if (s.onlyIfInactive && ctx.slaveLastTradeAt != null && Date.parse(ctx.slaveLastTradeAt) >= since) return null;
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
  scopes: ['copier', 'account'],
  multiple: false,
  members,
  defaults: { orderType: 'Buy', onlyIfInactive: false, closeAfterInSeconds: 0 },
  description:
    "Keep-alive trades, so the slave account stays active (brokers and prop firms close or archive accounts that do not trade): a small trade placed on the slave at each firing of cronExpressions and closed closeAfterInSeconds (0 to 3600; default 0: at once, at the first management tick after its open, about a second) later. cronExpressions: 1 to 10, evaluated in UTC (croner): 5 fields, 6 (seconds first) or 7 (a year last, as Quartz), with `?`, `L`, `W`, `#`, `0/5` steps, names and @daily-style nicknames; a day of month and a day of week both restricted must both match; refused (400 [VALIDATION_FAILED] naming the expression): unparsable, a numeric day of week (use names: Monday is 1 in Unix cron, 2 in Quartz), more than one firing a minute, never firing. Only firings after the feature was added count; each places at most one trade, across restarts and replays (the trade is keyed by feature and firing time); a missed one (service stopped, broker refused) is tried every second until the next firing, and after a stop only the latest missed firing is placed, earlier ones are not made up; none is placed while the previous one is still open, nor while the copier is inactive or monitor-only (an open one is still closed on time). The trade: a market orderType (our extra, default Buy) of the symbol's minimum lot (our extra volume overrides it; rounded down to the lot step, at least the minimum) of symbol at the slave's broker, without stops. onlyIfInactive (our extra, default false): placed only if the slave account opened or closed no position (whoever traded; keep-alive trades aside) since the firing before. The keep-alive trade is no copy: no master event, resync or copyOpenPositions closes it, and other features neither count nor manage it. Its open and close are in the slave account's logs. Scope: a copier (the spec), or an account (the reference): on an account, one trade per firing for the account, whatever its copiers (none: a master or a lone account; or several), placed by the account's keep-alive executor on the service clock; each firing has a line in the account's logs (category TRADING): the trade, or why none was placed (code PREVIOUS_STILL_OPEN: the trade before is still open; ACCOUNT_ACTIVE: onlyIfInactive and the account traded; SYMBOL_NOT_FOUND; RISK_LIMIT_HIT or PROFIT_TARGET_LOCKED), and so has every refusal of the broker (its code; an open refused is tried again every second until the next firing). A keep-alive set on a copier too runs beside the account's, each placing its own trades.",
  check: (s) => {
    for (const expression of s.cronExpressions) {
      const problem = cronExpressionProblem(expression);
      if (problem) return problem;
    }
    return null;
  },
  rules: {
    needs: ['slaveActivity'],
    accountScopeElsewhere: true,
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

/** What the account's keep-alive executor knows when it looks at an account (engine/schedule/keepAliveTrades.ts). */
export interface AccountKeepAliveContext {
  readonly now: string;
  /** When the feature was added: only firings after it count. */
  readonly configuredAt: string;
  /** The latest firing of the feature already decided (a trade or a skip). */
  readonly lastFiring: string | null;
  /** A keep-alive trade of the account is still open. */
  readonly previousOpen: boolean;
  /** When the account last opened or closed a position, its keep-alive trades aside; null: never. */
  readonly lastTradeAt: string | null;
  /** The account broker's symbols. */
  readonly symbols: readonly { readonly symbol: string; readonly minVolume: number; readonly maxVolume: number; readonly volumeStep: number }[];
  /** A risk limit hit or a profit target locked on the account (or on `symbol`): no new trade opens. */
  readonly blocked: (symbol: string) => { readonly reason: 'RISK_LIMIT_HIT' | 'PROFIT_TARGET_LOCKED'; readonly message: string } | null;
}

export type AccountKeepAliveDecision =
  | { readonly type: 'trade'; readonly symbol: string; readonly side: 'Buy' | 'Sell'; readonly volume: number }
  | {
      readonly type: 'skip';
      readonly reason: 'PREVIOUS_STILL_OPEN' | 'ACCOUNT_ACTIVE' | 'SYMBOL_NOT_FOUND' | 'RISK_LIMIT_HIT' | 'PROFIT_TARGET_LOCKED';
      readonly message: string;
    };

/**
 * An account's keep-alive feature (account scope: the reference's) at `now`: the firing to decide and
 * what to do at it, or null when no firing is due (none yet, none since the feature was added, or the
 * latest one decided already). After a stop only the latest missed firing is decided.
 */
export const accountKeepAliveFiring = (
  s: KeepAliveTradeSettings,
  ctx: AccountKeepAliveContext,
): { readonly firing: string; readonly decision: AccountKeepAliveDecision } | null => {
  const due = latestFiring(s.cronExpressions, Date.parse(ctx.now));
  if (!due || due.at < Date.parse(ctx.configuredAt)) return null;
  if (ctx.lastFiring !== null && Date.parse(ctx.lastFiring) >= due.at) return null;
  const firing = iso(due.at);
  const skip = (reason: Extract<AccountKeepAliveDecision, { type: 'skip' }>['reason'], message: string) => ({
    firing,
    decision: { type: 'skip' as const, reason, message },
  });
  // One trade keeps the account alive: the one before, still open (its close refused, a market closed), does.
  if (ctx.previousOpen) return skip('PREVIOUS_STILL_OPEN', 'the keep-alive trade before it is still open');
  const since = due.previous ?? Date.parse(ctx.configuredAt);
  if (s.onlyIfInactive && ctx.lastTradeAt !== null && Date.parse(ctx.lastTradeAt) >= since) {
    return skip('ACCOUNT_ACTIVE', `the account traded at ${ctx.lastTradeAt}, since the firing before (onlyIfInactive)`);
  }
  const spec = ctx.symbols.find((sp) => sp.symbol.toLowerCase() === s.symbol.toLowerCase());
  if (!spec) return skip('SYMBOL_NOT_FOUND', `the account's broker has no symbol ${s.symbol}`);
  const block = ctx.blocked(spec.symbol);
  if (block) return skip(block.reason, block.message);
  const wanted = s.volume ?? spec.minVolume;
  const volume = Math.min(Math.max(roundDownToStep(wanted, spec.volumeStep), spec.minVolume), spec.maxVolume);
  return { firing, decision: { type: 'trade', symbol: spec.symbol, side: s.orderType, volume } };
};
