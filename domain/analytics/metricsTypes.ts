// The shapes of the performance metrics (spec: PerformanceMetricsDTO) and of their inputs; the formulas
// are in metrics.ts.
import type { ScoreBreakdown } from './score.js';

export interface TradeRecord {
  readonly id: string;
  readonly positionId: string;
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  readonly openTime: string;
  readonly closeTime: string;
  readonly profit: number;
  readonly swap: number;
  readonly commission: number;
}

export interface BalanceRecord {
  readonly id: string;
  readonly time: string;
  /** Positive = deposit, negative = withdrawal. */
  readonly amount: number;
}

export interface SampleRecord {
  readonly time: string;
  readonly balance: number;
  readonly equity: number;
  /** Floating profit and loss of the open positions (equity - balance - credit). */
  readonly floating: number;
}

/** What the account itself adds to its metrics (absent: those members are left out, the score counts it as a demo account). */
export interface AccountFacts {
  readonly accountType: { readonly id: number; readonly name: string };
  /** The broker: its server as the account logs in. */
  readonly broker: string;
  readonly currency: string;
  /** The broker reports a live (not demo) account. */
  readonly live: boolean;
  readonly propFirm: boolean;
}

export interface MetricsInput {
  readonly account?: AccountFacts;
  readonly trades: readonly TradeRecord[];
  readonly balanceOperations: readonly BalanceRecord[];
  readonly samples: readonly SampleRecord[];
  /** ISO bounds of the range, inclusive; null = open. */
  readonly from: string | null;
  readonly to: string | null;
  readonly zone: string;
  readonly dataCollectorEnabled: boolean;
}

export interface PeriodPerformance {
  readonly label: string;
  readonly netProfit: number;
}

export interface DirectionPerformance {
  readonly buyTrades: number;
  readonly sellTrades: number;
  readonly buyWinRate: number;
  readonly sellWinRate: number;
  readonly buyNetProfit: number;
  readonly sellNetProfit: number;
}

export interface SymbolAnalytics {
  readonly symbol: string;
  readonly trades: number;
  readonly winRate: number;
  readonly netProfit: number;
  readonly avgProfitPerTrade: number;
}

export const HOLDING_BUCKETS = ['<1m', '1m-15m', '15m-1h', '1h-4h', '4h-1d', '1d-1w', '>1w'] as const;

export interface PerformanceMetrics {
  readonly accountType?: { readonly id: number; readonly name: string };
  readonly broker?: string;
  readonly currency?: string;
  readonly score: number;
  readonly scoreBreakdown: ScoreBreakdown;
  readonly totalTrades: number;
  /** Open time of the earliest trade, close time of the latest; absent without trades. */
  readonly firstTradeAt?: string;
  readonly lastTradeAt?: string;
  readonly monthsActive: number;
  readonly winningTrades: number;
  readonly losingTrades: number;
  readonly breakevenTrades: number;
  /** Percent of trades that won. */
  readonly winRate: number;
  readonly netProfit: number;
  readonly grossProfit: number;
  /** Negative or 0. */
  readonly grossLoss: number;
  /** grossProfit / |grossLoss|; absent without losses (the reference's number has no null). */
  readonly profitFactor?: number;
  readonly totalNetProfit: number;
  readonly avgNetProfitPerTrade: number;
  readonly expectancy: number;
  readonly largestWin: number;
  readonly largestLoss: number;
  /** avgWin / |avgLoss|; 0 without a win or without a loss. */
  readonly avgRiskReward: number;
  readonly longestWinStreak: number;
  readonly longestLossStreak: number;
  readonly avgHoldingTimeSeconds: number;
  readonly avgWin: number;
  readonly avgLoss: number;
  readonly avgLotSize: number;
  readonly maxLotSize: number;
  readonly avgCommissionPerTrade: number;
  readonly avgSwapPerTrade: number;
  readonly totalSwap: number;
  readonly totalCommission: number;
  readonly totalCommissions: number;
  readonly totalLotSize: number;
  readonly deposits: number;
  readonly withdrawals: number;
  readonly maxDrawdown: number;
  readonly avgDrawdown: number;
  readonly avgRecoveryTimeHours: number | null;
  readonly maxRecoveryTimeHours: number | null;
  readonly timeInDrawdownPercent: number;
  readonly equityCurveSmoothness: number;
  readonly equityVolatility: number;
  readonly tradesPerDay: Readonly<Record<string, number>>;
  readonly tradesPerSymbol: Readonly<Record<string, number>>;
  readonly dailyBalance: Readonly<Record<string, number>>;
  readonly dailyEquity: Readonly<Record<string, number>>;
  readonly profitAmountPerMonth: Readonly<Record<string, number>>;
  readonly avgProfitPerMonth: Readonly<Record<string, number>>;
  readonly profitPercentagePerMonth: Readonly<Record<string, number>>;
  readonly dailyBalanceTransactions: Readonly<Record<string, number>>;
  readonly profitPerHour: Readonly<Record<string, number>>;
  readonly profitPerWeekday: Readonly<Record<string, number>>;
  readonly tradesPerHour: Readonly<Record<string, number>>;
  readonly tradesPerWeekday: Readonly<Record<string, number>>;
  readonly tradesByHoldingBucket: Readonly<Record<string, number>>;
  readonly bestDay: PeriodPerformance | null;
  readonly worstDay: PeriodPerformance | null;
  readonly bestWeek: PeriodPerformance | null;
  readonly worstWeek: PeriodPerformance | null;
  readonly bestMonth: PeriodPerformance | null;
  readonly worstMonth: PeriodPerformance | null;
  readonly directionPerformance: DirectionPerformance;
  readonly symbolAnalytics: readonly SymbolAnalytics[];
  readonly advancedAnalyticsAvailable: boolean;
  readonly dataCollectorEnabled: boolean;
  readonly dataCollectorHistoryStartAt: string | null;
  readonly dataCollectorHistoryEndAt: string | null;
  readonly dataCollectorSamples: number;
  readonly currentEquityDrawdown: number | null;
  readonly currentFloatingPnl: number | null;
  readonly intradayMaxDrawdown: number | null;
  readonly maxCollectorDrawdown: number | null;
  readonly maxFloatingLoss: number | null;
  readonly maxFloatingProfit: number | null;
  readonly peakFloatingPnl: number | null;
  readonly troughFloatingPnl: number | null;
  readonly equityDrawdownPerDay: Readonly<Record<string, number>>;
  readonly floatingPnlPerDay: Readonly<Record<string, number>>;
  readonly balanceEquityDivergencePerDay: Readonly<Record<string, number>>;
}
