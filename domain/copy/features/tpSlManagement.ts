// FeatureTpSlManagementDTO (spec: lockTpSl, blockTradeWithoutTpSl: no open on the slave when no TP/SL
// is available, masterTpSlPriority: configured fixed values only as a fallback when the master has
// none). Our reading of what the spec leaves open:
//   - The fixed values are distances in points from the slave's entry, on the slave's side (after
//     reverse): stopLossInPoints, takeProfitInPoints; null or 0 = none. The entry is a pending order's
//     trigger price, or for a market open the slave's quote (ask for a buy, bid for a sell), or the
//     master's fill when the slave has no quote.
//   - masterTpSlPriority true (default): a fixed value is used only where the master's trade has none.
//     false: a configured fixed value replaces the master's; where none is configured the master's
//     stays.
//   - blockTradeWithoutTpSl: an open whose copy would carry no stop loss and no take profit (master's
//     or fixed) is not copied (NO_TP_SL); with requireBothTpSl, one that would miss either.
//   - lockTpSl: the master's later stop loss / take profit changes are not copied (TP_SL_LOCKED); the
//     copy keeps the stops it opened with (management features still move them).
import { type Static, Type } from '@sinclair/typebox';
import { slaveStops } from '../reverse.js';
import { roundPrice } from '../rounding.js';
import type { OpenAction } from '../types.js';
import { type CopierFeature, type OpenContext, skip } from './rules.js';

const points = (description: string) => Type.Union([Type.Integer({ minimum: 0, maximum: 10_000_000 }), Type.Null()], { description });

const members = Type.Object({
  lockTpSl: Type.Boolean({ description: "true: the master's stop loss / take profit changes are not copied (TP_SL_LOCKED); default false" }),
  blockTradeWithoutTpSl: Type.Boolean({
    description:
      'true: an open whose copy would have no stop loss and no take profit (with requireBothTpSl: either missing) is not copied (NO_TP_SL); default false',
  }),
  requireBothTpSl: Type.Boolean({ description: 'with blockTradeWithoutTpSl: true requires both a stop loss and a take profit; false (default) one of them' }),
  masterTpSlPriority: Type.Boolean({
    description: "true (default): the fixed values only where the master has none; false: configured fixed values replace the master's",
  }),
  stopLossInPoints: points("fixed stop loss: points from the slave's entry; null or 0 = none (default)"),
  takeProfitInPoints: points("fixed take profit: points from the slave's entry; null or 0 = none (default)"),
});
export type TpSlManagementSettings = Static<typeof members>;

const configured = (points: number | null): number | null => (points === null || points === 0 ? null : points);

const isBuy = (type: OpenAction['orderType']): boolean => type.startsWith('Buy');

/** The slave's entry: the trigger price of a pending order, the slave's quote of a market open, else the master's fill. */
const entryOf = (action: OpenAction, ctx: OpenContext): number => {
  if (action.openPrice !== null) return action.openPrice;
  const quote = ctx.quotes.slave;
  if (quote) return isBuy(action.orderType) ? quote.ask : quote.bid;
  return ctx.trade.openPrice;
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
    stopLossInPoints: null,
    takeProfitInPoints: null,
  },
  description:
    "Stop loss and take profit of copies. stopLossInPoints / takeProfitInPoints: fixed distances in points from the slave's entry (a pending order's trigger price; for a market open the slave's ask for a buy, bid for a sell, or the master's fill without a quote), on the slave's side; null or 0 = none. masterTpSlPriority true (default): a fixed value only where the master's trade has none; false: a configured fixed value replaces the master's. blockTradeWithoutTpSl: an open whose copy would have neither a stop loss nor a take profit (requireBothTpSl: either missing) is not copied (NO_TP_SL). lockTpSl: the master's later stop loss / take profit changes are not copied (TP_SL_LOCKED).",
  rules: {
    needs: ['quotes'],
    filterOpen: (s, { trade, copier }) => {
      if (!s.blockTradeWithoutTpSl) return null;
      const master = slaveStops(trade, copier.reverse);
      const stopLoss = master.stopLoss !== null || configured(s.stopLossInPoints) !== null;
      const takeProfit = master.takeProfit !== null || configured(s.takeProfitInPoints) !== null;
      if (s.requireBothTpSl ? stopLoss && takeProfit : stopLoss || takeProfit) return null;
      const missing = [stopLoss ? null : 'stop loss', takeProfit ? null : 'take profit'].filter((m) => m !== null).join(' and ');
      return skip('NO_TP_SL', `the copy would have no ${missing} (neither the master's nor a fixed one)`);
    },
    adjustOpen: (s, action, ctx) => {
      const sl = configured(s.stopLossInPoints);
      const tp = configured(s.takeProfitInPoints);
      if (sl === null && tp === null) return action;
      const entry = entryOf(action, ctx);
      const { point, digits } = ctx.slaveSpec;
      const direction = isBuy(action.orderType) ? 1 : -1;
      const fixedStopLoss = sl === null ? null : roundPrice(entry - direction * sl * point, digits);
      const fixedTakeProfit = tp === null ? null : roundPrice(entry + direction * tp * point, digits);
      const pick = (master: number | null, fixed: number | null) => (s.masterTpSlPriority ? (master ?? fixed) : (fixed ?? master));
      return { ...action, stopLoss: pick(action.stopLoss, fixedStopLoss), takeProfit: pick(action.takeProfit, fixedTakeProfit) };
    },
    onModify: (s) => (s.lockTpSl ? skip('TP_SL_LOCKED', "the copy's stop loss and take profit are locked (lockTpSl)") : null),
  },
};
