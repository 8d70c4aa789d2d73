// The performance score (PerformanceMetricsDTO.score, ScoreBreakdownDTO). The reference names the parts
// and their point ranges only; how each part is earned is ours, written once here and repeated in the
// OpenAPI text of GET .../performanceMetrics (SCORE_FORMULA).
//
// Twelve parts earn points (89 at most), two penalties take points away; the score is the sum over
// 89, as a percentage, clamped to 0..100 and rounded. Without a trade in the range every part is 0.
import { pct } from './rounding.js';

export interface ScoreBreakdown {
  readonly profitFactorScore: number;
  readonly winRateScore: number;
  readonly maxDrawdownScore: number;
  readonly recoveryFactorScore: number;
  readonly riskRewardScore: number;
  readonly expectancyScore: number;
  readonly consistencyScore: number;
  readonly totalTradesScore: number;
  readonly monthsActiveScore: number;
  readonly accountTypeScore: number;
  readonly diversificationScore: number;
  readonly accountBalanceScore: number;
  /** 0 down to -6. */
  readonly martingalePenalty: number;
  /** 0 down to -5. */
  readonly overtradingPenalty: number;
  readonly isLiveAccount: boolean;
  readonly uniqueInstruments: number;
  readonly uniqueAssetClasses: number;
}

/** The most points each part earns (the reference's ranges); they add up to SCORE_POINTS. */
export const PART_POINTS = {
  profitFactorScore: 12,
  winRateScore: 8,
  maxDrawdownScore: 12,
  recoveryFactorScore: 10,
  riskRewardScore: 7,
  expectancyScore: 5,
  consistencyScore: 6,
  totalTradesScore: 4,
  monthsActiveScore: 2,
  accountTypeScore: 8,
  diversificationScore: 8,
  accountBalanceScore: 7,
} as const;
export const SCORE_POINTS = Object.values(PART_POINTS).reduce((a, b) => a + b, 0);
export const PENALTY_POINTS = { martingalePenalty: 6, overtradingPenalty: 5 } as const;

/** Trades per trading day above which overtrading costs points, and how many more cost them all. */
export const OVERTRADING_FREE_PER_DAY = 20;
const OVERTRADING_SPAN_PER_DAY = 30;
/** A trade opened after a loss with at least this many times the loss's lots is a martingale step. */
export const MARTINGALE_STEP = 1.5;
/** The balance that earns every accountBalanceScore point (live accounts only). */
export const FULL_BALANCE = 10_000;

/** What the score reads, unrounded. */
export interface ScoreFacts {
  readonly trades: number;
  readonly netProfit: number;
  readonly grossProfit: number;
  /** Percent. */
  readonly winRate: number;
  /** null without losses. */
  readonly profitFactor: number | null;
  /** Percent of the peak. */
  readonly maxDrawdown: number;
  /** The deepest drawdown in money (0 without one). */
  readonly maxDrawdownAmount: number;
  readonly avgWin: number;
  /** 0 or negative. */
  readonly avgLoss: number;
  /** Mean result per trade. */
  readonly expectancy: number;
  /** R² of the equity curve, 0..1. */
  readonly smoothness: number;
  readonly monthsActive: number;
  readonly tradingDays: number;
  readonly live: boolean;
  readonly propFirm: boolean;
  /** The balance at the end of the range. */
  readonly balance: number;
  readonly uniqueInstruments: number;
  readonly uniqueAssetClasses: number;
  /** Share (0..1) of the trades that followed a loss which were martingale steps. */
  readonly martingaleShare: number;
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

/** The text of the OpenAPI description: the same rules as scoreOf. */
export const SCORE_FORMULA = `Score (0-100): the points of scoreBreakdown's parts (${SCORE_POINTS} at most) plus its penalties, over ${SCORE_POINTS}, as a percentage clamped to 0..100 and rounded; every part is 0 without a trade in the range. c(x) clamps x to 0..1. profitFactorScore = 12 x c((profitFactor - 1) / 2) (no losses: 12 with a profit, else 0); winRateScore = 8 x c(winRate / 80); maxDrawdownScore = 12 x c(1 - maxDrawdown / 50); recoveryFactorScore = 10 x c(recovery factor / 3), recovery factor = net profit / the deepest drawdown in money (0 when the net profit is not positive, 10 without a drawdown); riskRewardScore = 7 x c(avgRiskReward / 2) (no losses: 7 with a win); expectancyScore = 5 x c(2 x expectancy / |avgLoss|) (no losses: 5 with a positive expectancy); consistencyScore = 6 x equityCurveSmoothness when the net profit is positive, else 0; totalTradesScore = 4 x c(trades / 100); monthsActiveScore = 2 x c(monthsActive / 12); accountTypeScore = 8 for a live account, 4 for a prop-firm account, else 0; diversificationScore = 4 x c((uniqueInstruments - 1) / 4) + 4 x c((uniqueAssetClasses - 1) / 2) (classes: forex, metals, energies, crypto, indices, other, told by the symbol's name); accountBalanceScore = 7 x c(balance at the end of the range / ${FULL_BALANCE}) for a live account, else 0; martingalePenalty = -6 x the share of trades following a loss (the next trade opened after the loss closed) that carry at least ${MARTINGALE_STEP} times its lots; overtradingPenalty = -5 x c((trades per trading day - ${OVERTRADING_FREE_PER_DAY}) / ${OVERTRADING_SPAN_PER_DAY}). isLiveAccount: the broker reports a live (not demo) account; accounts not connected count as not live.`;

const NO_TRADES = {
  profitFactorScore: 0,
  winRateScore: 0,
  maxDrawdownScore: 0,
  recoveryFactorScore: 0,
  riskRewardScore: 0,
  expectancyScore: 0,
  consistencyScore: 0,
  totalTradesScore: 0,
  monthsActiveScore: 0,
  accountTypeScore: 0,
  diversificationScore: 0,
  accountBalanceScore: 0,
  martingalePenalty: 0,
  overtradingPenalty: 0,
};

const parts = (f: ScoreFacts): Omit<ScoreBreakdown, 'isLiveAccount' | 'uniqueInstruments' | 'uniqueAssetClasses'> => {
  const hasLosses = f.avgLoss < 0;
  const profitFactor = f.profitFactor === null ? (f.grossProfit > 0 ? 1 : 0) : clamp01((f.profitFactor - 1) / 2);
  const recovery = f.netProfit <= 0 ? 0 : f.maxDrawdownAmount <= 0 ? 1 : clamp01(f.netProfit / f.maxDrawdownAmount / 3);
  const riskReward = hasLosses ? clamp01(f.avgWin / Math.abs(f.avgLoss) / 2) : f.avgWin > 0 ? 1 : 0;
  const expectancy = f.expectancy <= 0 ? 0 : hasLosses ? clamp01((2 * f.expectancy) / Math.abs(f.avgLoss)) : 1;
  const perDay = f.tradingDays === 0 ? 0 : f.trades / f.tradingDays;
  return {
    profitFactorScore: pct(PART_POINTS.profitFactorScore * profitFactor),
    winRateScore: pct(PART_POINTS.winRateScore * clamp01(f.winRate / 80)),
    maxDrawdownScore: pct(PART_POINTS.maxDrawdownScore * clamp01(1 - f.maxDrawdown / 50)),
    recoveryFactorScore: pct(PART_POINTS.recoveryFactorScore * recovery),
    riskRewardScore: pct(PART_POINTS.riskRewardScore * riskReward),
    expectancyScore: pct(PART_POINTS.expectancyScore * expectancy),
    consistencyScore: pct(f.netProfit > 0 ? PART_POINTS.consistencyScore * clamp01(f.smoothness) : 0),
    totalTradesScore: pct(PART_POINTS.totalTradesScore * clamp01(f.trades / 100)),
    monthsActiveScore: pct(PART_POINTS.monthsActiveScore * clamp01(f.monthsActive / 12)),
    accountTypeScore: f.live ? PART_POINTS.accountTypeScore : f.propFirm ? PART_POINTS.accountTypeScore / 2 : 0,
    diversificationScore: pct(4 * clamp01((f.uniqueInstruments - 1) / 4) + 4 * clamp01((f.uniqueAssetClasses - 1) / 2)),
    accountBalanceScore: pct(f.live ? PART_POINTS.accountBalanceScore * clamp01(f.balance / FULL_BALANCE) : 0),
    martingalePenalty: pct(-PENALTY_POINTS.martingalePenalty * clamp01(f.martingaleShare)),
    overtradingPenalty: pct(-PENALTY_POINTS.overtradingPenalty * clamp01((perDay - OVERTRADING_FREE_PER_DAY) / OVERTRADING_SPAN_PER_DAY)),
  };
};

export const scoreOf = (f: ScoreFacts): { score: number; scoreBreakdown: ScoreBreakdown } => {
  const points = f.trades === 0 ? NO_TRADES : parts(f);
  const total = Object.values(points).reduce((a, b) => a + b, 0);
  return {
    score: Math.round(100 * clamp01(total / SCORE_POINTS)),
    scoreBreakdown: { ...points, isLiveAccount: f.live, uniqueInstruments: f.uniqueInstruments, uniqueAssetClasses: f.uniqueAssetClasses },
  };
};

/**
 * The share of trades following a loss that were martingale steps: for each losing trade, the next
 * trade opened at or after its close; a step when that trade carries at least MARTINGALE_STEP times
 * the loss's lots. 0 when no trade followed a loss.
 */
export const martingaleShare = (trades: readonly { volume: number; openTime: string; closeTime: string; result: number }[]): number => {
  const byOpen = [...trades].sort((a, b) => Date.parse(a.openTime) - Date.parse(b.openTime));
  let followed = 0;
  let steps = 0;
  for (const loss of trades) {
    if (loss.result >= 0) continue;
    const next = byOpen.find((t) => t !== loss && Date.parse(t.openTime) >= Date.parse(loss.closeTime));
    if (!next) continue;
    followed++;
    if (next.volume >= MARTINGALE_STEP * loss.volume - 1e-9) steps++;
  }
  return followed === 0 ? 0 : steps / followed;
};
