// FeatureProgressiveTradeSizingDTO (spec: cycles, consecutive profitable trades at elevated level before
// reset to base size; default 1). Our reading, an anti-martingale: after a profitable copy the lot is
// raised to the elevated level (the base lot x factor); it stays there while the copies keep closing in
// profit, and after `cycles` profitable copies at the elevated level it goes back to the base lot. A
// losing copy sends it back to the base lot at once; a copy closed at exactly 0 changes nothing.
//   - Copies count in the order they closed, by net result (profit + swap + commission); a cancelled
//     pending order is not a trade.
//   - The factor applies to the lot the scale type gives, before sizing, so maxLotSize, the broker's
//     limits and maximumLot still bound it.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { exact } from '../../shared/decimal.js';
import { closedTrades, withLotFactor } from './moneyManagement.js';
import type { CopierFeature, CopyRecord } from './rules.js';

const members = Type.Object({
  cycles: Type.Integer({
    minimum: 1,
    maximum: 100,
    description: 'profitable copies at the elevated level before the lot goes back to the base size (default 1)',
  }),
  factor: Type.Number({ exclusiveMinimum: 1, maximum: 10, description: 'the elevated level: the base lot times this (default 2)' }),
});
export type ProgressiveTradeSizingSettings = Static<typeof members>;

/** Whether the next copy opens at the elevated level, after the copier's closed copies. */
export const elevated = (s: ProgressiveTradeSizingSettings, history: readonly CopyRecord[]): boolean => {
  let up = false;
  let wins = 0;
  for (const { result } of closedTrades(history)) {
    if (result < 0) up = false;
    else if (result > 0 && !up) {
      up = true;
      wins = 0;
    } else if (result > 0) {
      wins += 1;
      if (wins >= s.cycles) up = false;
    }
  }
  return up;
};

export const progressiveTradeSizing: CopierFeature<ProgressiveTradeSizingSettings> = {
  type: 'FeatureProgressiveTradeSizingDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { cycles: 1, factor: 2 },
  description:
    "Raises the lot after a win: after a copy of this copier closes in profit (net of swap and commission) the next copies open at the base lot x factor; after `cycles` profitable copies at that level, or at the first losing copy, the lot goes back to the base size. A copy closed at exactly 0 changes nothing. The factor applies before maxLotSize, the broker's limits and maximumLot.",
  rules: {
    sizing: (s, copier, { history }): CopierSettings => (elevated(s, history) ? withLotFactor(copier, exact(s.factor)) : copier),
  },
};
