// PerformanceMetricsDTO with its parts (ScoreBreakdownDTO, PeriodPerformanceDTO, DirectionPerformanceDTO,
// SymbolAnalyticsDTO) and DataCollectorRecordDTO. Definitions of the figures: domain/analytics/metrics.ts,
// repeated in the OpenAPI text of the endpoint.
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateOrDateTime, IsoDateTime, Nullable } from '../shared/schemas.js';
import { PositionDTO } from '../trading/schemas.js';

const Money = (description: string) => Type.Number({ description });
const Percent = (description: string) => Type.Number({ description: `${description} (percent)` });
const NumberMap = (description: string) => Type.Record(Type.String(), Type.Number(), { description });
const CountMap = (description: string) => Type.Record(Type.String(), Type.Integer(), { description });

export const PeriodPerformanceDTO = Type.Object(
  { label: Type.String({ description: 'YYYY-MM-DD, YYYY-Www (ISO week) or YYYY-MM' }), netProfit: Type.Number() },
  { $id: 'PeriodPerformanceDTO', additionalProperties: false },
);

const Points = (description: string) => Type.Number({ readOnly: true, description });

/** The reference's parts of the score (their point ranges); how each is earned: SCORE_FORMULA in the endpoint's description. */
export const ScoreBreakdownDTO = Type.Object(
  {
    profitFactorScore: Points('0 to 12 points: 12 x c((profitFactor - 1) / 2)'),
    winRateScore: Points('0 to 8 points: 8 x c(winRate / 80)'),
    maxDrawdownScore: Points('0 to 12 points: 12 x c(1 - maxDrawdown / 50)'),
    recoveryFactorScore: Points('0 to 10 points: 10 x c(net profit / deepest drawdown in money / 3)'),
    riskRewardScore: Points('0 to 7 points: 7 x c(avgRiskReward / 2)'),
    expectancyScore: Points('0 to 5 points: 5 x c(2 x expectancy / |avgLoss|)'),
    consistencyScore: Points('0 to 6 points: 6 x equityCurveSmoothness when the net profit is positive'),
    totalTradesScore: Points('0 to 4 points: 4 x c(trades / 100)'),
    monthsActiveScore: Points('0 to 2 points: 2 x c(monthsActive / 12)'),
    accountTypeScore: Points('0 to 8 points: 8 live, 4 prop firm, 0 demo'),
    diversificationScore: Points('0 to 8 points: instruments and asset classes'),
    accountBalanceScore: Points('0 to 7 points, live accounts only: 7 x c(balance / 10000)'),
    martingalePenalty: Points('0 to -6 points: lots raised after losses'),
    overtradingPenalty: Points('0 to -5 points: more than 20 trades per trading day'),
    isLiveAccount: Type.Boolean({ readOnly: true, description: 'the broker reports a live (not demo) account; an account not connected counts as not live' }),
    uniqueInstruments: Type.Integer({ readOnly: true, description: 'symbols traded in the range' }),
    uniqueAssetClasses: Type.Integer({
      readOnly: true,
      description: 'asset classes traded (forex, metals, energies, crypto, indices, other), told by the symbol name',
    }),
  },
  { $id: 'ScoreBreakdownDTO', additionalProperties: false, readOnly: true },
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
    accountType: Type.Optional(
      Type.Object({ id: Type.Integer(), name: Type.String() }, { description: "AccountTypeDTO: the account's platform type (GET /types/accountTypes)" }),
    ),
    broker: Type.Optional(Type.String({ description: 'the broker: the server the account logs in to (loginServer)' })),
    currency: Type.Optional(
      Type.String({
        description:
          "the account currency: the broker's while connected, else the simulated venue's (USD), where every account trades until real adapters arrive",
      }),
    ),
    score: Type.Integer({ minimum: 0, maximum: 100, readOnly: true, description: 'the points of scoreBreakdown over 89, as a percentage, rounded' }),
    scoreBreakdown: ScoreBreakdownDTO,
    totalTrades: Type.Integer({ description: 'closed volumes in the range: a position closed in parts counts each part' }),
    firstTradeAt: Type.Optional(IsoDateTime),
    lastTradeAt: Type.Optional(IsoDateTime),
    monthsActive: Type.Integer({ description: "calendar months from firstTradeAt's to lastTradeAt's, both counted; 0 without trades" }),
    winningTrades: Type.Integer({ description: 'result (profit + swap + commission) above 0' }),
    losingTrades: Type.Integer({ description: 'result below 0' }),
    breakevenTrades: Type.Integer({ description: 'result exactly 0' }),
    winRate: Percent('winning trades / trades'),
    netProfit: Money('sum of results'),
    grossProfit: Money('sum of winning results'),
    grossLoss: Money('sum of losing results (0 or negative)'),
    profitFactor: Type.Optional(Type.Number({ description: 'gross profit / |gross loss|; left out without losses (the reference has no null)' })),
    totalNetProfit: Money('sum of results (= netProfit)'),
    avgNetProfitPerTrade: Money('net profit / trades'),
    expectancy: Money('win rate x avgWin + loss rate x avgLoss: the mean result per trade'),
    largestWin: Money('the best result (0 without wins)'),
    largestLoss: Money('the worst result, negative (0 without losses)'),
    avgRiskReward: Type.Number({ description: 'avgWin / |avgLoss|; 0 without a win or without a loss' }),
    longestWinStreak: Type.Integer({ description: 'most wins in a row, by close time; a break-even ends a streak' }),
    longestLossStreak: Type.Integer({ description: 'most losses in a row' }),
    avgHoldingTimeSeconds: Type.Integer({ description: 'mean seconds from open to close, rounded' }),
    avgWin: Money('mean winning result'),
    avgLoss: Money('mean losing result'),
    avgLotSize: Type.Number({ description: 'mean lots per trade' }),
    maxLotSize: Type.Number({ description: 'largest lots of a trade' }),
    avgCommissionPerTrade: Money('mean commission'),
    avgSwapPerTrade: Money('mean swap'),
    totalSwap: Money('sum of swaps'),
    totalCommission: Money('sum of commissions (ours; = totalCommissions)'),
    totalCommissions: Money('sum of commissions, negative = paid'),
    totalLotSize: Type.Number({ description: 'sum of the lots of every trade' }),
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
    tradesPerDay: CountMap('trades closed per day (YYYY-MM-DD)'),
    tradesPerSymbol: CountMap('trades per symbol'),
    dailyBalance: NumberMap('end-of-day balance (YYYY-MM-DD), every day from the first to the last trade or balance operation of the range'),
    dailyEquity: NumberMap('end-of-day equity: the last data-collector sample of each day when the range has at least two, else the balance'),
    profitAmountPerMonth: NumberMap('net result per month (YYYY-MM) of the close'),
    avgProfitPerMonth: NumberMap('mean result per trade per month (YYYY-MM)'),
    profitPercentagePerMonth: NumberMap("net result per month in percent of the balance at the month's start plus its deposits"),
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
    id: Type.String({ readOnly: true, description: 'the sample: the id of its AccountSampled event (uuid)' }),
    accountId: Type.String({ format: 'uuid', readOnly: true }),
    timestamp: Type.Integer({ readOnly: true, description: 'epoch milliseconds: the start of the interval the sample was taken in' }),
    balance: Type.Optional(Type.Number({ readOnly: true, description: 'balance (closed positions only); absent when recordBalance was false' })),
    equity: Type.Optional(Type.Number({ readOnly: true, description: 'equity, the open positions included; absent when recordEquity was false' })),
    floatingPnL: Type.Optional(
      Type.Number({
        readOnly: true,
        description:
          "the open positions' profit with swap: equity - balance - credit (the reference says equity - balance; the two differ only by a credit); absent when recordFloatingPnL was false",
      }),
    ),
    margin: Type.Number({ readOnly: true, description: 'ours, beside the reference: used margin (scaled too under normalizeValues)' }),
  },
  { $id: 'DataCollectorRecordDTO', additionalProperties: false },
);

/** The most ids one report takes (ours: the reference gives no bound). */
export const MAX_REPORT_IDS = 100;

export const ReportPerformanceParametersDTO = Type.Object(
  {
    id: Type.Array(Type.String({ format: 'uuid' }), {
      maxItems: MAX_REPORT_IDS,
      description: `the accounts, projects or features (idType) to report on; at most ${MAX_REPORT_IDS}; an id the caller cannot reach gives 404`,
    }),
    idType: Type.Union([Type.Literal('ACCOUNT'), Type.Literal('PROJECT'), Type.Literal('FEATURE')], {
      description:
        "ACCOUNT: those accounts; PROJECT: every account of the project (the caller's own; needs a project-level key); FEATURE: the account a feature is attached to, a copier feature's slave account, every account of the project for a project feature",
    }),
    start: Type.String({ format: 'date-time', description: 'ISO 8601: trades closed at or after it' }),
    stop: Type.String({ format: 'date-time', description: 'ISO 8601: trades closed at or before it; the figures stand as at it' }),
  },
  { $id: 'ReportPerformanceParametersDTO', additionalProperties: false },
);

export const AccountPerformanceDTO = Type.Object(
  {
    accountId: Type.String({ format: 'uuid', readOnly: true }),
    date: Type.String({
      format: 'date-time',
      readOnly: true,
      description: "the time the figures stand at: the report's stop (ours: no daily capture, the history answers for any time)",
    }),
    balance: Type.Number({ readOnly: true, description: 'every balance operation and trade result up to stop' }),
    equity: Type.Number({ readOnly: true, description: 'the last data-collector sample within start..stop; without one, the balance' }),
    currentDrawdown: Type.Number({
      readOnly: true,
      description: "percent below the balance's peak at stop (deposits and withdrawals move the peak, as in performanceMetrics)",
    }),
    currency: Type.String({ readOnly: true, description: "the account currency: the broker's while connected, else USD (the simulated venue's)" }),
    customerEmail: Type.Optional(Type.String({ readOnly: true, description: 'never sent: the service keeps no customer e-mail addresses' })),
    deleted: Type.Boolean({ readOnly: true }),
    history: Type.Array(PositionDTO, { readOnly: true, description: 'the trades closed within start..stop, by close time, from the history read model' }),
    netProfits: Type.Record(Type.String(), Type.Record(Type.String(), Type.Number()), {
      readOnly: true,
      description: "net result of the trades closed within start..stop: by year, then by month (1 = January) of the close in the service's TIME_ZONE",
    }),
  },
  {
    $id: 'AccountPerformanceDTO',
    additionalProperties: false,
  },
);

export const ReportPerformanceDTO = Type.Object(
  {
    accounts: Type.Array(AccountPerformanceDTO, {
      readOnly: true,
      description: 'one entry per account, in the order of the ids; an account reached twice is listed once',
    }),
  },
  { $id: 'ReportPerformanceDTO', additionalProperties: false },
);
