// FeatureMasanielloDTO (the reference: "Masaniello money management feature (copier) (PRO)"; the spec:
// assumedPointRisk, series reset via PUT /accounts/{accountId}/masaniello/{masanielloFeatureId}/reset).
// One series per slave symbol: `totalEvents` trades of which `expectedWins` are expected to win.
//
// The stake. A win pays w R, a loss costs l R (R: the money a trade risks, its stake): w is
// expectedRMultiple (payoutModel R_MULTIPLE), expectedPayoutFactor (PAYOUT_FACTOR) or the mean R of the
// series' symbol's won trades in the statistics window (REALIZED_R; expectedRMultiple until one is won),
// l is -expectedLossRMultiple. With p = l / (w + l) and P(n, k) the chance of at least k wins in n at p
// (P(n, 0) = 1, P(n, k) = 0 for k > n), a stake of
//
//     R = c x (P(n - 1, k - 1) - P(n - 1, k)) / ((w + l) x P(n, k))
//
// with n events left, k wins still needed and c the series' capital above its floor, makes the capital
// c / P(n, k) after k wins and 0 after n - k + 1 losses, whatever the order (for l = 1 this is the
// classic 1 - P(n - 1, k) / P(n, k) of the capital).
//
// The bankroll and the target. The bankroll B is bankrollPercentage % of bankrollBase (BALANCE, EQUITY
// or FREE_MARGIN of the slave account) when the series started, taken as the base now less the series'
// net results so far. The target is X = targetProfitPercentage % of B. A series starts with
// c = min(B, X x P(N, K) / (1 - P(N, K))): the capital it may lose so that K wins in N bring exactly X;
// when X asks for more than B can bring, c = B and the target is B (1 / P(N, K) - 1). The capital then
// moves by the trades' real net results (profit + swap + commission), not the theoretical ones.
//
// Lots. R becomes lots through the risk of one lot: lots = R / (assumedPointRisk x the value of one point
// of one lot of the slave symbol in the account's currency, from the slave's broker; contract size x
// point when the broker gives none), rounded to lotStep (lotRoundingMode DOWN, UP or NEAREST), then
// bounded by minimumLotSize and maximumLotSize. The lot replaces the copier's sizing (scale type
// FIXED_LOT; martingale off), so the copier's maxLotSize, the broker's limits and step, forceMinTrade and
// maximumLot still apply after it.
//
// Outcomes. The series' trades are this copier's copies of the symbol closed after the series started
// (the later of its own reset and the reset of all, symbols compared without case; the engine gives the
// last 500 copies), in the order they closed; copies still open do not count. A trade's risk is its
// volume x assumedPointRisk x the value of a point now. outcomePolicy:
//   - SIGN: a net result above 0 wins, below 0 loses, 0 is break-even;
//   - THRESHOLD (default): the threshold t is winThresholdPercentage % of the trade's risk (winThresholdBase
//     RISK), of its notional (NOTIONAL: volume x contract size x close price; the risk when the close price
//     is not known), or winThresholdPercentage in the account's currency (ABSOLUTE); a result >= t and
//     above 0 wins, <= -t and below 0 loses, anything between is break-even;
//   - R_BASED: the result in R (result / risk) wins at w / 2 or more, loses at -l / 2 or less, else break-even.
// A break-even trade does not use an event when excludeBreakEvenTrades (default true); otherwise it
// uses one without a win. partialWinPolicy, for a trade with partial closes (several take profits, a
// partial close by hand); a "partial win" is such a trade with a partial close in profit:
//   - IGNORE (default): the trade is classified by its net result, all parts together, as any other;
//   - COUNT_AS_WIN: a partial win counts as a win, whatever its net result;
//   - COUNT_AS_LOSS: a partial win counts as a loss, whatever its net result;
//   - PROPORTIONAL: every part (the partial closes and the last close) weighs with its volume: more
//     volume closed in profit than in loss wins, more in loss loses, as much of both is break-even.
// A trade without partial closes is classified by outcomePolicy under every value. The partial closes
// are those the slave's venue reported for the copy (PositionPartiallyClosed: the master's partial
// close copied, a take profit of part of it, a partial close by hand), recorded by the copies read model
// (CopyRecord.partials) with their volume and net result.
//
// The end of a series: all events used or the wins no longer reachable (autoResetOnSeriesComplete),
// the wins reached or the target reached early (resetOnTargetReached), no capital left
// (resetOnBankrollDepleted), maxConsecutiveLosses losses in a row (> 0; always starts a new series).
// With the flag true the next trade starts a new series, after cooldownAfterResetMinutes from the
// close that ended it (skipped with MASANIELLO_COOLDOWN meanwhile; the reset endpoint's time counts
// the same way); false skips every open (MASANIELLO_SERIES_OVER) until the reset endpoint is called.
//
// Historical win rate (useHistoricalWinRate): when the symbol's classified trades (wins and losses) in
// the statistics window number minimumTradesForHistoricalWinRate or more, a series starts with
// K = round(N x ((1 - s) x expectedWins / N + s x h)), h their win rate and s winRateSmoothingFactor,
// bounded by minExpectedWins and maxExpectedWins (and 1 and N). The window: the statisticsLookBackDays
// days before the series starts, or only the series before it when 0.
//
// autoTuneBoundsValid and expectedWinsValid are the reference's validation flags: read-only, always
// true in answers (a setting that breaks them is refused with 400).
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { Decimal, exact, ONE, toNumber, ZERO } from '../../shared/decimal.js';
import type { SymbolSpec } from '../types.js';
import { LOT_ROUNDING_MODES, masanielloP, masanielloStakeShare, masanielloStartCapital, roundLot } from './masanielloFormula.js';
import { checkSymbolsConfiguration, perSymbolRules, sameSymbol, type WithSymbols, withSymbolsConfiguration } from './perSymbol.js';
import { type CopierFeature, type CopyRecord, type OpenContext, skip } from './rules.js';

export const BANKROLL_BASES = ['BALANCE', 'EQUITY', 'FREE_MARGIN'] as const;
export const OUTCOME_POLICIES = ['THRESHOLD', 'SIGN', 'R_BASED'] as const;
export const PARTIAL_WIN_POLICIES = ['IGNORE', 'COUNT_AS_WIN', 'COUNT_AS_LOSS', 'PROPORTIONAL'] as const;
export const PAYOUT_MODELS = ['R_MULTIPLE', 'PAYOUT_FACTOR', 'REALIZED_R'] as const;
export const WIN_THRESHOLD_BASES = ['RISK', 'NOTIONAL', 'ABSOLUTE'] as const;

const oneOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

const members = Type.Object({
  totalEvents: Type.Integer({ minimum: 2, maximum: 100, description: 'trades (events) in one series, N; default 10' }),
  expectedWins: Type.Integer({ minimum: 1, maximum: 100, description: 'wins expected in one series, K, at most totalEvents; default 6' }),
  bankrollBase: oneOf(BANKROLL_BASES, "what bankrollPercentage is taken of: the slave account's BALANCE, EQUITY (default) or FREE_MARGIN"),
  bankrollPercentage: Type.Number({
    minimum: 0.1,
    maximum: 100,
    description: 'the bankroll of one series, in % of bankrollBase when the series started (the base now less the series net results); default 5',
  }),
  targetProfitPercentage: Type.Number({
    minimum: 1,
    maximum: 1000,
    description:
      'the profit a series aims at, in % of its bankroll (50: +50 %); default 50. K wins in N bring it; the capital at risk is what that takes, at most the bankroll',
  }),
  payoutModel: oneOf(
    PAYOUT_MODELS,
    'how the profit of a win is modelled: R_MULTIPLE (default: expectedRMultiple), PAYOUT_FACTOR (expectedPayoutFactor), REALIZED_R (the mean R of the won trades in the statistics window; expectedRMultiple until there is one)',
  ),
  expectedRMultiple: Type.Number({ minimum: 0.05, maximum: 10, description: 'the profit of a win in R with payoutModel R_MULTIPLE; default 1' }),
  expectedPayoutFactor: Type.Number({
    minimum: 0.01,
    maximum: 5,
    description: 'the profit of a win as a share of the stake with payoutModel PAYOUT_FACTOR (0.75: +75 %); default 0.75',
  }),
  expectedLossRMultiple: Type.Number({
    minimum: -1,
    maximum: 0,
    description: 'the loss of a losing trade in R; default -1 (the whole stake). 0 is refused: a series needs a loss to size against',
  }),
  assumedPointRisk: Type.Number({
    minimum: 1,
    maximum: 10000,
    description:
      'the points one trade risks (its stop distance): lots = stake / (assumedPointRisk x the value of one point of one lot in the account currency); default 100',
  }),
  lotStep: Type.Number({ minimum: 0.0001, maximum: 100, description: 'the step lots are rounded to; default 0.01' }),
  lotRoundingMode: oneOf(LOT_ROUNDING_MODES, 'how the lot is rounded to lotStep: DOWN (default), UP or NEAREST (a half step rounds up)'),
  minimumLotSize: Type.Number({ minimum: 0, maximum: 100, description: 'the smallest lot opened (a smaller rounded lot is raised to it); default 0.01' }),
  maximumLotSize: Type.Number({ minimum: 0.01, maximum: 1000, description: 'the largest lot opened; default 10' }),
  outcomePolicy: oneOf(
    OUTCOME_POLICIES,
    'how a closed trade counts: THRESHOLD (default: a win from winThresholdPercentage of winThresholdBase, a loss from minus that), SIGN (above 0 wins, below 0 loses), R_BASED (a win from half the expected win in R, a loss from half the expected loss)',
  ),
  winThresholdBase: oneOf(
    WIN_THRESHOLD_BASES,
    "what winThresholdPercentage is taken of with outcomePolicy THRESHOLD: RISK (default: the trade's risk), NOTIONAL (volume x contract size x close price), ABSOLUTE (winThresholdPercentage is an amount in the account's currency)",
  ),
  winThresholdPercentage: Type.Number({
    minimum: 0,
    maximum: 100,
    description:
      'with THRESHOLD: a result of at least this share of the base (or amount, ABSOLUTE) wins, of at most minus it loses, between is break-even; default 0',
  }),
  excludeBreakEvenTrades: Type.Boolean({ description: 'true (default): a break-even trade uses no event of the series; false: it uses one, without a win' }),
  partialWinPolicy: oneOf(
    PARTIAL_WIN_POLICIES,
    "how a trade with partial closes counts; default IGNORE (by its net result, all parts together). A partial win (a partial close in profit) counts as a win with COUNT_AS_WIN, as a loss with COUNT_AS_LOSS, whatever its net result; PROPORTIONAL weighs every part by its volume: more volume closed in profit than in loss wins, more in loss loses, as much is break-even. A trade without partial closes counts by outcomePolicy under every value. The partial closes are the ones the slave's broker reported for the copy (the master's partial close copied, a partial take profit, a partial close by hand), each with its volume and net result",
  ),
  autoResetOnSeriesComplete: Type.Boolean({
    description:
      'true (default): after all events are used (or the wins can no longer come) the next trade starts a new series; false: opens are skipped (MASANIELLO_SERIES_OVER) until the reset endpoint',
  }),
  resetOnTargetReached: Type.Boolean({
    description:
      'true (default): once the wins or the target profit are reached, the next trade starts a new series; false: opens are skipped until the reset endpoint',
  }),
  resetOnBankrollDepleted: Type.Boolean({
    description: 'true (default): with no capital left the next trade starts a new series; false: opens are skipped until the reset endpoint',
  }),
  maxConsecutiveLosses: Type.Integer({
    minimum: 0,
    maximum: 50,
    description: 'this many losses in a row end the series and start a new one (a safety breaker); 0 (default) = off',
  }),
  cooldownAfterResetMinutes: Type.Integer({
    minimum: 0,
    maximum: 1440,
    description: 'after a series ends (or the reset endpoint), opens are skipped with MASANIELLO_COOLDOWN for this many minutes; 0 (default) = none',
  }),
  useHistoricalWinRate: Type.Boolean({
    description: "true: each series' expectedWins is adjusted to the symbol's historical win rate (see the feature); default false",
  }),
  minimumTradesForHistoricalWinRate: Type.Integer({
    minimum: 1,
    maximum: 500,
    description: 'the wins and losses the statistics window needs before the historical win rate is used; default 20',
  }),
  winRateSmoothingFactor: Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'the weight of the historical win rate against expectedWins / totalEvents (0..1; higher adapts faster); default 0.3',
  }),
  minExpectedWins: Type.Integer({ minimum: 1, maximum: 100, description: 'the fewest expectedWins the historical win rate may give; default 1' }),
  maxExpectedWins: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'the most expectedWins the historical win rate may give; left out (default): totalEvents' }),
  ),
  statisticsLookBackDays: Type.Integer({
    minimum: 0,
    maximum: 365,
    description:
      'the statistics window (historical win rate, REALIZED_R): the days before the series started; 0 = only the trades of the series before it; default 30',
  }),
  autoTuneBoundsValid: Type.Boolean({
    readOnly: true,
    description: 'read-only: minExpectedWins <= maxExpectedWins; always true (a setting breaking it is refused)',
  }),
  expectedWinsValid: Type.Boolean({ readOnly: true, description: 'read-only: expectedWins <= totalEvents; always true (a setting breaking it is refused)' }),
});
export type MasanielloMembers = Static<typeof members>;
export type MasanielloSettings = WithSymbols<MasanielloMembers>;

const withSymbols = withSymbolsConfiguration(
  members,
  'Masaniello members per symbol: only the members that change need to be given (the reference\'s example: {"EURUSD": {"expectedWins": 7}}); each symbol\'s series runs with its own setting.',
);

export const MASANIELLO_DEFAULTS: Omit<MasanielloMembers, 'maxExpectedWins'> = {
  totalEvents: 10,
  expectedWins: 6,
  bankrollBase: 'EQUITY',
  bankrollPercentage: 5,
  targetProfitPercentage: 50,
  payoutModel: 'R_MULTIPLE',
  expectedRMultiple: 1,
  expectedPayoutFactor: 0.75,
  expectedLossRMultiple: -1,
  assumedPointRisk: 100,
  lotStep: 0.01,
  lotRoundingMode: 'DOWN',
  minimumLotSize: 0.01,
  maximumLotSize: 10,
  outcomePolicy: 'THRESHOLD',
  winThresholdBase: 'RISK',
  winThresholdPercentage: 0,
  excludeBreakEvenTrades: true,
  partialWinPolicy: 'IGNORE',
  autoResetOnSeriesComplete: true,
  resetOnTargetReached: true,
  resetOnBankrollDepleted: true,
  maxConsecutiveLosses: 0,
  cooldownAfterResetMinutes: 0,
  useHistoricalWinRate: false,
  minimumTradesForHistoricalWinRate: 20,
  winRateSmoothingFactor: 0.3,
  minExpectedWins: 1,
  statisticsLookBackDays: 30,
  autoTuneBoundsValid: true,
  expectedWinsValid: true,
};

// ---------------------------------------------------------------------------------------------- series

type Outcome = 'win' | 'loss' | 'breakEven';

export interface MasanielloTrade {
  readonly closedAt: string;
  /** The net result of all its parts. */
  readonly result: number;
  /** The volume of its last close. */
  readonly volume: number;
  readonly closePrice: number | null;
  /** Its partial closes before the last one (volume, net result); absent or empty: none. */
  readonly partials?: readonly { readonly volume: number; readonly result: number }[];
}

/** What the stake needs of the world: the value of one point of one lot in the account's currency, the contract size. */
export interface MasanielloMarket {
  readonly pointValue: Decimal;
  readonly contractSize: number;
}

const riskOf = (s: MasanielloMembers, trade: MasanielloTrade, market: MasanielloMarket): Decimal =>
  exact(trade.volume).times(exact(s.assumedPointRisk)).times(market.pointValue);

const lossR = (s: MasanielloMembers): Decimal => exact(s.expectedLossRMultiple).negated();

export const classify = (s: MasanielloMembers, trade: MasanielloTrade, market: MasanielloMarket, winR: Decimal): Outcome => {
  const result = exact(trade.result);
  if (s.outcomePolicy === 'SIGN') return result.greaterThan(0) ? 'win' : result.lessThan(0) ? 'loss' : 'breakEven';
  const risk = riskOf(s, trade, market);
  if (s.outcomePolicy === 'R_BASED') {
    if (risk.lessThanOrEqualTo(0)) return result.greaterThan(0) ? 'win' : result.lessThan(0) ? 'loss' : 'breakEven';
    const r = result.dividedBy(risk);
    if (r.greaterThan(0) && r.greaterThanOrEqualTo(winR.dividedBy(2))) return 'win';
    if (r.lessThan(0) && r.lessThanOrEqualTo(lossR(s).dividedBy(2).negated())) return 'loss';
    return 'breakEven';
  }
  const share = exact(s.winThresholdPercentage).dividedBy(100);
  const threshold =
    s.winThresholdBase === 'ABSOLUTE'
      ? exact(s.winThresholdPercentage)
      : s.winThresholdBase === 'NOTIONAL' && trade.closePrice !== null
        ? exact(trade.volume).times(exact(market.contractSize)).times(exact(trade.closePrice)).times(share)
        : risk.times(share);
  if (result.greaterThan(0) && result.greaterThanOrEqualTo(threshold)) return 'win';
  if (result.lessThan(0) && result.lessThanOrEqualTo(threshold.negated())) return 'loss';
  return 'breakEven';
};

/** How a trade counts, partialWinPolicy applied to a trade with partial closes (classify for the others and IGNORE). */
export const outcomeOf = (s: MasanielloMembers, trade: MasanielloTrade, market: MasanielloMarket, winR: Decimal): Outcome => {
  const partials = trade.partials ?? [];
  if (partials.length === 0 || s.partialWinPolicy === 'IGNORE') return classify(s, trade, market, winR);
  if (s.partialWinPolicy === 'PROPORTIONAL') {
    const last = { volume: trade.volume, result: exact(trade.result).minus(partials.reduce((sum, p) => sum.plus(exact(p.result)), ZERO)) };
    const parts = [...partials.map((p) => ({ volume: p.volume, result: exact(p.result) })), last];
    const weigh = (sign: 1 | -1) => parts.filter((p) => p.result.times(sign).greaterThan(0)).reduce((sum, p) => sum.plus(exact(p.volume)), ZERO);
    const won = weigh(1);
    const lost = weigh(-1);
    return won.greaterThan(lost) ? 'win' : lost.greaterThan(won) ? 'loss' : 'breakEven';
  }
  if (!partials.some((p) => p.result > 0)) return classify(s, trade, market, winR);
  return s.partialWinPolicy === 'COUNT_AS_WIN' ? 'win' : 'loss';
};

/** The profit of a win in R for the payout model; REALIZED_R from the won trades given. */
const winROf = (s: MasanielloMembers, window: readonly MasanielloTrade[], market: MasanielloMarket): Decimal => {
  if (s.payoutModel === 'PAYOUT_FACTOR') return exact(s.expectedPayoutFactor);
  if (s.payoutModel === 'R_MULTIPLE') return exact(s.expectedRMultiple);
  const fixed = { ...s, payoutModel: 'R_MULTIPLE' as const };
  const won = window
    .filter((t) => outcomeOf(fixed, t, market, exact(s.expectedRMultiple)) === 'win')
    .map((t) => ({ r: riskOf(s, t, market), result: exact(t.result) }))
    .filter(({ r }) => r.greaterThan(0))
    .map(({ r, result }) => result.dividedBy(r));
  if (won.length === 0) return exact(s.expectedRMultiple);
  const mean = won.reduce((sum, r) => sum.plus(r), ZERO).dividedBy(won.length);
  return Decimal.min(10, Decimal.max(0.05, mean));
};

/** K for a series: expectedWins, or adjusted to the historical win rate of `window`. */
export const expectedWinsFor = (s: MasanielloMembers, window: readonly MasanielloTrade[], market: MasanielloMarket): number => {
  if (!s.useHistoricalWinRate) return s.expectedWins;
  const winR = exact(s.expectedRMultiple);
  const outcomes = window.map((t) => outcomeOf(s, t, market, winR)).filter((o) => o !== 'breakEven');
  if (outcomes.length < s.minimumTradesForHistoricalWinRate) return s.expectedWins;
  const rate = exact(outcomes.filter((o) => o === 'win').length).dividedBy(outcomes.length);
  const smoothing = exact(s.winRateSmoothingFactor);
  const blended = ONE.minus(smoothing).times(exact(s.expectedWins).dividedBy(s.totalEvents)).plus(smoothing.times(rate));
  const k = blended.times(s.totalEvents).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
  const upper = Math.min(s.totalEvents, s.maxExpectedWins ?? s.totalEvents);
  return Math.max(1, Math.min(upper, Math.max(s.minExpectedWins, k)));
};

export interface MasanielloSeries {
  /** When the series started: the close that ended the previous one, a reset, or null for the first. */
  readonly startedAt: string | null;
  readonly totalEvents: number;
  readonly expectedWins: number;
  readonly eventsLeft: number;
  readonly winsNeeded: number;
  readonly winR: Decimal;
  /** The bankroll's capital at risk above the floor at the start, and now. */
  readonly startCapital: Decimal;
  readonly capital: Decimal;
  /** The series' net result so far. */
  readonly net: Decimal;
  readonly target: Decimal;
  /** Set when the series ended and opens are skipped until a reset. */
  readonly ended: { readonly at: string; readonly why: string } | null;
}

/** The bankroll base of the slave account now. */
export interface MasanielloAccount {
  readonly balance: number;
  readonly equity: number;
  readonly freeMargin: number;
}

const baseOf = (s: MasanielloMembers, account: MasanielloAccount): Decimal =>
  exact(s.bankrollBase === 'BALANCE' ? account.balance : s.bankrollBase === 'FREE_MARGIN' ? account.freeMargin : account.equity);

/**
 * The series of one symbol now: its trades (closed after `after`, oldest first) walked from the start.
 * `history` holds every classified trade of the symbol, oldest first, for the statistics window.
 */
export const masanielloSeries = (
  s: MasanielloMembers,
  trades: readonly MasanielloTrade[],
  account: MasanielloAccount,
  market: MasanielloMarket,
  after: string | null,
): MasanielloSeries => {
  const inWindow = (startedAt: string | null, previous: readonly MasanielloTrade[]): readonly MasanielloTrade[] => {
    if (s.statisticsLookBackDays === 0 || startedAt === null) return s.statisticsLookBackDays === 0 ? previous : trades.filter(() => false);
    const from = Date.parse(startedAt) - s.statisticsLookBackDays * 86_400_000;
    return trades.filter((t) => Date.parse(t.closedAt) >= from && Date.parse(t.closedAt) <= Date.parse(startedAt));
  };
  const seriesTrades = trades.filter((t) => after === null || Date.parse(t.closedAt) > Date.parse(after));
  const netOfAll = seriesTrades.reduce((sum, t) => sum.plus(exact(t.result)), ZERO);
  const base = baseOf(s, account);

  // Every series of the walk is started with the bankroll of the base at its start: now less what came since.
  const start = (startedAt: string | null, previous: readonly MasanielloTrade[], netSince: Decimal): MasanielloSeries => {
    const window = inWindow(startedAt, previous);
    const winR = winROf(s, window, market);
    const k = Math.min(expectedWinsFor(s, window, market), s.totalEvents);
    const bankroll = Decimal.max(ZERO, base.minus(netSince)).times(exact(s.bankrollPercentage)).dividedBy(100);
    const target = bankroll.times(exact(s.targetProfitPercentage)).dividedBy(100);
    const p = masanielloP(s.totalEvents, k, winR, lossR(s));
    const capital = masanielloStartCapital(bankroll, target, p);
    const reachable = p.greaterThan(0) ? capital.dividedBy(p).minus(capital) : ZERO;
    return {
      startedAt,
      totalEvents: s.totalEvents,
      expectedWins: k,
      eventsLeft: s.totalEvents,
      winsNeeded: k,
      winR,
      startCapital: capital,
      capital,
      net: ZERO,
      target: Decimal.min(target, reachable),
      ended: null,
    };
  };

  let series = start(after, [], netOfAll);
  let current: MasanielloTrade[] = [];
  let netBefore = ZERO;
  let lossesInRow = 0;
  for (const trade of seriesTrades) {
    const outcome = outcomeOf(s, trade, market, series.winR);
    const result = exact(trade.result);
    netBefore = netBefore.plus(result);
    current = [...current, trade];
    if (outcome === 'breakEven' && s.excludeBreakEvenTrades) {
      series = { ...series, capital: series.capital.plus(result), net: series.net.plus(result) };
      continue;
    }
    lossesInRow = outcome === 'loss' ? lossesInRow + 1 : 0;
    const next = {
      ...series,
      capital: series.capital.plus(result),
      net: series.net.plus(result),
      eventsLeft: series.eventsLeft - 1,
      winsNeeded: series.winsNeeded - (outcome === 'win' ? 1 : 0),
    };
    const end: { why: string; restart: boolean } | null =
      next.winsNeeded <= 0
        ? { why: `${series.expectedWins} of ${series.expectedWins} wins reached`, restart: s.resetOnTargetReached }
        : next.net.greaterThanOrEqualTo(series.target) && series.target.greaterThan(0)
          ? { why: `the target profit ${toNumber(series.target)} reached`, restart: s.resetOnTargetReached }
          : next.capital.lessThanOrEqualTo(0)
            ? { why: 'the bankroll is depleted', restart: s.resetOnBankrollDepleted }
            : s.maxConsecutiveLosses > 0 && lossesInRow >= s.maxConsecutiveLosses
              ? { why: `${lossesInRow} losses in a row`, restart: true }
              : next.eventsLeft === 0 || next.winsNeeded > next.eventsLeft
                ? {
                    why: next.eventsLeft === 0 ? `all ${series.totalEvents} events used` : `${next.winsNeeded} wins needed in ${next.eventsLeft} events left`,
                    restart: s.autoResetOnSeriesComplete,
                  }
                : null;
    if (end === null) {
      series = next;
      continue;
    }
    if (!end.restart) return { ...next, ended: { at: trade.closedAt, why: end.why } };
    series = start(trade.closedAt, current, netOfAll.minus(netBefore));
    current = [];
    lossesInRow = 0;
  }
  return series;
};

// ---------------------------------------------------------------------------------------------- feature

/** The series' trades of one slave symbol, oldest close first. */
const tradesOf = (history: readonly CopyRecord[], symbol: string): MasanielloTrade[] =>
  history
    .filter((r): r is CopyRecord & { closedAt: string; result: number } => r.closedAt !== null && r.result !== null && sameSymbol(r.symbol, symbol))
    .map((r) => ({
      closedAt: r.closedAt,
      result: r.result,
      volume: r.volume,
      closePrice: r.closePrice ?? null,
      ...(r.partials ? { partials: r.partials } : {}),
    }))
    .sort((a, b) => Date.parse(a.closedAt) - Date.parse(b.closedAt));

/** When this symbol's series last started over by the endpoint: the later of its own reset and the reset of all. */
const lastReset = (resets: Readonly<Record<string, string>>, symbol: string): string | null =>
  Object.entries(resets)
    .filter(([key]) => key === '*' || sameSymbol(key, symbol))
    .map(([, at]) => at)
    .reduce<string | null>((latest, at) => (latest === null || Date.parse(at) > Date.parse(latest) ? at : latest), null);

const marketOf = (spec: SymbolSpec, pointValue: number | null | undefined): MasanielloMarket => ({
  pointValue: pointValue && pointValue > 0 ? exact(pointValue) : exact(spec.contractSize).times(exact(spec.point)),
  contractSize: spec.contractSize,
});

/** The series and the lot of the next open, or why there is none. */
export const masanielloLot = (
  s: MasanielloMembers,
  ctx: Pick<OpenContext, 'history' | 'slaveSymbol' | 'slaveSpec' | 'resets' | 'slaveAccount' | 'pointValue' | 'now'>,
): { readonly lot: Decimal; readonly series: MasanielloSeries } | { readonly skip: ReturnType<typeof skip> } => {
  const market = marketOf(ctx.slaveSpec, ctx.pointValue);
  if (market.pointValue.lessThanOrEqualTo(0)) {
    return { skip: skip('SYMBOL_SPEC_INVALID', `${ctx.slaveSymbol}: no value of a point to turn the Masaniello stake into lots`) };
  }
  if (!ctx.slaveAccount)
    return { skip: skip('MASANIELLO_SERIES_OVER', `${ctx.slaveSymbol}: the slave account's figures are not known, so there is no Masaniello bankroll`) };
  const series = masanielloSeries(s, tradesOf(ctx.history, ctx.slaveSymbol), ctx.slaveAccount, market, lastReset(ctx.resets, ctx.slaveSymbol));
  if (series.ended) {
    return {
      skip: skip(
        'MASANIELLO_SERIES_OVER',
        `the Masaniello series of ${ctx.slaveSymbol} ended at ${series.ended.at} (${series.ended.why}); it starts again after a reset`,
      ),
    };
  }
  if (series.startedAt !== null && s.cooldownAfterResetMinutes > 0) {
    const until = Date.parse(series.startedAt) + s.cooldownAfterResetMinutes * 60_000;
    if (Date.parse(ctx.now) < until) {
      return {
        skip: skip(
          'MASANIELLO_COOLDOWN',
          `the Masaniello series of ${ctx.slaveSymbol} starts again at ${new Date(until).toISOString()} (cooldownAfterResetMinutes)`,
        ),
      };
    }
  }
  const share = masanielloStakeShare(series.eventsLeft, series.winsNeeded, series.winR, lossR(s));
  const stake = series.capital.times(share);
  const lots = stake.dividedBy(exact(s.assumedPointRisk).times(market.pointValue));
  return { lot: roundLot(lots, exact(s.lotStep), s.lotRoundingMode, exact(s.minimumLotSize), exact(s.maximumLotSize)), series };
};

const check = (s: MasanielloMembers): string | null => {
  if (s.expectedWins > s.totalEvents) return `expectedWins ${s.expectedWins} is above totalEvents ${s.totalEvents}`;
  if (s.maxExpectedWins !== undefined && s.minExpectedWins > s.maxExpectedWins) {
    return `minExpectedWins ${s.minExpectedWins} is above maxExpectedWins ${s.maxExpectedWins}`;
  }
  if (s.minimumLotSize > s.maximumLotSize) return `minimumLotSize ${s.minimumLotSize} is above maximumLotSize ${s.maximumLotSize}`;
  if (s.expectedLossRMultiple === 0) return 'expectedLossRMultiple must be below 0: a series needs a loss to size against';
  return null;
};

export const masaniello: CopierFeature<MasanielloSettings> = {
  type: 'FeatureMasanielloDTO',
  scopes: ['copier'],
  multiple: false,
  members: withSymbols,
  defaults: { ...MASANIELLO_DEFAULTS, symbolsConfiguration: {} },
  stateMembers: ['autoTuneBoundsValid', 'expectedWinsValid'],
  description:
    'Masaniello money management, one series per slave symbol: totalEvents trades (N) of which expectedWins (K) are expected to win. A win pays w R and a loss costs l R: w is expectedRMultiple (payoutModel R_MULTIPLE), expectedPayoutFactor (PAYOUT_FACTOR) or the mean R of the won trades in the statistics window (REALIZED_R), l = -expectedLossRMultiple. With p = l / (w + l) and P(n, k) the chance of at least k wins in n at p, the next stake is R = c x (P(n-1, k-1) - P(n-1, k)) / ((w + l) x P(n, k)), n events left, k wins needed, c the capital at risk left: it brings the series to its target after k wins whatever the order, and loses c after n - k + 1 losses. ' +
    'The bankroll B is bankrollPercentage % of bankrollBase (BALANCE, EQUITY, FREE_MARGIN) at the series start (the base now less the series net results); the target X = targetProfitPercentage % of B; a series starts with c = min(B, X P(N, K) / (1 - P(N, K))) and moves by the real net results. ' +
    "Lots = R / (assumedPointRisk x the value of one point of one lot in the account's currency, from the slave's broker), rounded to lotStep by lotRoundingMode, bounded by minimumLotSize and maximumLotSize; the lot replaces the copier's sizing (martingale off) and the copier's maxLotSize, the broker's limits and maximumLot apply after. " +
    "A closed copy counts by outcomePolicy: SIGN, THRESHOLD (winThresholdPercentage of the trade's risk, notional or an absolute amount, winThresholdBase; as much below 0 loses) or R_BASED (half the expected win or loss in R); break-even trades use no event with excludeBreakEvenTrades; a trade with partial closes counts by partialWinPolicy (IGNORE: its net result; a partial close in profit makes it a win with COUNT_AS_WIN, a loss with COUNT_AS_LOSS; PROPORTIONAL: by the volume closed in profit against the volume closed in loss; the partial closes are those the slave's broker reported for the copy). " +
    'A series ends when its events are used or the wins can no longer come (autoResetOnSeriesComplete), at K wins or the target (resetOnTargetReached), with no capital left (resetOnBankrollDepleted), or at maxConsecutiveLosses losses in a row (> 0; always a new series). A flag true starts a new series at the next trade, after cooldownAfterResetMinutes (MASANIELLO_COOLDOWN); false skips opens with MASANIELLO_SERIES_OVER until PUT /accounts/{accountId}/masaniello/{masanielloFeatureId}/reset (one symbol or all; copies closed before it no longer count). ' +
    'useHistoricalWinRate: with minimumTradesForHistoricalWinRate wins and losses of the symbol in the statistics window (statisticsLookBackDays before the series start; 0 = the previous series), K = round(N x ((1 - s) K / N + s h)) for win rate h and winRateSmoothingFactor s, within minExpectedWins..maxExpectedWins. autoTuneBoundsValid and expectedWinsValid are read-only and always true. Every member may be set per symbol in symbolsConfiguration.',
  check: (s) => checkSymbolsConfiguration(s, check),
  rules: perSymbolRules<MasanielloMembers>({
    needs: ['margin', 'pointValue'],
    filterOpen: (s, ctx) => {
      const decided = masanielloLot(s, ctx);
      if ('skip' in decided) return decided.skip;
      if (decided.lot.lessThanOrEqualTo(0)) return skip('MASANIELLO_SERIES_OVER', `the Masaniello stake of ${ctx.slaveSymbol} rounds to 0 lots`);
      return null;
    },
    sizing: (s, copier, ctx): CopierSettings => {
      const decided = masanielloLot(s, ctx);
      return 'skip' in decided ? copier : { ...copier, scaleType: 'FIXED_LOT', fixedLotSize: toNumber(decided.lot), martingaleStrategy: false };
    },
  }),
};
