// FeatureTrailingStopDTO: the reference's members, in points of the slave copy's symbol (its `point`, so
// 30 points are 0.0003 on a 5-digit EURUSD and 0.3 on a 2-digit XAUUSD), and the spec's
// trailingStepPercentage on top. Our reading, on each slave copy, every second:
//   - Activation: the copy is trailed once its gain reaches the activation threshold: the larger of
//     activationThresholdPoints and activationThresholdPercentage % of D, where D = |take profit -
//     entry|, each counted only when above 0 (the reference: the most conservative wins). The percent
//     needs a take profit: while it is above 0, a copy without one is not trailed. Both 0: trailed from
//     its open.
//   - The trail: the stop loss goes minimumDistancePoints behind the market (the close side: bid for a
//     buy, ask for a sell), never nearer than the broker's stops level, and moves only forward, by at
//     least a step: the larger of trailingStepPoints and trailingStepPercentage % of D (the spec's; a
//     copy without a take profit has only the points), and 1 point at the least.
//   - initialStopLossPoints: a copy opens with a stop loss that far from its entry (a pending order's
//     trigger price; for a market open the slave's ask for a buy, bid for a sell, or the master's fill
//     without a quote); a stop loss of the master's nearer to the entry stays. 0 = none.
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own members, by the copy's symbol.
import { type Static, Type } from '@sinclair/typebox';
import { roundPrice } from '../rounding.js';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import type { CopierFeature, ManagedAction } from './rules.js';
import { entryOf, isBuyOrder } from './tpSlManagement.js';

const Points = (description: string) => Type.Integer({ minimum: 0, maximum: 10_000_000, description });
const Percentage = (description: string) => Type.Number({ minimum: 0, maximum: 100, description });

const general = Type.Object({
  activationThresholdPoints: Points('the gain in points at which the trail starts; default 30, 0 = this activation deactivated'),
  activationThresholdPercentage: Percentage(
    'the gain, as percent of the distance between entry and take profit, at which the trail starts (needs a take profit); default 0 = deactivated. With both activations above 0 the larger applies',
  ),
  initialStopLossPoints: Points("the copy opens with a stop loss this many points from its entry (a master's nearer one stays); default 50, 0 = none"),
  minimumDistancePoints: Points('the trailed stop loss stays this many points behind the market (at least the broker stops level); default 20'),
  trailingStepPoints: Points('the stop loss moves only by at least this many points at a time; default 10'),
  trailingStepPercentage: Percentage(
    "the step as percent of the distance between entry and take profit (the spec's); default 0 = deactivated; with trailingStepPoints the larger step applies",
  ),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'The trailing stop per symbol: e.g. {"EURUSD": {"activationThresholdPoints": 30, "initialStopLossPoints": 50, "minimumDistancePoints": 20, "trailingStepPoints": 10}}.',
);
export type TrailingStopSettings = Static<typeof members>;

export const trailingStop: CopierFeature<TrailingStopSettings> = {
  type: 'FeatureTrailingStopDTO',
  scopes: ['copier', 'account'],
  multiple: false,
  members,
  defaults: {
    activationThresholdPoints: 30,
    activationThresholdPercentage: 0,
    initialStopLossPoints: 50,
    minimumDistancePoints: 20,
    trailingStepPoints: 10,
    trailingStepPercentage: 0,
    symbolsConfiguration: {},
  },
  description:
    "Trails the stop loss of each slave copy, in points of the copy's symbol, checked every second. A copy opens with a stop loss initialStopLossPoints from its entry (a pending order's trigger price; a market open's slave ask for a buy, bid for a sell; a master's stop loss nearer to the entry stays; 0 = none). The trail starts once the copy's gain reaches the larger of activationThresholdPoints and activationThresholdPercentage % of D (D = |take profit - entry|; the percent needs a take profit, a copy without one is then not trailed); each counts only above 0, both 0 = trailed from the open. The stop loss then follows minimumDistancePoints behind the market (bid for a buy, ask for a sell; never within the broker's stops level), only forward and by at least a step: the larger of trailingStepPoints and trailingStepPercentage % of D, 1 point at the least. symbolsConfiguration gives a slave symbol its own members.",
  check: (s) => checkSymbolsConfiguration(s),
  rules: perSymbolRules<General>({
    needs: ['quotes'],
    adjustOpen: (s, action, ctx) => {
      if (!(s.initialStopLossPoints > 0)) return action;
      const { point, digits } = ctx.slaveSpec;
      const entry = entryOf(action, ctx);
      const direction = isBuyOrder(action.orderType) ? 1 : -1;
      const initial = roundPrice(entry - direction * s.initialStopLossPoints * point, digits);
      // A master's stop loss nearer to the entry (on the loss side) is the tighter: it stays.
      if (action.stopLoss !== null && direction * (action.stopLoss - initial) > 0 && direction * (entry - action.stopLoss) > 0) return action;
      return { ...action, stopLoss: initial };
    },
    manage: (s, ctx) => {
      const actions: ManagedAction[] = [];
      for (const copy of ctx.copies) {
        // In whole points, so 1.105 - 1.1 is 500 points and not 499.99999.
        const { point, digits } = copy.spec;
        const points = (price: number) => Math.round(price / point);
        const d = copy.takeProfit === null ? null : Math.abs(points(copy.takeProfit) - points(copy.openPrice));
        if (s.activationThresholdPercentage > 0 && !d) continue;
        const buy = copy.side === 'Buy';
        const direction = buy ? 1 : -1;
        const market = points(copy.currentPrice);
        const gain = direction * (market - points(copy.openPrice));
        const threshold = Math.max(s.activationThresholdPoints, d ? (s.activationThresholdPercentage / 100) * d : 0);
        if (threshold > 0 && gain < threshold) continue;
        const step = Math.max(1, s.trailingStepPoints, d ? Math.round((s.trailingStepPercentage / 100) * d) : 0);
        const distance = Math.max(1, s.minimumDistancePoints, copy.spec.stopsLevel ?? 0);
        const targetPoints = market - direction * distance;
        const current = copy.stopLoss === null ? null : points(copy.stopLoss);
        // Forward only, and only by a whole step.
        if (current !== null && direction * (targetPoints - current) < step) continue;
        const target = roundPrice(targetPoints * point, digits);
        actions.push({
          kind: 'modify',
          slavePositionId: copy.slavePositionId,
          masterPositionId: copy.masterPositionId,
          symbol: copy.symbol,
          stopLoss: target,
          takeProfit: copy.takeProfit,
          message: `trailing stop: stop loss of #${copy.slavePositionId} moves ${copy.stopLoss === null ? 'in' : `from ${copy.stopLoss}`} to ${target} (price ${copy.currentPrice}, ${gain} points in profit)`,
        });
      }
      return actions;
    },
  }),
};
