// FeatureTrailingStopDTO (spec: activationThresholdPercentage, trailingStepPercentage: step as percent of
// take profit; 0 deactivates). Measured on each slave copy against its own take profit:
//   D = |take profit - open price| (a copy without a take profit is not trailed);
//   the trail starts once the price has moved activationThresholdPercentage % of D in its favour;
//   the stop loss then follows the price at a distance of trailingStepPercentage % of D, forward only,
//   and moves in whole steps of that size (never closer to the market than the broker's stops level).
import { type Static, Type } from '@sinclair/typebox';
import { roundPrice } from '../rounding.js';
import type { CopierFeature, ManagedAction } from './rules.js';

const members = Type.Object({
  activationThresholdPercentage: Type.Number({
    minimum: 0,
    maximum: 100,
    description: 'percent of the distance to take profit the price must move in favour before the stop trails',
  }),
  trailingStepPercentage: Type.Number({
    minimum: 0,
    maximum: 100,
    description: 'distance of the trailing stop, and its step, as percent of the distance to take profit; 0 deactivates',
  }),
});
export type TrailingStopSettings = Static<typeof members>;

export const trailingStop: CopierFeature<TrailingStopSettings> = {
  type: 'FeatureTrailingStopDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: {},
  description:
    "Trails the stop loss of each slave copy that has a take profit. D = |take profit - open price|. Once the price has moved activationThresholdPercentage % of D in the position's favour, the stop loss follows the price at trailingStepPercentage % of D, only forward, in whole steps of that size, never within the broker's stops level. trailingStepPercentage 0 deactivates. Checked every second.",
  rules: {
    needs: ['quotes'],
    manage: (s, ctx) => {
      if (s.trailingStepPercentage <= 0) return [];
      const actions: ManagedAction[] = [];
      for (const copy of ctx.copies) {
        if (copy.takeProfit === null) continue;
        // In whole points, so 1.105 - 1.1 is 500 points and not 499.99999.
        const { point, digits } = copy.spec;
        const points = (price: number) => Math.round(price / point);
        const d = Math.abs(points(copy.takeProfit) - points(copy.openPrice));
        if (d === 0) continue;
        const buy = copy.side === 'Buy';
        const gain = buy ? points(copy.currentPrice) - points(copy.openPrice) : points(copy.openPrice) - points(copy.currentPrice);
        if (gain <= 0 || gain < (s.activationThresholdPercentage / 100) * d) continue;
        const step = Math.max(1, Math.round((s.trailingStepPercentage / 100) * d));
        const distance = Math.max(step, copy.spec.stopsLevel ?? 0);
        const targetPoints = buy ? points(copy.currentPrice) - distance : points(copy.currentPrice) + distance;
        const target = roundPrice(targetPoints * point, digits);
        const current = copy.stopLoss === null ? null : points(copy.stopLoss);
        // Forward only, and only by a whole step.
        if (current !== null && (buy ? targetPoints - current < step : current - targetPoints < step)) continue;
        actions.push({
          kind: 'modify',
          slavePositionId: copy.slavePositionId,
          masterPositionId: copy.masterPositionId,
          symbol: copy.symbol,
          stopLoss: target,
          takeProfit: copy.takeProfit,
          message: `trailing stop: stop loss of #${copy.slavePositionId} moves ${copy.stopLoss === null ? 'in' : `from ${copy.stopLoss}`} to ${target} (price ${copy.currentPrice})`,
        });
      }
      return actions;
    },
  },
};
