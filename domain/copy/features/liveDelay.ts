// FeatureLiveDelayDTO (spec: resetOnPositionClose, trackByDirection; research, copy-trading.md: MetaCopier's
// "live delay" skips the first N master orders). Our reading:
//   - skipOrdersCount = N (the reference's name; 0 = off): the first N master orders of a group are not copied (LIVE_DELAY); the
//     (N+1)-th and every later one are, as any other feature lets them.
//   - The group is the master's symbol. A master's series (a grid, a martingale basket, a scaled
//     entry) lives on one symbol, and those first orders are the ones a copier joining it late should
//     leave out. Counted per copier overall instead, a busy symbol would use the delay up before a
//     quiet one's series began, and resetOnPositionClose would wait for the master to be flat on every
//     symbol at once, which a master trading several symbols seldom is.
//   - trackByDirection: the master's buys and sells are counted apart (and reset apart), the master's
//     side, whatever the copier's reverse.
//   - What counts: the master's market opens and pending orders placed on the symbol, in the order it
//     placed them, from the moment the feature was added; orders placed before are neither counted nor
//     skipped (copyOpenPositions and resync decide them as usual). Netting additions to a position are
//     not orders. A pending order counts from its placement while it waits and, in the read models,
//     from its fill once filled; one the master cancels (or that expires) before it fills leaves the
//     count, as it never traded.
//   - resetIntervalMinutes (default 120, 0 = deactivated, at most 1440): an order placed that many minutes or more after the group's previous order starts the count again. resetOnPositionClose: a close that leaves the master with no open position of the group ends the
//     count: the next order is order 1 again, so it and the N - 1 after it are skipped. Pending orders
//     still waiting do not keep the group open.
//   - resetIntervalMinutes (the reference's; default 120, 0 = off, at most 1440): a master order placed
//     that long or longer after the group's previous order starts the count again, as order 1.
//   - Nothing is kept in memory: the count is derived, at each decision, from the master's orders in
//     the read models (open positions and pending orders, and positions closed since the feature was
//     added: OpenContext.masterOrders), so a restart changes nothing. An order decided again (its
//     pending order filled while the slave held no copy, a deferral fell due, a resync) keeps the
//     place of its placement, so a skipped order stays skipped; only a resync after a skipped pending
//     order filled counts it from its fill (the master's book no longer tells when it was placed).
// Closes and stop changes are never held: the slave holds no copy of a skipped order.
// symbolsConfiguration (perSymbol.ts): a slave symbol's own members (its skip count, its reset interval),
// by the symbol the copy would be placed on; the count itself stays per master symbol as above.
import { type Static, Type } from '@sinclair/typebox';
import type { MarketOrderType, OrderType } from '../types.js';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, type MasterOrderRecord, type OpenContext, skip } from './rules.js';

export const LIVE_DELAY_MAX_ORDERS = 100;

const general = Type.Object({
  skipOrdersCount: Type.Integer({
    minimum: 0,
    maximum: LIVE_DELAY_MAX_ORDERS,
    description:
      'N: the first N master orders of each group (the master symbol, and its side with trackByDirection) are not copied; default 3, 0 = deactivated',
  }),
  resetIntervalMinutes: Type.Integer({
    minimum: 0,
    maximum: 1440,
    description:
      "a master order placed this many minutes or more after the group's previous order starts the count again (it is order 1); default 120, 0 = deactivated, at most 1440",
  }),
  resetOnPositionClose: Type.Boolean({
    description:
      'true: once the master has closed every position of the group, the count starts again and the next N orders are skipped again; default false (the first N orders after the feature was added, once)',
  }),
  trackByDirection: Type.Boolean({ description: "true: the master's buys and sells on a symbol are counted (and reset) apart; default false" }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(general, 'The live delay per symbol: e.g. {"EURUSD": {"skipOrdersCount": 3, "resetIntervalMinutes": 120}}.');
export type LiveDelaySettings = Static<typeof members>;

const sideOf = (orderType: OrderType): MarketOrderType => (orderType.startsWith('Buy') ? 'Buy' : 'Sell');

/**
 * The latest close at or before `at` after which the master held no position of the group, or null.
 * A position opened at the very moment of a close keeps the group open.
 */
const lastFlatteningClose = (orders: readonly MasterOrderRecord[], at: number): number | null => {
  const moves: { time: number; delta: 1 | -1 }[] = [];
  for (const order of orders) {
    if (order.kind !== 'position') continue;
    const opened = Date.parse(order.openedAt);
    if (opened > at) continue;
    moves.push({ time: opened, delta: 1 });
    if (order.closedAt !== null && Date.parse(order.closedAt) <= at) moves.push({ time: Date.parse(order.closedAt), delta: -1 });
  }
  moves.sort((a, b) => a.time - b.time || b.delta - a.delta);
  let open = 0;
  let flat: number | null = null;
  for (const move of moves) {
    open += move.delta;
    if (move.delta === -1 && open === 0) flat = move.time;
  }
  return flat;
};

export interface LiveDelayPlace {
  /** 1 for the first order of the count. */
  readonly ordinal: number;
  /** When the count began: the feature's addition, or the close that left the group flat. */
  readonly since: number | null;
  readonly sinceClose: boolean;
  /** The count began at an order placed resetIntervalMinutes or more after the one before it. */
  readonly sinceQuiet?: boolean;
}

/** The place of the decided order in its group's count, or null when it was placed before the feature was added. */
export const liveDelayPlace = (s: General, ctx: OpenContext): LiveDelayPlace | null => {
  const { trade } = ctx;
  const side = sideOf(trade.orderType);
  const group = (ctx.masterOrders ?? []).filter((o) => !s.trackByDirection || o.side === side);
  const self = group.find((o) => o.masterPositionId === trade.masterPositionId);
  const placedAt = Date.parse(trade.openTime ?? self?.openedAt ?? ctx.eventTime ?? ctx.now);
  const added = ctx.configuredAt === undefined ? null : Date.parse(ctx.configuredAt);
  if (added !== null && placedAt < added) return null;
  const others = group.filter((o) => o.masterPositionId !== trade.masterPositionId);
  const close = s.resetOnPositionClose ? lastFlatteningClose(others, placedAt) : null;
  const since = close !== null && (added === null || close >= added) ? close : added;
  const before = others.filter((o) => {
    const at = Date.parse(o.openedAt);
    if (since !== null && at < since) return false;
    // Two orders in the same millisecond: by id, so every decision orders them alike.
    return at < placedAt || (at === placedAt && o.masterPositionId < trade.masterPositionId);
  });
  const place = { ordinal: before.length + 1, since, sinceClose: since !== null && since === close };
  if (!(s.resetIntervalMinutes > 0)) return place;
  // A quiet spell of resetIntervalMinutes or more between two orders starts the count again at the later one.
  const gap = s.resetIntervalMinutes * 60_000;
  const times = [...before.map((o) => Date.parse(o.openedAt)).sort((a, b) => a - b), placedAt];
  let start = 0;
  for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! >= gap) start = i;
  return start === 0 ? place : { ordinal: times.length - start, since: times[start]!, sinceClose: false, sinceQuiet: true };
};

const iso = (millis: number): string => new Date(millis).toISOString();

export const liveDelay: CopierFeature<LiveDelaySettings> = {
  type: 'FeatureLiveDelayDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { skipOrdersCount: 3, resetIntervalMinutes: 120, resetOnPositionClose: false, trackByDirection: false, symbolsConfiguration: {} },
  description: `Live delay: the first skipOrdersCount (N, 0 to ${LIVE_DELAY_MAX_ORDERS}, default 3, 0 = deactivated) master orders of each group are not copied (skip reason LIVE_DELAY, its message says which order of N it was); later ones are. The group is the master's symbol (a master's series, such as a grid or a martingale basket, lives on one symbol); trackByDirection: the master's buys and sells on it are counted apart. What counts: the master's market opens and pending orders placed, in the order it placed them, from when the feature was added (orders placed before are neither counted nor skipped); a pending order the master cancels or that expires before it fills leaves the count. resetIntervalMinutes (default 120, 0 = deactivated, at most 1440): an order placed that many minutes or more after the group's previous order starts the count again. resetOnPositionClose: a close that leaves the master with no open position of the group (pending orders aside) starts the count again, so the next N orders are skipped again. The count is derived from the master's orders in the read models, so a restart does not reset it; an order decided again (the fill of a skipped pending order, a deferral falling due, a resync of a market order) keeps its place, so a skipped order stays skipped; a resync of a skipped pending order that has since filled counts it from its fill. Closes and stop changes are never held. symbolsConfiguration gives a slave symbol its own members (skip count, reset interval ...).`,
  check: (s) => checkSymbolsConfiguration(s),
  rules: perSymbolRules<General>({
    needs: ['masterOrders'],
    filterOpen: (s, ctx) => {
      if (!Number.isInteger(s.skipOrdersCount) || s.skipOrdersCount === 0) return null;
      const place = liveDelayPlace(s, ctx);
      if (place === null || place.ordinal > s.skipOrdersCount) return null;
      const side = s.trackByDirection ? ` ${sideOf(ctx.trade.orderType).toLowerCase()}` : '';
      const from =
        place.since === null
          ? ''
          : place.sinceQuiet
            ? ` (counted since the order at ${iso(place.since)}, ${s.resetIntervalMinutes} minutes or more after the one before)`
            : place.sinceClose
              ? ` (counted since the master's last${side} ${ctx.trade.symbol} position closed at ${iso(place.since)})`
              : ` (counted since the feature was added at ${iso(place.since)})`;
      return skip('LIVE_DELAY', `live delay: master${side} order ${place.ordinal} of the first ${s.skipOrdersCount} on ${ctx.trade.symbol} is skipped${from}`);
    },
  }),
};
