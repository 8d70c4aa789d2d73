// FeatureTpSlManagementDTO (spec: lockTpSl, blockTradeWithoutTpSl: no open on the slave when no TP/SL
// is available, masterTpSlPriority: configured fixed values only as a fallback when the master has
// none). Our reading of what the spec leaves open:
//   - The fixed values are distances in points from the slave's entry, on the slave's side (after
//     reverse): fixedSlInPoints, fixedTpInPoints (the reference's names); 0 = none. The entry is a pending order's
//     trigger price, or for a market open the slave's quote (ask for a buy, bid for a sell), or the
//     master's fill when the slave has no quote.
//   - masterTpSlPriority true (default): a fixed value is used only where the master's trade has none.
//     false: a configured fixed value replaces the master's; where none is configured the master's
//     stays.
//   - blockTradeWithoutTpSl: an open whose copy would carry no stop loss and no take profit (master's
//     or fixed) is not copied (NO_TP_SL); with requireBothTpSl, one that would miss either.
//   - removeSl / removeTp (the reference's): the copy opens without a stop loss / take profit, whatever
//     the master's or a fixed one; the master's later stop changes are then not copied either
//     (TP_SL_REMOVED), as they would put the removed level back.
//   - lockTpSl: the master's later stop loss / take profit changes are not copied (TP_SL_LOCKED); the
//     copy keeps the stops it opened with (management features still move them).
import { type Static, Type } from '@sinclair/typebox';
import { copiedStops } from '../reverse.js';
import { roundPrice } from '../rounding.js';
import type { OpenAction } from '../types.js';
import { type CopierFeature, type OpenContext, skip } from './rules.js';

const points = (description: string) => Type.Integer({ minimum: 0, maximum: 10_000_000, description });

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
  fixedSlInPoints: points("fixed stop loss: points from the slave's entry; 0 = none (default)"),
  fixedTpInPoints: points("fixed take profit: points from the slave's entry; 0 = none (default)"),
  removeSl: Type.Boolean({
    description: "true: copies open without a stop loss, and the master's later stop changes are not copied (TP_SL_REMOVED); default false",
  }),
  removeTp: Type.Boolean({
    description: "true: copies open without a take profit, and the master's later stop changes are not copied (TP_SL_REMOVED); default false",
  }),
});
export type TpSlManagementSettings = Static<typeof members>;

const configured = (points: number | undefined): number | null => (points ? points : null);

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
    fixedSlInPoints: 0,
    fixedTpInPoints: 0,
    removeSl: false,
    removeTp: false,
  },
  description:
    "Stop loss and take profit of copies. fixedSlInPoints / fixedTpInPoints: fixed distances in points from the slave's entry (a pending order's trigger price; for a market open the slave's ask for a buy, bid for a sell, or the master's fill without a quote), on the slave's side; 0 = none. removeSl / removeTp: copies open without a stop loss / take profit, and the master's later stop changes are not copied (TP_SL_REMOVED). masterTpSlPriority true (default): a fixed value only where the master's trade has none; false: a configured fixed value replaces the master's. blockTradeWithoutTpSl: an open whose copy would have neither a stop loss nor a take profit (requireBothTpSl: either missing) is not copied (NO_TP_SL). lockTpSl: the master's later stop loss / take profit changes are not copied (TP_SL_LOCKED).",
  rules: {
    needs: ['quotes'],
    filterOpen: (s, { trade, copier }) => {
      if (!s.blockTradeWithoutTpSl) return null;
      const master = copiedStops(trade, copier);
      const stopLoss = master.stopLoss !== null || (configured(s.fixedSlInPoints) !== null && !s.removeSl);
      const takeProfit = master.takeProfit !== null || (configured(s.fixedTpInPoints) !== null && !s.removeTp);
      if (s.requireBothTpSl ? stopLoss && takeProfit : stopLoss || takeProfit) return null;
      const missing = [stopLoss ? null : 'stop loss', takeProfit ? null : 'take profit'].filter((m) => m !== null).join(' and ');
      return skip('NO_TP_SL', `the copy would have no ${missing} (neither the master's nor a fixed one)`);
    },
    adjustOpen: (s, action, ctx) => {
      const removed = (a: OpenAction): OpenAction => ({ ...a, ...(s.removeSl ? { stopLoss: null } : {}), ...(s.removeTp ? { takeProfit: null } : {}) });
      const sl = configured(s.fixedSlInPoints);
      const tp = configured(s.fixedTpInPoints);
      if (sl === null && tp === null) return removed(action);
      const entry = entryOf(action, ctx);
      const { point, digits } = ctx.slaveSpec;
      const direction = isBuy(action.orderType) ? 1 : -1;
      const fixedStopLoss = sl === null ? null : roundPrice(entry - direction * sl * point, digits);
      const fixedTakeProfit = tp === null ? null : roundPrice(entry + direction * tp * point, digits);
      const pick = (master: number | null, fixed: number | null) => (s.masterTpSlPriority ? (master ?? fixed) : (fixed ?? master));
      return removed({ ...action, stopLoss: pick(action.stopLoss, fixedStopLoss), takeProfit: pick(action.takeProfit, fixedTakeProfit) });
    },
    onModify: (s) =>
      s.lockTpSl
        ? skip('TP_SL_LOCKED', "the copy's stop loss and take profit are locked (lockTpSl)")
        : s.removeSl || s.removeTp
          ? skip(
              'TP_SL_REMOVED',
              `the copy opened without its ${[s.removeSl && 'stop loss', s.removeTp && 'take profit'].filter(Boolean).join(' and ')} (removeSl / removeTp)`,
            )
          : null,
  },
};
