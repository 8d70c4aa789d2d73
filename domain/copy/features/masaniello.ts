// FeatureMasanielloDTO (spec: assumedPointRisk; series reset via endpoint). The Masaniello money
// management: a series of `trades` trades of which `expectedWins` are expected to win at decimal `odds`
// (a win pays the stake x (odds - 1), a loss costs the stake). Each stake is
//
//     stake = capital left x (1 - P(n - 1, k) / P(n, k)),   P(n, k) = sum_{j=k..n} C(n, j) p^j (1 - p)^(n-j)
//
// with n the trades left, k the wins still needed and p = 1 / odds (P(n, 0) = 1, P(n, k) = 0 for k > n):
// the stake that reaches the series' target whatever the order of wins and losses, as long as k of the
// n come. The last trade that must win stakes all that is left.
//   - One series per slave symbol, from this copier's copies of that symbol closed after the last reset
//     of that symbol or of all (PUT /accounts/{accountId}/masaniello/{masanielloFeatureId}/reset
//     [?symbol=]; symbols compared without case), in the order they closed; the engine gives the
//     copier's last 500 copies. A win is a net result (profit + swap + commission) above 0, a loss
//     below 0; the capital left moves by the real results, not by the theoretical ones. A close at
//     exactly 0 (or a cancelled pending order) is not a trade of the series. Copies still open do not
//     count: two opens before a close get the same stake.
//   - A series ends when the wins reach expectedWins, when the wins needed exceed the trades left, or
//     when no capital is left; the next trade starts a new series with `capital` again
//     (restartSeriesAutomatically, default) or, without it, is skipped (MASANIELLO_SERIES_OVER) until
//     the reset endpoint is called.
//   - The stake in money becomes lots through the risk of a trade: lots = stake / (assumedPointRisk x
//     value of one point of one lot), the value of a point being the symbol's contract size x its
//     point. That value is in the symbol's profit currency, which we assume to be the account's
//     currency (true for XXXUSD symbols on a USD account); there is no conversion.
//   - The lot replaces the copier's sizing (scale type FIXED_LOT with that lot; martingale off), so
//     maxLotSize, the broker's limits, forceMinTrade and maximumLot still apply to it.
import { type Static, Type } from '@sinclair/typebox';
import type { CopierSettings } from '../../copier/settings.js';
import { Decimal, exact, ONE, toNumber, ZERO } from '../../shared/decimal.js';
import { closedTrades } from './moneyManagement.js';
import { sameSymbol } from './perSymbol.js';
import { type CopierFeature, type CopyRecord, skip } from './rules.js';

const members = Type.Object({
  capital: Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: "the money a series puts at risk, in the account's currency" }),
  trades: Type.Integer({ minimum: 1, maximum: 100, description: 'trades in a series (N)' }),
  expectedWins: Type.Integer({ minimum: 1, maximum: 100, description: 'wins expected in a series (K, at most trades)' }),
  odds: Type.Number({
    exclusiveMinimum: 1,
    maximum: 100,
    description: 'decimal odds of a trade: a win pays the stake x (odds - 1), a loss costs the stake (default 2: risk 1 to win 1)',
  }),
  assumedPointRisk: Type.Number({
    exclusiveMinimum: 0,
    maximum: 1e7,
    description: 'points a trade risks (its stop distance): lots = stake / (assumedPointRisk x contract size x point)',
  }),
  restartSeriesAutomatically: Type.Boolean({
    description: 'true (default): after a series ends the next trade starts a new one; false: trades are skipped until the series is reset',
  }),
});
export type MasanielloSettings = Static<typeof members>;

/** n! / (j! (n - j)!) for every j, as BigInts. */
const binomials = (n: number): bigint[] => {
  const row = [1n];
  for (let j = 1; j <= n; j++) row.push((row[j - 1]! * BigInt(n - j + 1)) / BigInt(j));
  return row;
};

/** Decimal odds as whole numbers a and b with odds = a/b (2.5 is 25 and 10), so p = b/a. */
const oddsRatio = (odds: Decimal): { readonly a: bigint; readonly b: bigint } => {
  const places = odds.decimalPlaces();
  return { a: BigInt(odds.times(new Decimal(10).pow(places)).toFixed()), b: 10n ** BigInt(places) };
};

/** a^n P(n, k) = sum_{j=k..n} C(n, j) b^j (a - b)^(n-j), a whole number (P(n, 0) = 1, P(n, k) = 0 for k > n). */
const weight = (n: number, k: number, { a, b }: { readonly a: bigint; readonly b: bigint }): bigint => {
  if (k <= 0) return a ** BigInt(Math.max(0, n));
  if (k > n) return 0n;
  const c = binomials(n);
  let sum = 0n;
  for (let j = k; j <= n; j++) sum += c[j]! * b ** BigInt(j) * (a - b) ** BigInt(n - j);
  return sum;
};

const quotient = (numerator: bigint, denominator: bigint): Decimal => new Decimal(numerator.toString()).dividedBy(denominator.toString());

/** P(n, k) for decimal odds a/b: the chance of at least k wins in n at p = b/a, computed in whole numbers and divided once. */
export const masanielloP = (n: number, k: number, odds: Decimal): Decimal => {
  if (k <= 0) return ONE;
  if (k > n) return ZERO;
  const ratio = oddsRatio(odds);
  return quotient(weight(n, k, ratio), ratio.a ** BigInt(n));
};

/** The share of the capital left the next trade stakes: 1 - P(n - 1, k) / P(n, k) = 1 - a W(n - 1, k) / W(n, k), with W = a^n P. */
export const masanielloStakeShare = (tradesLeft: number, winsNeeded: number, odds: Decimal): Decimal => {
  if (winsNeeded <= 0 || winsNeeded > tradesLeft) return ZERO;
  const ratio = oddsRatio(odds);
  const all = weight(tradesLeft, winsNeeded, ratio);
  return quotient(all - ratio.a * weight(tradesLeft - 1, winsNeeded, ratio), all);
};

export interface MasanielloSeries {
  readonly capital: Decimal;
  readonly tradesLeft: number;
  readonly winsNeeded: number;
  /** Set when a series ended and, without automatic restart, nothing is opened until a reset. */
  readonly ended: { readonly at: string; readonly why: string } | null;
}

/** When this symbol's series last started over: the later of its own reset and the reset of all. */
const lastReset = (resets: Readonly<Record<string, string>>, symbol: string): string | null =>
  Object.entries(resets)
    .filter(([key]) => key === '*' || sameSymbol(key, symbol))
    .map(([, at]) => at)
    .reduce<string | null>((latest, at) => (latest === null || Date.parse(at) > Date.parse(latest) ? at : latest), null);

export const masanielloSeries = (
  s: MasanielloSettings,
  history: readonly CopyRecord[],
  symbol: string,
  resets: Readonly<Record<string, string>>,
): MasanielloSeries => {
  const fresh: MasanielloSeries = { capital: exact(s.capital), tradesLeft: s.trades, winsNeeded: s.expectedWins, ended: null };
  let series = fresh;
  for (const trade of closedTrades(history, { symbol, after: lastReset(resets, symbol) })) {
    if (trade.result === 0) continue;
    const capital = series.capital.plus(exact(trade.result));
    const tradesLeft = series.tradesLeft - 1;
    const winsNeeded = series.winsNeeded - (trade.result > 0 ? 1 : 0);
    const why =
      winsNeeded === 0
        ? `${s.expectedWins} of ${s.expectedWins} wins reached`
        : winsNeeded > tradesLeft
          ? `${winsNeeded} wins needed in ${tradesLeft} trades left`
          : capital.lessThanOrEqualTo(0)
            ? 'no capital left'
            : null;
    if (why === null) series = { capital, tradesLeft, winsNeeded, ended: null };
    else if (s.restartSeriesAutomatically) series = fresh;
    else return { capital, tradesLeft, winsNeeded, ended: { at: trade.closedAt, why } };
  }
  return series;
};

export const masaniello: CopierFeature<MasanielloSettings> = {
  type: 'FeatureMasanielloDTO',
  scopes: ['copier'],
  multiple: false,
  members,
  defaults: { odds: 2, restartSeriesAutomatically: true },
  description:
    "Masaniello money management, one series per slave symbol: `trades` trades of which `expectedWins` are expected to win at decimal `odds`. Each stake = capital left x (1 - P(n-1, k) / P(n, k)), with n trades left, k wins still needed and P(n, k) the chance of at least k wins in n at 1/odds; the capital left is `capital` plus the net results of the series' closed copies. A net result above 0 is a win, below 0 a loss; a close at exactly 0 does not count. A series ends at expectedWins wins, when the wins can no longer be reached, or with no capital left; the next trade starts a new series (or, with restartSeriesAutomatically false, is skipped with MASANIELLO_SERIES_OVER until PUT /accounts/{accountId}/masaniello/{masanielloFeatureId}/reset). The reset, for one symbol or all, starts the series over: copies closed before it no longer count. Lots = stake / (assumedPointRisk x contract size x point); the value of a point is taken in the account's currency (the symbol's profit currency is assumed to be the account's). The lot replaces the copier's sizing (martingale off); maxLotSize, the broker's limits and maximumLot still apply.",
  check: (s) => (s.expectedWins > s.trades ? `expectedWins ${s.expectedWins} is above trades ${s.trades}` : null),
  rules: {
    filterOpen: (s, { history, slaveSymbol, slaveSpec, resets }) => {
      if (exact(slaveSpec.contractSize).times(exact(slaveSpec.point)).lessThanOrEqualTo(0)) {
        return skip(
          'SYMBOL_SPEC_INVALID',
          `${slaveSymbol}: no value of a point (contract size ${slaveSpec.contractSize}, point ${slaveSpec.point}) to turn the Masaniello stake into lots`,
        );
      }
      const { ended } = masanielloSeries(s, history, slaveSymbol, resets);
      return ended
        ? skip('MASANIELLO_SERIES_OVER', `the Masaniello series of ${slaveSymbol} ended at ${ended.at} (${ended.why}); it starts again after a reset`)
        : null;
    },
    sizing: (s, copier, { history, slaveSymbol, slaveSpec, resets }): CopierSettings => {
      const series = masanielloSeries(s, history, slaveSymbol, resets);
      const stake = series.capital.times(masanielloStakeShare(series.tradesLeft, series.winsNeeded, exact(s.odds)));
      const riskPerLot = exact(s.assumedPointRisk).times(exact(slaveSpec.contractSize)).times(exact(slaveSpec.point));
      return { ...copier, scaleType: 'FIXED_LOT', fixedLotSize: toNumber(stake.dividedBy(riskPerLot)), martingaleStrategy: false };
    },
  },
};
