// The Trading API's DTOs (spec: "PositionDTO and PositionRequestDTO", "AccountInformationDTO",
// "MarketQuoteDTO"). Order types use the spec's spelling: Buy, Sell, BuyLimit, SellLimit, BuyStop,
// SellStop. Volumes are lots; prices are the symbol's prices; money is the account's currency.
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';
import { ProfitTargetLockDTO, ProfitTargetStatusDTO, RiskLimitHitDTO, RiskLimitStatusDTO } from '../riskLimits/schemas.js';

export const orderTypes = ['Buy', 'Sell', 'BuyLimit', 'SellLimit', 'BuyStop', 'SellStop'] as const;

export const OrderTypeDTO = Type.Union(
  orderTypes.map((t) => Type.Literal(t)),
  {
    description: 'Buy and Sell open at the market; BuyLimit, SellLimit, BuyStop and SellStop are pending orders',
  },
);

const Price = Type.Number({ exclusiveMinimum: 0, maximum: 1e9 });
const Lots = Type.Number({ exclusiveMinimum: 0, maximum: 1e6, description: 'lots' });

export const PositionRequestDTO = Type.Object(
  {
    symbol: Type.String({ minLength: 1, maxLength: 64, description: "the broker's symbol name (GET .../symbols/{symbol})" }),
    orderType: OrderTypeDTO,
    volume: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e6,
      description: "lots; a multiple of the symbol's volume step within its minimum and maximum, or 400 [INVALID_VOLUME]",
    }),
    openPrice: Type.Optional(
      Nullable(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 1e9,
          description:
            'pending orders: the trigger price (required); limits below (buy) or above (sell) the market, stops beyond it, at least the stops level away, or 400 [INVALID_PRICE]. Ignored for Buy and Sell',
        }),
      ),
    ),
    stopLoss: Type.Optional(
      Nullable(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 1e9,
          description:
            'absolute price; with relativeTpSl a distance in points from the entry. On the losing side at least the stops level from the market (positions) or the open price (pending), or 400 [INVALID_STOPS]',
        }),
      ),
    ),
    takeProfit: Type.Optional(
      Nullable(
        Type.Number({
          exclusiveMinimum: 0,
          maximum: 1e9,
          description: 'absolute price; with relativeTpSl a distance in points from the entry; on the winning side, as stopLoss',
        }),
      ),
    ),
    comment: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    magicNumber: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }))),
    pendingExpirySeconds: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 0,
          maximum: 31_536_000,
          description:
            'native expiry of a pending order, seconds from now; pending orders only, on platform types 1 and 2; 0 or omitted = good till cancelled; ignored for market orders and other types',
        }),
      ),
    ),
    relativeTpSl: Type.Optional(
      Type.Boolean({
        description:
          'when true, stopLoss and takeProfit are distances in points from the entry (the ask for Buy, the bid for Sell, openPrice for pending orders). Platform type 5 only; elsewhere 400 [RELATIVE_TP_SL_NOT_SUPPORTED]',
      }),
    ),
  },
  { $id: 'PositionRequestDTO', additionalProperties: false },
);

export const PositionUpdateDTO = Type.Object(
  {
    volume: Type.Optional(
      Type.Number({ ...Lots, description: 'lots; lower than the open volume closes the difference (partial close); pending orders: the new volume' }),
    ),
    openPrice: Type.Optional(Type.Number({ ...Price, description: 'pending orders only: the new trigger price' })),
    stopLoss: Type.Optional(Nullable(Type.Number({ ...Price, description: 'absolute price; null removes it' }))),
    takeProfit: Type.Optional(Nullable(Type.Number({ ...Price, description: 'absolute price; null removes it' }))),
  },
  {
    $id: 'PositionUpdateDTO',
    additionalProperties: false,
    description: 'The PositionRequestDTO members that can change: volume, openPrice, stopLoss, takeProfit. Any other member gives 400.',
  },
);

export const PositionDTO = Type.Object(
  {
    id: Type.String({ description: 'position or pending order id (ticket) at the broker' }),
    symbol: Type.String(),
    orderType: OrderTypeDTO,
    volume: Type.Number({ description: 'lots (history: the closed volume)' }),
    openPrice: Type.Number({ description: 'fill price, or the trigger price of a pending order; netting: the average' }),
    openTime: IsoDateTime,
    stopLoss: Nullable(Type.Number()),
    takeProfit: Nullable(Type.Number()),
    profit: Nullable(
      Type.Number({
        description: 'floating (open) or realised (history) profit, without swap and commission; 0 for pending orders; null while the account is not connected',
      }),
    ),
    swap: Nullable(Type.Number()),
    commission: Nullable(Type.Number({ description: 'negative = paid' })),
    comment: Nullable(Type.String()),
    magicNumber: Nullable(Type.Integer()),
    currentPrice: Type.Optional(
      Nullable(
        Type.Number({ description: 'open positions: the close side of the market (bid for Buy, ask for Sell); pending orders: the side they trigger on' }),
      ),
    ),
    expiry: Type.Optional(Nullable(IsoDateTime)),
    closePrice: Type.Optional(Type.Number({ description: 'history only' })),
    closeTime: Type.Optional(IsoDateTime),
    closeReason: Type.Optional(
      Type.Union([Type.Literal('manual'), Type.Literal('stopLoss'), Type.Literal('takeProfit'), Type.Literal('stopOut')], { description: 'history only' }),
    ),
    closeTradeId: Type.Optional(Type.String({ description: 'history only: the closing deal; a position closed in parts has one entry per part' })),
  },
  { $id: 'PositionDTO', additionalProperties: false },
);

export const HistoryQuery = Type.Object(
  {
    start: Type.String({ format: 'date-time', description: 'ISO 8601; closes at or after it (required)' }),
    stop: Type.String({ format: 'date-time', description: 'ISO 8601; closes at or before it (required)' }),
  },
  { additionalProperties: false },
);

export const DeleteQuery = Type.Object(
  {
    pendingOnly: Type.Optional(
      Type.Boolean({ default: false, description: 'true: cancel only if still pending; a filled position is left untouched (no-op)' }),
    ),
  },
  { additionalProperties: false },
);

export const PositionParams = Type.Object(
  { accountId: Uuid, positionId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:-]+$' }) },
  { additionalProperties: false },
);

export const SymbolParams = Type.Object(
  { accountId: Uuid, symbol: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._#!+-]+$' }) },
  { additionalProperties: false },
);

export const SymbolInfoDTO = Type.Object(
  {
    symbol: Type.String(),
    description: Type.String(),
    digits: Type.Integer({ description: 'decimals of prices' }),
    point: Type.Number({ description: '10^-digits, also the tick size' }),
    contractSize: Type.Number({ description: 'units of the base asset per lot' }),
    minVolume: Type.Number({ description: 'lots' }),
    maxVolume: Type.Number({ description: 'lots' }),
    volumeStep: Type.Number({ description: 'lots' }),
    stopsLevel: Type.Integer({ description: 'minimum distance in points of stops and pending prices from the market' }),
    baseCurrency: Type.String(),
    profitCurrency: Type.String(),
    marginCurrency: Type.String(),
    commissionPerLot: Type.Number({ description: 'account currency per lot, charged when volume opens' }),
    swapLong: Type.Number({ description: 'points per lot per day' }),
    swapShort: Type.Number({ description: 'points per lot per day' }),
  },
  { $id: 'SymbolInfoDTO', additionalProperties: false },
);

export const QuoteQuery = Type.Object(
  { includeSymbolInfo: Type.Optional(Type.Boolean({ default: false, description: 'true fills symbolInfo' })) },
  { additionalProperties: false },
);

export const MarketQuoteDTO = Type.Object(
  {
    symbol: Type.String(),
    bid: Type.Number(),
    ask: Type.Number(),
    timestamp: IsoDateTime,
    symbolInfo: Nullable(SymbolInfoDTO),
  },
  { $id: 'MarketQuoteDTO', additionalProperties: false },
);

const Money = (description: string) => Nullable(Type.Number({ description: `${description}; null while the account is not connected` }));

export const AccountInformationDTO = Type.Object(
  {
    currency: Nullable(Type.String({ description: 'ISO 4217 code of the account currency; null while not connected' })),
    leverage: Nullable(Type.Number({ description: 'account leverage (100 = 1:100)' })),
    connected: Type.Boolean({ description: 'the account has a live session with its broker' }),
    status: Int32({ description: 'the account status id, as AccountDTO.accountStatusId: 1 New, 2 Active, 3 Stopped, 4 Deleted' }),
    openPositionsCount: Type.Integer(),
    pendingOrdersCount: Type.Integer(),
    balance: Money('balance'),
    equity: Money('balance + credit + floating profit and swap of open positions'),
    credit: Money('credit from the broker'),
    usedMargin: Money('margin held by open positions'),
    freeMargin: Money('equity - used margin'),
    unrealizedProfit: Money('floating profit and swap of open positions'),
    profitToday: Type.Number({ description: 'net result (profit + swap + commission) of the trades closed since 00:00 today in the service TIME_ZONE' }),
    profitThisWeek: Type.Number({ description: 'the same since Monday 00:00 (TIME_ZONE)' }),
    profitThisMonth: Type.Number({ description: 'the same since the first of the month 00:00 (TIME_ZONE)' }),
    avgDrawdown: Type.Number({
      description:
        'percent: the mean depth of the drawdown episodes of the balance curve of closed trades (an episode runs from a peak until a new peak; depth = (peak - balance) / peak; deposits and withdrawals shift the peak and are not results)',
    }),
    maxDrawdown: Type.Number({ description: 'percent: the deepest drawdown episode, as avgDrawdown defines them' }),
    environment: Nullable(
      Type.Union([Type.Literal('LIVE'), Type.Literal('DEMO')], { description: 'null when detection is unsupported for the broker type or not connected' }),
    ),
    isNative: Type.Boolean({ description: 'the account runs in native mode (AccountDTO.nativeMode)' }),
    isHyperactive: Type.Boolean({ description: 'more than 500 trades closed in the last 24 hours' }),
    historyDeactivated: Type.Boolean({ description: 'history fetching is switched off for this account; this service never does' }),
    accountDuplicationInProjectDetected: Type.Boolean({
      description: 'another account of the project (not deleted) has the same loginServer (case-insensitive), loginAccountNumber and accountTypeId',
    }),
    riskLimitsStatus: Type.Array(RiskLimitStatusDTO, {
      description: 'every risk limit of the account (GET .../riskLimits): whether it is hit, and the reference it measures from now',
    }),
    profitTargetsStatus: Type.Array(ProfitTargetStatusDTO, {
      description: 'every profit target feature of the account: whether it is locked, and the reference it measures from now',
    }),
    riskLimitsHit: Type.Array(RiskLimitHitDTO, {
      description:
        'the risk limits hit in force (GET .../riskLimits): while any is, no new trade is copied to the account; each lasts until its period ends (until) or PUT .../riskLimits/{riskLimitId}/reset',
    }),
    profitTargetsLocked: Type.Array(ProfitTargetLockDTO, {
      description:
        'the profit targets locked (account features FeatureDaily/Weekly/MonthlyProfitTargetDTO, FeatureOverallTargetDTO): while any is, no new trade is copied to the account (a per-symbol one: on that symbol)',
    }),
    pendingApprovals: Type.Integer({
      description:
        'master opens waiting for a decision on this account (FeatureApprovalDTO; listed by GET /accounts/{accountId}/approvals); 0 without that feature',
    }),
    positionMismatch: Type.Boolean({
      description: 'as a slave: a live copy whose master position is closed, or a master position still open whose copy the slave closed by itself',
    }),
    openPositions: Type.Array(PositionDTO, { description: 'open positions (not pending orders)' }),
    marginLevel: Nullable(Type.Number({ description: 'equity / used margin x 100; null without margin in use' })),
    marginMode: Nullable(Type.Union([Type.Literal('hedging'), Type.Literal('netting')])),
  },
  { $id: 'AccountInformationDTO', additionalProperties: false },
);

export const LogQuery = Type.Object(
  {
    limit: Type.Optional(Int32({ minimum: 1, maximum: 1000, description: 'the last N entries; default 100, at most 1000' })),
    offset: Type.Optional(Int32({ minimum: 0, description: 'entries skipped from the newest: offset 100 means entries 101 to 200' })),
    start: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601: entries at or after it' })),
    stop: Type.Optional(Type.String({ format: 'date-time', description: 'ISO 8601: entries at or before it' })),
    logTypeId: Type.Optional(
      Int32({ minimum: 1, maximum: 3, description: '1 Error, 2 Warning, 3 Info: that level and the lower ones (3 returns 1, 2 and 3); default 3' }),
    ),
  },
  { additionalProperties: false },
);

export const LogDTO = Type.Object(
  {
    id: Uuid,
    time: IsoDateTime,
    logTypeId: Type.Integer({ description: '1 Error, 2 Warning, 3 Info' }),
    logType: Type.Union([Type.Literal('Error'), Type.Literal('Warning'), Type.Literal('Info')]),
    category: Type.Union([Type.Literal('CONNECTION'), Type.Literal('TRADING'), Type.Literal('COPY'), Type.Literal('BALANCE'), Type.Literal('PROTECTION')], {
      description: 'PROTECTION: risk limits and profit targets (period references, hits, locks, closes, resets)',
    }),
    message: Type.String({ description: 'what happened, in words; for a trade not copied, why' }),
    code: Nullable(Type.String({ description: "skip reason (e.g. VOLUME_BELOW_MINIMUM) or the broker's error code (e.g. [NOT_ENOUGH_MONEY])" })),
    copierId: Nullable(Uuid),
    positionId: Nullable(Type.String({ description: "the position or pending order concerned (for a skip: the master's)" })),
  },
  { $id: 'LogDTO', additionalProperties: false },
);
