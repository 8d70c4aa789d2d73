// FeatureBreakEvenDTO (spec: reverse, reverseTriggerInPoints: loss points that trigger reverse break-even,
// 0 disables, runs alongside normal break-even when set with the stop-loss member;
// reverseStopLossInPoints: distance from entry where take profit is placed). Our reading, measured on
// each slave copy in whole points of its symbol, every second:
//   - Normal break-even (triggerInPoints, stopLossInPoints): once the copy is triggerInPoints in
//     profit, its stop loss moves to stopLossInPoints beyond the entry on the profit side (0 = the
//     entry itself), if it is not already there or beyond. triggerInPoints 0 turns it off.
//   - Reverse break-even (reverse, reverseTriggerInPoints, reverseStopLossInPoints): once the copy is
//     reverseTriggerInPoints in loss, its take profit moves to reverseStopLossInPoints from the entry
//     on the loss side (0 = the entry), so a recovery closes it with at most that loss; a take profit
//     already nearer stays. Needs reverse true and reverseTriggerInPoints above 0.
//   - Both run side by side when both are set. A move that would put a stop within the broker's stops
//     level of the market waits until it no longer does. Stops only move towards the market's side
//     that protects, never back.
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own members, by the copy's symbol; the
//     feature must move something somewhere (a symbol may turn it off with triggerInPoints 0).
import { type Static, Type } from '@sinclair/typebox';
import { roundPrice } from '../rounding.js';
import { checkSymbolsConfiguration, generalSettings, perSymbolRules, settingsFor, withSymbolsConfiguration } from './perSymbol.js';
import type { CopierFeature, ManagedAction, ManagedCopy } from './rules.js';

const Points = (description: string) => Type.Integer({ minimum: 0, maximum: 10_000_000, description });

const general = Type.Object({
  triggerInPoints: Points('profit in points at which the stop loss moves; default 30 (the reference), 0 = no normal break-even'),
  stopLossInPoints: Points('where the stop loss goes: points beyond the entry on the profit side; default 20 (the reference), 0 = the entry'),
  reverse: Type.Boolean({ description: 'true: reverse break-even as well (reverseTriggerInPoints, reverseStopLossInPoints); default false' }),
  reverseTriggerInPoints: Points('loss in points at which the take profit moves (reverse break-even); 0 (default) disables'),
  reverseStopLossInPoints: Points('where the take profit goes: points from the entry on the loss side; 0 (default) = the entry'),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(general, 'The break-even per symbol: e.g. {"EURUSD": {"triggerInPoints": 30, "stopLossInPoints": 20}}.');
export type BreakEvenSettings = Static<typeof members>;

const normalOn = (s: General): boolean => s.triggerInPoints > 0;
const reverseOn = (s: General): boolean => s.reverse && s.reverseTriggerInPoints > 0;

const modify = (copy: ManagedCopy, stopLoss: number | null, takeProfit: number | null, message: string): ManagedAction => ({
  kind: 'modify',
  slavePositionId: copy.slavePositionId,
  masterPositionId: copy.masterPositionId,
  symbol: copy.symbol,
  stopLoss,
  takeProfit,
  message,
});

/** The rules between members, for the general setting and each symbol's effective one. */
function relations(s: General): string | null {
  if (normalOn(s) && s.stopLossInPoints >= s.triggerInPoints)
    return `stopLossInPoints ${s.stopLossInPoints} must be below triggerInPoints ${s.triggerInPoints}`;
  if (reverseOn(s) && s.reverseStopLossInPoints >= s.reverseTriggerInPoints) {
    return `reverseStopLossInPoints ${s.reverseStopLossInPoints} must be below reverseTriggerInPoints ${s.reverseTriggerInPoints}`;
  }
  return null;
}

/** Normal and reverse break-even on these copies, with one effective setting. */
function manageCopies(s: General, copies: readonly ManagedCopy[]): ManagedAction[] {
  const actions: ManagedAction[] = [];
  for (const copy of copies) {
    // In whole points, so 1.105 - 1.1 is 500 points and not 499.99999.
    const { point, digits } = copy.spec;
    const points = (price: number) => Math.round(price / point);
    const price = (p: number) => roundPrice(p * point, digits);
    const direction = copy.side === 'Buy' ? 1 : -1;
    const entry = points(copy.openPrice);
    const gain = direction * (points(copy.currentPrice) - entry);
    const stopsLevel = copy.spec.stopsLevel ?? 0;
    if (normalOn(s) && gain >= s.triggerInPoints && gain - s.stopLossInPoints >= stopsLevel) {
      const target = entry + direction * s.stopLossInPoints;
      const current = copy.stopLoss === null ? null : points(copy.stopLoss);
      if (current === null || direction * (target - current) > 0) {
        actions.push(
          modify(
            copy,
            price(target),
            copy.takeProfit,
            `break-even: stop loss of #${copy.slavePositionId} moves ${copy.stopLoss === null ? 'in' : `from ${copy.stopLoss}`} to ${price(target)}, ${gain} points in profit`,
          ),
        );
      }
    }
    const loss = -gain;
    if (reverseOn(s) && loss >= s.reverseTriggerInPoints && loss - s.reverseStopLossInPoints >= stopsLevel) {
      const target = entry - direction * s.reverseStopLossInPoints;
      const current = copy.takeProfit === null ? null : points(copy.takeProfit);
      if (current === null || direction * (current - target) > 0) {
        actions.push(
          modify(
            copy,
            copy.stopLoss,
            price(target),
            `reverse break-even: take profit of #${copy.slavePositionId} moves ${copy.takeProfit === null ? 'in' : `from ${copy.takeProfit}`} to ${price(target)}, ${loss} points in loss`,
          ),
        );
      }
    }
  }
  return actions;
}

export const breakEven: CopierFeature<BreakEvenSettings> = {
  type: 'FeatureBreakEvenDTO',
  scopes: ['copier', 'account'],
  multiple: false,
  members,
  defaults: { triggerInPoints: 30, stopLossInPoints: 20, reverse: false, reverseTriggerInPoints: 0, reverseStopLossInPoints: 0, symbolsConfiguration: {} },
  description:
    "Moves the stops of each slave copy, checked every second, in points of its symbol. Normal break-even: once a copy is triggerInPoints in profit, its stop loss moves to stopLossInPoints beyond the entry on the profit side (0 = the entry); triggerInPoints 0 = off; defaults 30 and 20, as the reference's. Reverse break-even (reverse true, reverseTriggerInPoints above 0): once a copy is reverseTriggerInPoints in loss, its take profit moves to reverseStopLossInPoints from the entry on the loss side (0 = the entry), so a recovery closes it with at most that loss. Both run side by side. Stops never move back, and never within the broker's stops level of the market (the move waits). symbolsConfiguration gives a slave symbol its own members (triggerInPoints 0 there: no normal break-even on it).",
  check: (s) => {
    const all = [generalSettings(s), ...Object.keys(s.symbolsConfiguration ?? {}).map((symbol) => settingsFor(s, symbol))];
    if (!all.some((e) => normalOn(e) || reverseOn(e))) return 'set triggerInPoints, or reverse with reverseTriggerInPoints: otherwise the feature does nothing';
    return checkSymbolsConfiguration(s, relations);
  },
  rules: perSymbolRules<General>({
    manage: (s, ctx) => manageCopies(s, ctx.copies),
  }),
};
