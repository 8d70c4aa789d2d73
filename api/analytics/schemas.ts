// PerformanceMetricsDTO with its parts (ScoreBreakdownDTO, PeriodPerformanceDTO, DirectionPerformanceDTO,
// SymbolAnalyticsDTO) and DataCollectorRecordDTO. Definitions of the figures: domain/analytics/metrics.ts,
// repeated in the OpenAPI text of the endpoint.
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateOrDateTime, IsoDateTime, Nullable } from '../shared/schemas.js';

const Money = (description: string) => Type.Number({ description });
const Percent = (description: string) => Type.Number({ description: `${description} (percent)` });
const NumberMap = (description: string) => Type.Record(Type.String(), Type.Number(), { description });

export const PeriodPerformanceDTO = Type.Object(
  { label: Type.String({ description: 'YYYY-MM-DD, YYYY-Www (ISO week) or YYYY-MM' }), netProfit: Type.Number() },
  { $id: 'PeriodPerformanceDTO', additionalProperties: false },
);

export const ScoreBreakdownDTO = Type.Object(
  {
    profitFactor: Type.Number({ description: 'min(100, profit factor / 3 x 100); no losses: 100 with a profit, else 0; weight 30 %' }),
    winRate: Type.Number({ description: 'the win rate; weight 20 %' }),
    drawdown: Type.Number({ description: 'max(0, 100 - 2 x maxDrawdown); weight 25 %' }),
    consistency: Type.Number({ description: 'equityCurveSmoothness x 100; weight 15 %' }),
    experience: Type.Number({ description: 'min(100, trading days / 30 x 100); weight 10 %' }),
  },
  { $id: 'ScoreBreakdownDTO', additionalProperties: false },
);

export const DirectionPerformanceDTO = Type.Object(
  {
    buyTrades: Type.Integer(),
    sellTrades: Type.Integer(),
    buyWinRate: Type.Number(),
    sellWinRate: Type.Number(),
    buyNetProfit: Type.Number(),
    sellNetProfit: Type.Number(),
  },
  { $id: 'DirectionPerformanceDTO', additionalProperties: false },
);

export const SymbolAnalyticsDTO = Type.Object(
  { symbol: Type.String(), trades: Type.Integer(), winRate: Type.Number(), netProfit: Type.Number(), avgProfitPerTrade: Type.Number() },
  { $id: 'SymbolAnalyticsDTO', additionalProperties: false },
);

const Period = Nullable(PeriodPerformanceDTO);
const NullableNumber = (description: string) => Nullable(Type.Number({ description }));

export const PerformanceMetricsDTO = Type.Object(
  {
    score: Type.Integer({ minimum: 0, maximum: 100, readOnly: true, description: 'weighted sum of scoreBreakdown, rounded' }),
    scoreBreakdown: ScoreBreakdownDTO,
    totalTrades: Type.Integer({ description: 'closed volumes in the range: a position closed in parts counts each part' }),
    winningTrades: Type.Integer({ description: 'result (profit + swap + commission) above 0' }),
    losingTrades: Type.Integer({ description: 'result below 0' }),
    breakevenTrades: Type.Integer({ description: 'result exactly 0' }),
    winRate: Percent('winning trades / trades'),
    netProfit: Money('sum of results'),
    grossProfit: Money('sum of winning results'),
    grossLoss: Money('sum of losing results (0 or negative)'),
    profitFactor: NullableNumber('gross profit / |gross loss|; null without losses'),
    avgWin: Money('mean winning result'),
    avgLoss: Money('mean losing result'),
    avgLotSize: Type.Number({ description: 'mean lots per trade' }),
    maxLotSize: Type.Number({ description: 'largest lots of a trade' }),
    avgCommissionPerTrade: Money('mean commission'),
    avgSwapPerTrade: Money('mean swap'),
    totalSwap: Money('sum of swaps'),
    totalCommission: Money('sum of commissions'),
    deposits: Money('sum of deposits in the range'),
    withdrawals: Money('sum of withdrawals in the range (0 or negative)'),
    maxDrawdown: Percent('deepest drawdown of the balance curve: (peak - balance) / peak; deposits and withdrawals move the peak'),
    avgDrawdown: Percent('mean depth of the drawdown episodes (peak to new peak)'),
    avgRecoveryTimeHours: NullableNumber('mean hours from a peak to the next new peak, over recovered episodes; null without one'),
    maxRecoveryTimeHours: NullableNumber('longest such recovery'),
    timeInDrawdownPercent: Percent('time below the peak / time from the first to the last point of the range'),
    equityCurveSmoothness: Type.Number({
      description: 'R² (0..1) of a straight line fitted to the equity curve (samples if at least 2, else the balance curve); 1 = perfectly steady',
    }),
    equityVolatility: Percent('standard deviation of the day-to-day returns of end-of-day equity (samples, else balance); 0 with fewer than 3 days'),
    tradesPerDay: NumberMap('trades closed per day (YYYY-MM-DD)'),
    dailyBalanceTransactions: NumberMap('net deposits and withdrawals per day (YYYY-MM-DD)'),
    profitPerHour: NumberMap('net result per hour of day (0-23) of the close'),
    profitPerWeekday: NumberMap('net result per weekday (MONDAY..SUNDAY) of the close'),
    tradesPerHour: NumberMap('trades per hour of day of the close'),
    tradesPerWeekday: NumberMap('trades per weekday of the close'),
    tradesByHoldingBucket: NumberMap('trades per holding time: <1m, 1m-15m, 15m-1h, 1h-4h, 4h-1d, 1d-1w, >1w'),
    bestDay: Period,
    worstDay: Period,
    bestWeek: Period,
    worstWeek: Period,
    bestMonth: Period,
    worstMonth: Period,
    directionPerformance: DirectionPerformanceDTO,
    symbolAnalytics: Type.Array(SymbolAnalyticsDTO),
    advancedAnalyticsAvailable: Type.Boolean({ description: 'at least two data-collector samples in the range: the equity-based members are filled' }),
    dataCollectorEnabled: Type.Boolean({ description: 'FeatureDataCollectorDTO is on' }),
    dataCollectorHistoryStartAt: Nullable(IsoDateTime),
    dataCollectorHistoryEndAt: Nullable(IsoDateTime),
    dataCollectorSamples: Type.Integer({ description: 'samples in the range' }),
    currentEquityDrawdown: NullableNumber("percent: the last sample's equity below the highest (samples)"),
    currentFloatingPnl: NullableNumber("the last sample's floating P&L"),
    intradayMaxDrawdown: NullableNumber('percent: the deepest equity drawdown within one day (samples)'),
    maxCollectorDrawdown: NullableNumber('percent: the deepest equity drawdown over the samples'),
    maxFloatingLoss: NullableNumber('lowest floating P&L (0 or negative)'),
    maxFloatingProfit: NullableNumber('highest floating P&L (0 or positive)'),
    peakFloatingPnl: NullableNumber('floating P&L at the highest equity sample'),
    troughFloatingPnl: NullableNumber('floating P&L at the lowest equity sample'),
    equityDrawdownPerDay: NumberMap('deepest intraday equity drawdown per day, percent (samples)'),
    floatingPnlPerDay: NumberMap("floating P&L of the day's last sample"),
    balanceEquityDivergencePerDay: NumberMap('largest |equity - balance| of the day (samples)'),
  },
  { $id: 'PerformanceMetricsDTO', additionalProperties: false },
);

export const MetricsQuery = Type.Object(
  {
    startDate: Type.Optional(IsoDateOrDateTime),
    endDate: Type.Optional(IsoDateOrDateTime),
  },
  { additionalProperties: false },
);

export const DataCollectorQuery = Type.Object(
  {
    limit: Type.Optional(Int32({ minimum: -1, description: 'the last N samples (default 10000); -1 = all; 0 is refused' })),
    startTime: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601: samples at or after it' })),
    endTime: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601: samples at or before it' })),
  },
  { additionalProperties: false },
);

export const DataCollectorRecordDTO = Type.Object(
  {
    time: IsoDateTime,
    balance: Type.Number(),
    equity: Type.Number(),
    floatingPnl: Type.Number({ description: "equity - balance - credit: the open positions' profit with swap" }),
    margin: Type.Number({ description: 'used margin' }),
  },
  { $id: 'DataCollectorRecordDTO', additionalProperties: false },
);
