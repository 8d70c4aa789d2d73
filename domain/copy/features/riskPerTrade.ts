// FeatureRiskPerTradeDTO (reference: absoluteRisk, relativeRisk, aggregateRiskPerSymbol,
// correctLotSizeBasedOnTheStopLoss, tickValue, tickValueAutomaticAdjustement, symbolsConfiguration; the
// spec 1.2.6 adds autoCloseOnRiskThresholdReached (default true; only with SL-based lot correction; a
// position without stop loss is still auto-closed)). Our reading:
//   - The risk of a trade: absoluteRisk in the account's currency, or relativeRisk percent of its
//     balance now (2.5 = 2.5 %); 0 turns a mode off, at most one of them is above 0, and with both at 0
//     the feature does nothing (for that symbol).
//   - correctLotSizeBasedOnTheStopLoss (default false, the reference's): an open with a stop loss gets the
//     lot whose loss at that stop loss is the risk: lot = risk / (points from the open price to the stop
//     loss x the value of a point of one lot); it replaces the copier's lot (and a Masaniello's), and the
//     copier's and the broker's caps still apply. An open without a stop loss keeps the copier's lot.
//     false: the copier's lot stays, and an open whose loss at its stop loss would exceed the risk is
//     skipped (RISK_PER_TRADE).
//   - The value of a point of one lot in the account's currency: with tickValueAutomaticAdjustement
//     (default true) the slave venue's value now (engine/copy/accountViews.ts), tickValue when the venue
//     has none; without it tickValue (0 = not set: the venue's value).
//   - aggregateRiskPerSymbol (default false): the account's open positions on the symbol share one
//     risk. Their risk (loss at their stop losses; none when the stop locks in profit; a position
//     without a stop loss counts as the whole risk) is taken from it first; nothing left: skipped.
//   - autoCloseOnRiskThresholdReached (default true; only with the correction on): a copy whose loss
//     (floating profit + swap) reaches the risk is closed, whether it has a stop loss (a gap, a stop the
//     broker did not take) or not. Aggregated, the loss of all the account's positions on the symbol is
//     measured and the copies on it are closed; positions the engine did not copy are counted but left
//     alone.
//   - symbolsConfiguration (perSymbol.ts): a slave symbol's own members take priority over the general
//     ones for its trades: {"XAUUSD": {"relativeRisk": 1, "tickValue": 1, "tickValueAutomaticAdjustement": false}}.
//   - Prices: the master's open price (a pending order's trigger price) and the slave's stop loss (the
//     master's, swapped under reverse).
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { type Decimal, exact, show, toNumber, ZERO } from '../../shared/decimal.js';
import { copiedStops } from '../reverse.js';
import type { MasterTrade, Skip, SymbolSpec } from '../types.js';
import { checkSymbolsConfiguration, perSymbolRules, withSymbolsConfiguration } from './perSymbol.js';
import { type AccountPosition, closeOf, type CopierFeature, type ManageContext, type ManagedAction, type OpenContext, skip } from './rules.js';

export const RISK_PER_TRADE = 'FeatureRiskPerTradeDTO';

const general = Type.Object({
  absoluteRisk: Type.Number({
    minimum: 0,
    maximum: 1e12,
    description:
      "the risk of one trade in the slave account's currency (50 = 50 USD); default 0 = this mode off. At most one of absoluteRisk and relativeRisk above 0",
  }),
  relativeRisk: Type.Number({
    minimum: 0,
    maximum: 100,
    description: "the risk of one trade in percent of the slave account's balance at the time (2.5 = 2.5 %); default 0 = this mode off",
  }),
  aggregateRiskPerSymbol: Type.Boolean({ description: "true: the account's open positions on a symbol share one risk; default false" }),
  correctLotSizeBasedOnTheStopLoss: Type.Boolean({
    description:
      'true: an open with a stop loss gets the lot whose loss at the stop loss is the risk; false (default, the reference): the copier lot stays and an open whose loss at its stop loss exceeds the risk is skipped',
  }),
  autoCloseOnRiskThresholdReached: Type.Boolean({
    description: 'true (default): a copy whose loss reaches the risk is closed, with or without a stop loss; only with correctLotSizeBasedOnTheStopLoss',
  }),
  tickValue: Type.Number({
    minimum: 0,
    maximum: 1e9,
    description:
      "the value of one point (the smallest price step) of 1.0 lot in the slave account's currency; used when tickValueAutomaticAdjustement is false, or when the venue has no value; default 0 = not set",
  }),
  tickValueAutomaticAdjustement: Type.Boolean({
    description: "true (default): the value of a point comes from the slave's venue now, overriding tickValue; false: tickValue (0 = the venue's value)",
  }),
});
type General = Static<typeof general>;
const members = withSymbolsConfiguration(
  general,
  'Risk per trade per symbol, with priority over the general members: e.g. {"EURUSD": {"absoluteRisk": 0, "relativeRisk": 2.5}}.',
);
export type RiskPerTradeSettings = Static<typeof members>;

/** Does the setting risk anything: absoluteRisk or relativeRisk above 0. */
const active = (s: General): boolean => s.absoluteRisk > 0 || s.relativeRisk > 0;

/** The risk of one trade now: the amount, or the percentage of the balance; null without a balance. */
export const riskOf = (s: General, balance: number | null): Decimal | null => {
  if (s.absoluteRisk > 0) return exact(s.absoluteRisk);
  if (!(s.relativeRisk > 0) || balance === null) return null;
  return exact(balance).times(exact(s.relativeRisk)).dividedBy(100);
};

/** The value of a point of one lot in the account's currency: the venue's or tickValue, as the members say; null when neither. */
export const pointValueOf = (s: General, venue: number | null | undefined): number | null => {
  const live = venue && venue > 0 ? venue : null;
  const set = s.tickValue > 0 ? s.tickValue : null;
  return s.tickValueAutomaticAdjustement ? (live ?? set) : (set ?? live);
};

/** The context with the point value the members choose. */
const withPointValue = (s: General, ctx: OpenContext): OpenContext => ({ ...ctx, pointValue: pointValueOf(s, ctx.pointValue) });

/** Whole points between two prices (prices sit on the point grid; rounding drops float noise). */
const pointsBetween = (a: number, b: number, spec: SymbolSpec): Decimal => exact(Math.round(Math.abs(a - b) / spec.point));

/** The stop loss the slave's copy gets: the master's, or its take profit under reverse; none when not copied (copyStopLoss). */
const slaveStopLoss = (trade: MasterTrade, copier: CopierSettings): number | null => copiedStops(trade, copier).stopLoss;

/** What an open position may still lose down to its stop loss; the whole risk without one. */
const openRisk = (p: AccountPosition, spec: SymbolSpec, pointValue: Decimal, risk: Decimal): Decimal => {
  if (p.stopLoss === null) return risk;
  const losing = p.side === 'Buy' ? p.stopLoss < p.openPrice : p.stopLoss > p.openPrice;
  if (!losing) return ZERO;
  return pointsBetween(p.openPrice, p.stopLoss, spec).times(pointValue).times(exact(p.volume));
};

interface Budget {
  readonly risk: Decimal;
  /** What is left for this open: the risk, less the open risk on the symbol when aggregated. */
  readonly left: Decimal;
  readonly used: Decimal;
}

/** The risk this open may take, or why there is none. */
const budgetOf = (s: General, ctx: OpenContext): Budget | Skip => {
  const risk = riskOf(s, ctx.slaveAccount?.balance ?? null);
  if (risk === null) return skip('RISK_PER_TRADE', "the slave account's balance is not available to measure relativeRisk");
  if (!s.aggregateRiskPerSymbol) return { risk, left: risk, used: ZERO };
  const positions = ctx.slavePositions ?? null;
  if (positions === null)
    return skip('RISK_PER_TRADE', `the open positions of the slave account are not available to aggregate the risk on ${ctx.slaveSymbol}`);
  const onSymbol = positions.filter((p) => p.symbol === ctx.slaveSymbol);
  if (onSymbol.some((p) => p.stopLoss !== null) && !(ctx.pointValue && ctx.pointValue > 0)) {
    return skip('RISK_PER_TRADE', `no value of a point of ${ctx.slaveSymbol} to measure the open risk`);
  }
  const used = onSymbol.reduce((sum, p) => sum.plus(openRisk(p, ctx.slaveSpec, exact(ctx.pointValue ?? 0), risk)), ZERO);
  return { risk, left: risk.minus(used), used };
};

/** The loss of `volume` lots from the master's open price to `stopLoss`. */
const lossAtStop = (volume: number, stopLoss: number, ctx: OpenContext): Decimal =>
  pointsBetween(ctx.trade.openPrice, stopLoss, ctx.slaveSpec)
    .times(exact(ctx.pointValue ?? 0))
    .times(exact(volume));

/** An amount rounded to cents, with the account's currency when known. */
const money = (f: Decimal | number, currency: string | undefined): string => {
  const cents = Math.round(toNumber(typeof f === 'number' ? exact(f) : f) * 100) / 100;
  return currency ? `${show(cents)} ${currency}` : show(cents);
};

/** Refusals before sizing: what the rule needs, and a budget the symbol's open risk has used up. */
const filter = (s: General, ctx: OpenContext): Skip | null => {
  const budget = budgetOf(s, ctx);
  if ('reason' in budget) return budget;
  const currency = ctx.slaveAccount?.currency;
  const stopLoss = slaveStopLoss(ctx.trade, ctx.copier);
  // A trade without a stop loss takes the whole risk: aggregated, only while nothing else is at risk.
  if (budget.left.lessThanOrEqualTo(0) || (stopLoss === null && budget.used.greaterThan(0))) {
    return skip(
      'RISK_PER_TRADE',
      `the open positions on ${ctx.slaveSymbol} already risk ${money(budget.used, currency)} of the ${money(budget.risk, currency)} the symbol may risk`,
    );
  }
  if (stopLoss === null) return null;
  if (!(ctx.pointValue && ctx.pointValue > 0)) return skip('RISK_PER_TRADE', `no value of a point of ${ctx.slaveSymbol} to size the trade by its stop loss`);
  if (pointsBetween(ctx.trade.openPrice, stopLoss, ctx.slaveSpec).lessThanOrEqualTo(0))
    return skip('RISK_PER_TRADE', `the stop loss ${stopLoss} is at the open price`);
  return null;
};

const sizing = (s: General, copier: CopierSettings, ctx: OpenContext): CopierSettings => {
  const stopLoss = slaveStopLoss(ctx.trade, ctx.copier);
  if (!s.correctLotSizeBasedOnTheStopLoss || stopLoss === null || !(ctx.pointValue && ctx.pointValue > 0)) return copier;
  const budget = budgetOf(s, ctx);
  if ('reason' in budget || budget.left.lessThanOrEqualTo(0)) return copier;
  const perLot = lossAtStop(1, stopLoss, ctx);
  if (perLot.lessThanOrEqualTo(0)) return copier;
  return { ...copier, scaleType: 'FIXED_LOT', fixedLotSize: toNumber(budget.left.dividedBy(perLot)), martingaleStrategy: false };
};

/** Without the correction: the copier's lot, unless its loss at the stop loss exceeds the risk left. */
const checkVolume = (s: General, volume: number, ctx: OpenContext): { readonly volume: number } | Skip => {
  if (s.correctLotSizeBasedOnTheStopLoss) return { volume };
  const stopLoss = slaveStopLoss(ctx.trade, ctx.copier);
  if (stopLoss === null) return { volume };
  const budget = budgetOf(s, ctx);
  if ('reason' in budget) return budget;
  const loss = lossAtStop(volume, stopLoss, ctx);
  if (loss.lessThanOrEqualTo(budget.left)) return { volume };
  const currency = ctx.slaveAccount?.currency;
  const left = s.aggregateRiskPerSymbol ? ` (${money(budget.left, currency)} left on the symbol)` : '';
  return skip(
    'RISK_PER_TRADE',
    `${volume} lots of ${ctx.slaveSymbol} would lose ${money(loss, currency)} at the stop loss ${stopLoss}, above the risk of ${money(budget.risk, currency)}${left}`,
  );
};

const autoClose = (s: General, ctx: ManageContext): ManagedAction[] => {
  if (!s.correctLotSizeBasedOnTheStopLoss || !s.autoCloseOnRiskThresholdReached || ctx.copies.length === 0) return [];
  const risk = riskOf(s, ctx.slaveAccount?.balance ?? null);
  if (risk === null) return [];
  const threshold = -toNumber(risk);
  const currency = ctx.slaveAccount?.currency;
  const reached = (loss: number) => `loss of ${money(-loss, currency)} reaches the risk of ${money(risk, currency)}`;
  if (!s.aggregateRiskPerSymbol) {
    return ctx.copies
      .filter((copy) => copy.profit + copy.swap <= threshold)
      .map((copy) => closeOf(copy, `risk per trade: #${copy.slavePositionId} closed, its ${reached(copy.profit + copy.swap)}`));
  }
  const actions: ManagedAction[] = [];
  for (const symbol of new Set(ctx.copies.map((c) => c.symbol))) {
    const positions = (ctx.slavePositions ?? []).filter((p) => p.symbol === symbol);
    const loss =
      positions.length > 0
        ? positions.reduce((sum, p) => sum + p.result, 0)
        : ctx.copies.filter((c) => c.symbol === symbol).reduce((sum, c) => sum + c.profit + c.swap, 0);
    if (loss > threshold) continue;
    for (const copy of ctx.copies.filter((c) => c.symbol === symbol)) {
      actions.push(closeOf(copy, `risk per trade: #${copy.slavePositionId} closed, the ${symbol} positions' ${reached(loss)}`));
    }
  }
  return actions;
};

export const riskPerTrade: CopierFeature<RiskPerTradeSettings> = {
  type: RISK_PER_TRADE,
  scopes: ['copier', 'account'],
  multiple: false,
  members,
  defaults: {
    absoluteRisk: 0,
    relativeRisk: 0,
    aggregateRiskPerSymbol: false,
    correctLotSizeBasedOnTheStopLoss: false,
    autoCloseOnRiskThresholdReached: true,
    tickValue: 0,
    tickValueAutomaticAdjustement: true,
    symbolsConfiguration: {},
  },
  description:
    "Stop-loss based sizing and a loss limit per trade: on a copier for that copier, on an account for every copier of the account (the reference: copier/account; a copier's own applies instead of its account's). The risk of a trade is absoluteRisk (the account's currency) or relativeRisk percent of the balance at the time (2.5 = 2.5 %); 0 turns a mode off, at most one is above 0, and with both 0 the feature does nothing (for that symbol). correctLotSizeBasedOnTheStopLoss (default false): an open with a stop loss gets the lot whose loss at that stop loss is the risk, lot = risk / (points from the master's open price to the copy's stop loss x the value of one point of one lot in the account's currency); it replaces the copier's lot, and maxLotSize, maximumLot, the margin cap and the broker's limits still apply (below the minimum lot: skipped, unless forceMinTrade). An open without a stop loss keeps the copier's lot. With false, the copier's lot stays and an open whose loss at its stop loss would exceed the risk is skipped. The value of a point: with tickValueAutomaticAdjustement (default true) the slave's broker's value now (tickValue when it has none); without it tickValue (0: the broker's). aggregateRiskPerSymbol (default false): the account's open positions on the symbol share one risk; their risk at their stop losses (none when the stop locks in profit, the whole risk for a position without one) is used first, and an open is skipped when nothing is left (an open without a stop loss needs the whole risk). autoCloseOnRiskThresholdReached (default true, only with the correction): a copy whose loss (floating profit + swap) reaches the risk is closed, with or without a stop loss; aggregated, the loss of all the account's positions on the symbol is measured and the copies on it are closed (positions the engine did not open count but are left alone). symbolsConfiguration: a slave symbol's own members take priority over the general ones. Skip reason RISK_PER_TRADE.",
  check: (s) =>
    checkSymbolsConfiguration<General>(s, (own) =>
      own.absoluteRisk > 0 && own.relativeRisk > 0 ? 'set at most one of absoluteRisk and relativeRisk above 0 (the other 0)' : null,
    ),
  rules: perSymbolRules<General>({
    needs: ['margin', 'positions', 'pointValue'],
    filterOpen: (s, ctx) => (active(s) ? filter(s, withPointValue(s, ctx)) : null),
    sizing: (s, copier, ctx) => (active(s) ? sizing(s, copier, withPointValue(s, ctx)) : copier),
    adjustVolume: (s, volume, ctx) => (active(s) ? checkVolume(s, volume, withPointValue(s, ctx)) : { volume }),
    manage: (s, ctx) => (active(s) ? autoClose(s, ctx) : []),
  }),
};
