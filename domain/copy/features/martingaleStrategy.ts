// FeatureMartingaleStrategyDTO (spec: "martingale settings"). Our reading: the copier's martingale with
// its settings, in place of the copier's boolean martingaleStrategy (off while the feature exists).
//   - The level starts at 0 and follows the copier's closed copies in the order they closed (net
//     result: profit + swap + commission): a loss raises it by one step, a win sets it back to 0
//     (resetAfterWin) or lowers it by one step; a break-even (exactly 0) is ignored or counts as a win
//     or a loss (breakEven). A cancelled pending order is not a trade.
//   - A loss at maxSteps starts over at 0 (afterMaxSteps RESET) or keeps the level (HOLD).
//   - The lot the scale type gives is multiplied by factor^level before sizing, so maxLotSize, the
//     broker's limits and maximumLot still bound it (as they bound the copier's own doubling).
//   - perSymbol: only the copies of the slave symbol being opened count.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { exact } from '../../shared/decimal.js';
import { closedTrades, withLotFactor } from './moneyManagement.js';
import type { CopierFeature, CopyRecord } from './rules.js';

const members = Type.Object({
  factor: Type.Number({ exclusiveMinimum: 1, maximum: 10, description: 'the lot is multiplied by this for each step (default 2: doubling)' }),
  maxSteps: Type.Integer({ minimum: 1, maximum: 20, description: 'the highest step: at most factor^maxSteps times the base lot (default 5)' }),
  afterMaxSteps: Type.Union([Type.Literal('RESET'), Type.Literal('HOLD')], {
    description: 'a loss at the highest step: RESET (default) starts over at the base lot; HOLD stays at the highest step',
  }),
  breakEven: Type.Union([Type.Literal('IGNORE'), Type.Literal('WIN'), Type.Literal('LOSS')], {
    description: 'a copy closed at exactly 0: IGNORE (default) changes nothing; WIN or LOSS counts it as one',
  }),
  resetAfterWin: Type.Boolean({ description: 'true (default): a win goes back to the base lot; false: a win goes one step down' }),
  perSymbol: Type.Boolean({ description: 'true: each slave symbol has its own level, from its own copies; false (default): one level for the copier' }),
});
export type MartingaleStrategySettings = Static<typeof members>;

/** The step after the copier's closed copies, oldest first. */
export const martingaleLevel = (s: MartingaleStrategySettings, history: readonly CopyRecord[], symbol: string): number => {
  let level = 0;
  for (const { result } of closedTrades(history, s.perSymbol ? { symbol } : {})) {
    const outcome = result > 0 ? 'WIN' : result < 0 ? 'LOSS' : s.breakEven;
    if (outcome === 'LOSS') level = level < s.maxSteps ? level + 1 : s.afterMaxSteps === 'RESET' ? 0 : s.maxSteps;
    else if (outcome === 'WIN') level = s.resetAfterWin ? 0 : Math.max(0, level - 1);
  }
  return level;
};

export const martingaleStrategy: CopierFeature<MartingaleStrategySettings> = {
  type: 'FeatureMartingaleStrategyDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { factor: 2, maxSteps: 5, afterMaxSteps: 'RESET', breakEven: 'IGNORE', resetAfterWin: true, perSymbol: false },
  description:
    "Martingale with settings; replaces the copier's martingaleStrategy (off while the feature exists). A level follows the copier's closed copies in the order they closed, by net result (profit + swap + commission): a loss raises it one step; a win sets it back to 0 (resetAfterWin, default) or one step down; a close at exactly 0 is ignored or counts as a win or a loss (breakEven). A loss at maxSteps starts over at 0 (afterMaxSteps RESET) or stays (HOLD). The lot the scale type gives is multiplied by factor^level before maxLotSize, the broker's limits and maximumLot apply. perSymbol keeps one level per slave symbol.",
  rules: {
    sizing: (s, copier, { history, slaveSymbol }): CopierSettings =>
      withLotFactor({ ...copier, martingaleStrategy: false }, exact(s.factor).pow(martingaleLevel(s, history, slaveSymbol))),
  },
};
