// The Trading API's DTOs (spec: "PositionDTO and PositionRequestDTO", "AccountInformationDTO",
// "MarketQuoteDTO"). Order types use the spec's spelling: Buy, Sell, BuyLimit, SellLimit, BuyStop,
// SellStop. Volumes are lots; prices are the symbol's prices; money is the account's currency.
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const orderTypes = ['Buy', 'Sell', 'BuyLimit', 'SellLimit', 'BuyStop', 'SellStop'] as const;

export const OrderTypeDTO = Type.Union(
  orderTypes.map((t) => Type.Literal(t)),
  {
    description: 'Buy and Sell open at the market; BuyLimit, SellLimit, BuyStop and SellStop are pending orders',
  },
);

/** A price where 0 means none (stop loss, take profit) or not needed (the open price of a market order). */
const PriceOrZero = (description: string) => Type.Number({ minimum: 0, maximum: 1e9, default: 0, description });

export const REQUEST_ID_MAX = 999;

export const PositionRequestDTO = Type.Object(
  {
    symbol: Type.String({ minLength: 1, maxLength: 20, description: "the broker's symbol name (GET .../symbols)" }),
    orderType: OrderTypeDTO,
    volume: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e6,
      description:
        "In lots. The volume will be automatically adjusted according to the symbol data (reference). Ours: on POST .../positions and .../orders it is rounded down to the symbol's volume step and brought within its minimum and maximum (GET .../symbols): 0.015 on a 0.01 step opens 0.01, 0.001 opens the minimum 0.01, 101 opens the maximum 100. On PUT (the volume of what is open) it is not adjusted: off the step or leaving less than the minimum gives 400 [INVALID_VOLUME]",
    }),
    openPrice: PriceOrZero(
      'Used for pending orders (the trigger price; 0 gives 400 [VALIDATION_FAILED]): limits below (buy) or above (sell) the market, stops beyond it, at least the stops level away, or 400 [INVALID_PRICE]. For Buy and Sell send 0 (any value is ignored). On PUT: pending orders, the new trigger price; positions, 0 or the open price (it cannot change: anything else gives 400 [INVALID_PRICE])',
    ),
    stopLoss: PriceOrZero(
      'A value of 0 means no stop loss (on PUT: removes it). An absolute price; with relativeTpSl a distance in points from the entry. On the losing side at least the stops level from the market (positions) or the open price (pending), or 400 [INVALID_STOPS]',
    ),
    takeProfit: PriceOrZero(
      'A value of 0 means no take profit (on PUT: removes it). An absolute price; with relativeTpSl a distance in points from the entry; on the winning side, as stopLoss',
    ),
    requestId: Type.Integer({
      minimum: 0,
      maximum: REQUEST_ID_MAX,
      description:
        'A client request ID to avoid the request being executed multiple times due to network or client errors. The IDs start at 0 and increment up to 999, then begin again at 0. The same requestId with the same request (method, path and body) on the same account within 2 minutes of its first use is a retry: nothing is placed or changed twice, and it answers as the first time. The same requestId with another request, or after those 2 minutes, is a new request (the IDs wrap). An Idempotency-Key header, when sent, names the request instead.',
    }),
    comment: Type.Optional(
      Type.String({
        maxLength: 20,
        description:
          'An \'API|YOUR_REQUEST_ID|\' is prepended to your comment for tracking purpose (this prefix is only used for the endpoint /rest/api/v1/accounts/{accountId}/positions): POST .../positions with requestId 602 and comment "breakout" opens with the comment "API|602|breakout", without a comment "API|602|". POST .../orders sends the comment as it is; empty or omitted = none',
      }),
    ),
    magicNumber: Type.Optional(
      Type.String({
        maxLength: 19,
        pattern: '^[0-9]*$',
        description:
          'At the moment, only numbers as string are supported: 0 to 9007199254740991 (larger numbers give 400 [VALIDATION_FAILED]); empty or omitted = none',
      }),
    ),
    pendingExpirySeconds: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 0,
          maximum: 31_536_000,
          description:
            'ours (spec 1.2.6): native expiry of a pending order, seconds from now; pending orders only, on platform types 1 and 2; 0 or omitted = good till cancelled; ignored for market orders and other types',
        }),
      ),
    ),
    relativeTpSl: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'when true, stopLoss and takeProfit are distances in points from the entry (the ask for Buy, the bid for Sell, openPrice for pending orders); 0 = none. Platform type 5 only; elsewhere 400 [RELATIVE_TP_SL_NOT_SUPPORTED]. Ignored on PUT',
      }),
    ),
  },
  {
    $id: 'PositionRequestDTO',
    additionalProperties: false,
    description:
      'POST .../positions and .../orders: the order to place. PUT .../positions/{positionId}: only volume, openPrice, stopLoss and takeProfit are read (a lower volume closes the difference); symbol, orderType, comment, magicNumber, relativeTpSl and pendingExpirySeconds are ignored there. Any unknown member gives 400.',
  },
);

export const positionStates = ['Open', 'Pending', 'Closed'] as const;

export const dealTypes = ['DealBuy', 'DealSell'] as const;

export const placedTypes = ['Manually', 'ByExpert', 'OnSL', 'OnTP', 'OnStopOut'] as const;

export const PositionDTO = Type.Object(
  {
    id: Type.String({ description: 'position or pending order id (ticket) at the broker' }),
    symbol: Type.String(),
    orderType: OrderTypeDTO,
    volume: Type.Number({ description: 'lots (history: the closed volume)' }),
    openPrice: Type.Number({ description: 'fill price, or the trigger price of a pending order; netting: the average' }),
    openTime: IsoDateTime,
    stopLoss: Type.Number({ description: '0 = none' }),
    takeProfit: Type.Number({ description: '0 = none' }),
    profit: Nullable(
      Type.Number({
        description:
          'floating (open) or realised (history) profit, without swap and commission; 0 for pending orders. Null only in AccountInformationDTO while the account is not connected',
      }),
    ),
    swap: Nullable(Type.Number({ description: 'null as profit' })),
    commission: Nullable(Type.Number({ description: 'negative = paid; null as profit' })),
    netProfit: Nullable(Type.Number({ description: 'profit + swap + commission; null as profit' })),
    comment: Type.String({
      description: "the comment at the broker, with the 'API|<requestId>|' prefix of a position opened through POST .../positions; empty = none",
    }),
    magicNumber: Type.String({ description: 'the magic number at the broker, as a string; "0" = none' }),
    state: Type.Union(
      positionStates.map((s) => Type.Literal(s)),
      { description: 'Open: an open position; Pending: a pending order; Closed: a closed volume (history)' },
    ),
    dealType: Type.Union(
      dealTypes.map((d) => Type.Literal(d)),
      { description: 'the side of the deal that opened it: DealBuy for Buy, BuyLimit and BuyStop; DealSell for the sell types' },
    ),
    placedType: Type.Union(
      placedTypes.map((p) => Type.Literal(p)),
      {
        description:
          'how it was placed (history: how it was closed when the broker closed it): ByExpert through this service (the Trading API or the copy engine), Manually otherwise; history entries closed by the broker: OnSL, OnTP, OnStopOut',
      },
    ),
    requestId: Type.String({
      description:
        "the PositionRequestDTO.requestId it was opened with through POST .../positions (read from its comment's 'API|<requestId>|' prefix); empty otherwise (POST .../orders, copies, trades placed elsewhere)",
    }),
    clientOrderId: Type.Optional(
      Type.String({
        description:
          "ours: the client order id it was placed with at the broker: this service's trade request id (a copy: its deterministic copy id); empty when it was placed elsewhere",
      }),
    ),
    brokerTimeOpen: Type.String({ description: 'Original time string from the broker (the simulated venue: ISO 8601 UTC)' }),
    brokerTimeClose: Type.Optional(Type.String({ description: 'history only: original time string from the broker' })),
    currentPrice: Type.Optional(
      Nullable(
        Type.Number({
          description: 'ours: open positions, the close side of the market (bid for Buy, ask for Sell); pending orders: the side they trigger on',
        }),
      ),
    ),
    expiry: Type.Optional(Nullable(IsoDateTime)),
    closePrice: Type.Optional(Type.Number({ description: 'history only' })),
    closeTime: Type.Optional(IsoDateTime),
    closeReason: Type.Optional(
      Type.Union([Type.Literal('manual'), Type.Literal('stopLoss'), Type.Literal('takeProfit'), Type.Literal('stopOut')], {
        description: 'ours, history only',
      }),
    ),
    closeTradeId: Type.Optional(Type.String({ description: 'ours, history only: the closing deal; a position closed in parts has one entry per part' })),
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

export const SymbolDTO = Type.Object(
  {
    name: Type.String({ description: "the broker's symbol name" }),
    digits: Int32({ description: 'decimals of prices' }),
    points: Type.Number({ description: 'the size of a point: 10^-digits, also the tick size' }),
    lotSize: Int32({ description: 'units of the base asset per lot (the contract size, rounded)' }),
    minimalVolume: Type.Number({ description: 'lots' }),
    maximalVolume: Type.Number({ description: 'lots' }),
    stepVolume: Type.Number({ description: 'lots' }),
    baseCurrency: Type.String(),
    quoteCurrency: Type.String({ description: 'the currency prices and profits are in' }),
    disabled: Type.Boolean({ description: 'trading the symbol is disabled at the broker; the simulated venue: always false' }),
    tradeType: Type.Union([Type.Literal('REQUEST'), Type.Literal('INSTANT'), Type.Literal('MARKET'), Type.Literal('ECHANGE')], {
      description: "the broker's execution mode (the reference spells exchange ECHANGE); the simulated venue fills at the market: MARKET",
    }),
    description: Type.String({ description: 'ours' }),
    contractSize: Type.Number({ description: 'ours: units of the base asset per lot, unrounded' }),
    stopsLevel: Type.Integer({ description: 'ours: minimum distance in points of stops and pending prices from the market' }),
  },
  { $id: 'SymbolDTO', additionalProperties: false },
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
