// FeatureTpSlManagementDTO (spec: lockTpSl, blockTradeWithoutTpSl: no open on the slave when no TP/SL
// is available, masterTpSlPriority: configured fixed values only as a fallback when the master has
// none; the reference beside them: fixedSlInPoints, fixedTpInPoints, removeSl, removeTp,
// additionalSlPoints, additionalTpPoints, adjustWithMasterDistance). Our reading of what they leave
// open, in points of the slave copy's symbol:
//   - The fixed values are distances in points from the slave's entry, on the slave's side (after
//     reverse); 0 = none. The entry is a pending order's trigger price, or for a market open the
//     slave's quote (ask for a buy, bid for a sell), or the master's fill when the slave has no quote;
//     for a later change of the master's stops, the copy's open price.
//   - masterTpSlPriority true (default): a fixed value is used only where the master's trade has none.
//     false: a configured fixed value replaces the master's; where none is configured the master's
//     stays. Both at the open and at the master's later stop changes (a change does not remove a
//     fixed level the copy holds).
//   - adjustWithMasterDistance: the master's stop loss and take profit are placed at the distance from
//     the copy's entry that they have from the master's open price (signed, so a stop the master moved
//     past its entry stays past the copy's), rather than at the master's prices; at the open and at
//     the master's later changes.
//   - additionalSlPoints / additionalTpPoints (0 or more, default 0): the copy's stop loss / take
//     profit, wherever it comes from (the master's, a fixed one, the master's distance), goes that many
//     points further from the entry; a copy without one stays without.
//   - blockTradeWithoutTpSl: an open whose copy would carry no stop loss and no take profit (master's
//     or fixed) is not copied (NO_TP_SL); with requireBothTpSl, one that would miss either.
//   - removeSl / removeTp (the reference's): the copy opens without a stop loss / take profit, whatever
//     the master's or a fixed one; the master's later stop changes are then not copied either
//     (TP_SL_REMOVED), as they would put the removed level back.
//   - lockTpSl: the master's later stop loss / take profit changes are not copied (TP_SL_LOCKED); the
//     copy keeps the stops it opened with (management features still move them).
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own members, with priority over the general
//     ones for its trades (the reference): an open by the symbol of its copy, a change by its copy's.
import { type Static, Type } from '@sinclair/typebox';
import { copiedStops, type Stops } from '../reverse.js';
import { roundPrice } from '../rounding.js';
import type { OpenAction, OrderType, SymbolSpec } from '../types.js';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, type OpenContext, skip } from './rules.js';

const points = (description: string) => Type.Integer({ minimum: 0, maximum: 10_000_000, description });

const general = Type.Object({
  lockTpSl: Type.Boolean({ description: "true: the master's stop loss / take profit changes are not copied (TP_SL_LOCKED); default false" }),
  blockTradeWithoutTpSl: Type.Boolean({
    description:
      'true: an open whose copy would have no stop loss and no take profit (with requireBothTpSl: either missing) is not copied (NO_TP_SL); default false',
  }),
  requireBothTpSl: Type.Boolean({ description: 'with blockTradeWithoutTpSl: true requires both a stop loss and a take profit; false (default) one of them' }),
  masterTpSlPriority: Type.Boolean({
    description: "true (default): the fixed values only where the master has none; false: configured fixed values replace the master's",
  }),
  fixedSlInPoints: points("fixed stop loss: points from the slave's entry; 0 = none (default)"),
  fixedTpInPoints: points("fixed take profit: points from the slave's entry; 0 = none (default)"),
  removeSl: Type.Boolean({
    description: "true: copies open without a stop loss, and the master's later stop changes are not copied (TP_SL_REMOVED); default false",
  }),
  removeTp: Type.Boolean({
    description: "true: copies open without a take profit, and the master's later stop changes are not copied (TP_SL_REMOVED); default false",
  }),
  additionalSlPoints: points(
    "the copy's stop loss (the master's, a fixed one or the master's distance) goes this many points further from the entry; default 0",
  ),
  additionalTpPoints: points(
    "the copy's take profit (the master's, a fixed one or the master's distance) goes this many points further from the entry; default 0",
  ),
  adjustWithMasterDistance: Type.Boolean({
    description:
      "true: the master's stop loss and take profit are placed at the distance from the copy's entry that they have from the master's open price, rather than at the master's prices (at the open and at the master's later changes); default false",
  }),
});
export type TpSlManagementGeneral = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'TP/SL management per symbol, with priority over the general members: e.g. {"EURUSD": {"fixedSlInPoints": 5, "fixedTpInPoints": 10}}.',
);
export type TpSlManagementSettings = Static<typeof members>;

const configured = (points: number | undefined): number | null => (points ? points : null);

export const isBuyOrder = (type: OrderType): boolean => type.startsWith('Buy');

/** The slave's entry: the trigger price of a pending order, the slave's quote of a market open, else the master's fill. */
export const entryOf = (action: OpenAction, ctx: Pick<OpenContext, 'quotes' | 'trade'>): number => {
  if (action.openPrice !== null) return action.openPrice;
  const quote = ctx.quotes.slave;
  if (quote) return isBuyOrder(action.orderType) ? quote.ask : quote.bid;
  return ctx.trade.openPrice;
};

/** Where the copy's stops come from: the levels copied from the master, the entries, the copy's side. */
interface StopsInput {
  /** The master's levels as the copy takes them (reversed, copyStopLoss / copyTakeProfit). */
  readonly master: Stops;
  /** The master's open price (trigger price); null when not known. */
  readonly masterEntry: number | null;
  /** The copy's entry; null when not known (then neither fixed values nor the master's distance apply). */
  readonly entry: number | null;
  readonly buy: boolean;
  readonly spec: Pick<SymbolSpec, 'point' | 'digits'>;
}

/** The copy's stop loss and take profit: the master's (at its distance), the fixed ones, removed, widened. */
export const managedStops = (s: TpSlManagementGeneral, input: StopsInput): Stops => {
  const { master, masterEntry, entry, buy, spec } = input;
  const direction = buy ? 1 : -1;
  const round = (price: number) => roundPrice(price, spec.digits);
  const shift = s.adjustWithMasterDistance && entry !== null && masterEntry !== null ? entry - masterEntry : 0;
  const moved = (level: number | null) => (level === null ? null : round(level + shift));
  const fromEntry = (points: number | null, sign: 1 | -1) => (points === null || entry === null ? null : round(entry + sign * direction * points * spec.point));
  const fixedStopLoss = fromEntry(configured(s.fixedSlInPoints), -1);
  const fixedTakeProfit = fromEntry(configured(s.fixedTpInPoints), 1);
  const pick = (masterLevel: number | null, fixed: number | null) => (s.masterTpSlPriority ? (masterLevel ?? fixed) : (fixed ?? masterLevel));
  const stopLoss = s.removeSl ? null : pick(moved(master.stopLoss), fixedStopLoss);
  const takeProfit = s.removeTp ? null : pick(moved(master.takeProfit), fixedTakeProfit);
  const widen = (level: number | null, points: number | undefined, sign: 1 | -1) =>
    level === null || !points ? level : round(level + sign * direction * points * spec.point);
  return { stopLoss: widen(stopLoss, s.additionalSlPoints, -1), takeProfit: widen(takeProfit, s.additionalTpPoints, 1) };
};

export const tpSlManagement: CopierFeature<TpSlManagementSettings> = {
  type: 'FeatureTpSlManagementDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: {
    lockTpSl: false,
    blockTradeWithoutTpSl: false,
    requireBothTpSl: false,
    masterTpSlPriority: true,
    fixedSlInPoints: 0,
    fixedTpInPoints: 0,
    removeSl: false,
    removeTp: false,
    additionalSlPoints: 0,
    additionalTpPoints: 0,
    adjustWithMasterDistance: false,
    symbolsConfiguration: {},
  },
  description:
    "Stop loss and take profit of copies, in points of the copy's symbol. fixedSlInPoints / fixedTpInPoints: fixed distances in points from the slave's entry (a pending order's trigger price; for a market open the slave's ask for a buy, bid for a sell, or the master's fill without a quote; at a later change of the master's stops the copy's open price), on the slave's side; 0 = none. masterTpSlPriority true (default): a fixed value only where the master's trade has none; false: a configured fixed value replaces the master's (at the open and at the master's later changes). adjustWithMasterDistance: the master's levels are placed at the distance from the copy's entry they have from the master's open price, not at the master's prices. additionalSlPoints / additionalTpPoints: the copy's stop loss / take profit, wherever it comes from, goes that many points further from the entry. removeSl / removeTp: copies open without a stop loss / take profit, and the master's later stop changes are not copied (TP_SL_REMOVED). blockTradeWithoutTpSl: an open whose copy would have neither a stop loss nor a take profit (requireBothTpSl: either missing) is not copied (NO_TP_SL). lockTpSl: the master's later stop loss / take profit changes are not copied (TP_SL_LOCKED). symbolsConfiguration gives a slave symbol its own members, with priority over the general ones for its trades.",
  check: (s) => checkSymbolsConfiguration(s),
  rules: perSymbolRules<TpSlManagementGeneral>({
    needs: ['quotes', 'openPrices'],
    filterOpen: (s, { trade, copier }) => {
      if (!s.blockTradeWithoutTpSl) return null;
      const master = copiedStops(trade, copier);
      const stopLoss = master.stopLoss !== null || (configured(s.fixedSlInPoints) !== null && !s.removeSl);
      const takeProfit = master.takeProfit !== null || (configured(s.fixedTpInPoints) !== null && !s.removeTp);
      if (s.requireBothTpSl ? stopLoss && takeProfit : stopLoss || takeProfit) return null;
      const missing = [stopLoss ? null : 'stop loss', takeProfit ? null : 'take profit'].filter((m) => m !== null).join(' and ');
      return skip('NO_TP_SL', `the copy would have no ${missing} (neither the master's nor a fixed one)`);
    },
    adjustOpen: (s, action, ctx) => ({
      ...action,
      ...managedStops(s, {
        master: action,
        masterEntry: ctx.trade.openPrice,
        entry: entryOf(action, ctx),
        buy: isBuyOrder(action.orderType),
        spec: ctx.slaveSpec,
      }),
    }),
    onModify: (s) =>
      s.lockTpSl
        ? skip('TP_SL_LOCKED', "the copy's stop loss and take profit are locked (lockTpSl)")
        : s.removeSl || s.removeTp
          ? skip(
              'TP_SL_REMOVED',
              `the copy opened without its ${[s.removeSl && 'stop loss', s.removeTp && 'take profit'].filter(Boolean).join(' and ')} (removeSl / removeTp)`,
            )
          : null,
    adjustModify: (s, modify, ctx) =>
      ctx.slaveSpec
        ? {
            ...modify,
            ...managedStops(s, {
              master: modify,
              masterEntry: ctx.masterOpenPrice,
              entry: ctx.copyOpenPrice,
              buy: isBuyOrder(ctx.copy.orderType),
              spec: ctx.slaveSpec,
            }),
          }
        : modify,
  }),
};
