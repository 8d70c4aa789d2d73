// FeatureProgressiveTradeSizingDTO. The reference (1.2.5): after a losing trade the next trade's volume is
// multiplied: lastLossGreaterThanInPercentage (the loss, as a percentage of the account balance, above
// which a close counts; default 0: any loss), limitLevels (how many times in a row the volume may be
// raised; default 3), lookBackInDays (the copier's trades opened in the last so many days count;
// default 5), multiplier (default 2). The spec (1.2.6) adds cycles: consecutive profitable trades at the
// elevated level before the lot goes back to the base size (default 1).
// Our reading, a martingale bounded in levels and time:
//   - The copier's copies opened in the last lookBackInDays days and closed, in the order they closed,
//     by net result (profit + swap + commission): a loss greater than lastLossGreaterThanInPercentage %
//     of the slave's balance raises the level by one, up to limitLevels; at a raised level, `cycles`
//     profitable copies in a row send it back to 0. Any other close (a smaller loss, exactly 0) changes
//     nothing; a cancelled pending order is no trade.
//   - The next copy opens at the base lot x multiplier ^ level: the factor applies to the lot the scale
//     type gives, before sizing, so maxLotSize, the broker's limits and maximumLot still bound it.
//   - The balance is the slave account's balance now (the balance at each close is not kept).
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { exact } from '../../shared/decimal.js';
import { withLotFactor } from './moneyManagement.js';
import type { CopierFeature, CopyRecord } from './rules.js';

const DAY_MS = 86_400_000;

const members = Type.Object({
  lastLossGreaterThanInPercentage: Type.Number({
    minimum: 0,
    maximum: 100,
    description:
      "Defines the loss percentage threshold required to activate the feature. For instance, if set to 1%, the system will trigger the multiplier if a trade closes with a loss greater than 1% of the account balance (the slave account's balance now). The default is 0%, meaning any negative trade will activate the feature.",
  }),
  limitLevels: Type.Integer({
    minimum: 1,
    maximum: 100,
    description:
      'Limits the maximum number of consecutive times the trade volume can be increased after successive losses. For example, if set to 3, the trade volume will only be increased up to 3 times before being capped. Default 3.',
  }),
  lookBackInDays: Type.Integer({
    minimum: 1,
    maximum: 7,
    description:
      'Defines the number of days to consider when evaluating past trades. For example, if set to 5, the system will look back at trades opened by the copier over the last 5 days to determine if the most recent trade closed with a loss. Default 5.',
  }),
  multiplier: Type.Number({
    minimum: 0.001,
    maximum: 999.999,
    description:
      'Specifies the multiplier to apply when increasing trade volume after a loss. The default multiplier is 2.000, meaning the volume of the next trade will be doubled after a loss. Each level multiplies again (multiplier ^ level).',
  }),
  cycles: Type.Integer({
    minimum: 1,
    maximum: 100,
    description: 'the spec (1.2.6): consecutive profitable copies at the elevated level before the lot goes back to the base size (default 1)',
  }),
});
export type ProgressiveTradeSizingSettings = Static<typeof members>;

/** How many times the next copy's lot is multiplied, after the copier's copies (newest first or not). */
export const level = (s: ProgressiveTradeSizingSettings, history: readonly CopyRecord[], now: string, balance: number): number => {
  const since = Date.parse(now) - s.lookBackInDays * DAY_MS;
  const threshold = exact(balance).times(s.lastLossGreaterThanInPercentage).dividedBy(100);
  const counted = history
    .filter((r): r is CopyRecord & { closedAt: string; result: number } => r.closedAt !== null && r.result !== null && Date.parse(r.openedAt) >= since)
    .sort((a, b) => Date.parse(a.closedAt) - Date.parse(b.closedAt));
  let raised = 0;
  let wins = 0;
  for (const { result } of counted) {
    if (result < 0 && exact(result).negated().greaterThan(threshold)) {
      raised = Math.min(raised + 1, s.limitLevels);
      wins = 0;
    } else if (result > 0 && raised > 0) {
      wins += 1;
      if (wins >= s.cycles) {
        raised = 0;
        wins = 0;
      }
    }
  }
  return raised;
};

export const progressiveTradeSizing: CopierFeature<ProgressiveTradeSizingSettings> = {
  type: 'FeatureProgressiveTradeSizingDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { lastLossGreaterThanInPercentage: 0, limitLevels: 3, lookBackInDays: 5, multiplier: 2, cycles: 1 },
  description:
    "Raises the lot after losses: the copier's copies opened in the last lookBackInDays days (default 5) are taken in the order they closed, by net result (profit + swap + commission); a loss greater than lastLossGreaterThanInPercentage % (default 0: any loss) of the slave account's balance now raises the level by one, up to limitLevels (default 3); at a raised level, cycles (the spec's, default 1) profitable copies in a row send it back to 0; any other close (a smaller loss, exactly 0) changes nothing. The next copy opens at the base lot x multiplier (default 2) ^ level. The factor applies to the lot the scale type gives, before maxLotSize, the broker's limits and maximumLot.",
  rules: {
    sizing: (s, copier, { history, now, slaveFunds }): CopierSettings => {
      const raised = level(s, history, now, slaveFunds?.balance ?? 0);
      return raised === 0 ? copier : withLotFactor(copier, exact(s.multiplier).pow(raised));
    },
  },
};
