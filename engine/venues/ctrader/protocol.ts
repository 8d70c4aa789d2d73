// The cTrader Open API messages the adapter speaks, written once: the client (connection.ts) and the
// fake server of the tests (test/support/fakeCTrader.ts) use these types and numbers.
//
// They follow Spotware's .proto files (github.com/spotware/openapi-proto-messages, OpenApiMessages.proto,
// OpenApiModelMessages.proto, OpenApiCommonMessages.proto) at their July 2025 revision ("Remove some
// payloads", after release 91), read and written down here for the subset we use; field names are the
// .proto names, so a message is the JSON the endpoint takes and answers.
//
// Transport: the JSON endpoint (port 5036 of live.ctraderapi.com / demo.ctraderapi.com) over WebSocket,
// one message per text frame: `{"clientMsgId": "...", "payloadType": 2100, "payload": {...}}`. An answer
// carries the clientMsgId of its request; events carry none (or, for the execution events a request
// caused, the request's). Enumerations travel as their numbers. int64 values may arrive as JSON numbers
// or as strings (protobuf's JSON mapping): read them with `int()`.
//
// Units (the .proto comments):
//   - volumes are in cents of units ("1000 in protocol means 10.00 units"): ProtoOANewOrderReq.volume,
//     ProtoOATradeData.volume, ProtoOADeal.volume/filledVolume, ProtoOASymbol.minVolume/maxVolume/
//     stepVolume/lotSize. One lot of a symbol is `lotSize` cents, so lots = volume / lotSize (toLots).
//   - spot prices (ProtoOASpotEvent.bid/ask) are integers in 1/100 000 of a price unit; execution
//     prices, order prices and SL/TP are doubles.
//   - money (ProtoOATrader.balance, ProtoOAClosePositionDetail.grossProfit/swap/commission, ...) is an
//     integer scaled by 10^moneyDigits (2 when the message does not say).

/** Payload types (ProtoOAPayloadType, ProtoPayloadType): only those the adapter uses. */
export const PT = {
  /** ProtoHeartbeatEvent: either side sends it when it has nothing else to send for a while. */
  HEARTBEAT_EVENT: 51,
  APPLICATION_AUTH_REQ: 2100,
  APPLICATION_AUTH_RES: 2101,
  ACCOUNT_AUTH_REQ: 2102,
  ACCOUNT_AUTH_RES: 2103,
  NEW_ORDER_REQ: 2106,
  CANCEL_ORDER_REQ: 2108,
  AMEND_ORDER_REQ: 2109,
  AMEND_POSITION_SLTP_REQ: 2110,
  CLOSE_POSITION_REQ: 2111,
  ASSET_LIST_REQ: 2112,
  ASSET_LIST_RES: 2113,
  SYMBOLS_LIST_REQ: 2114,
  SYMBOLS_LIST_RES: 2115,
  SYMBOL_BY_ID_REQ: 2116,
  SYMBOL_BY_ID_RES: 2117,
  TRADER_REQ: 2121,
  TRADER_RES: 2122,
  TRADER_UPDATE_EVENT: 2123,
  RECONCILE_REQ: 2124,
  RECONCILE_RES: 2125,
  EXECUTION_EVENT: 2126,
  SUBSCRIBE_SPOTS_REQ: 2127,
  SUBSCRIBE_SPOTS_RES: 2128,
  SPOT_EVENT: 2131,
  ORDER_ERROR_EVENT: 2132,
  DEAL_LIST_REQ: 2133,
  DEAL_LIST_RES: 2134,
  ERROR_RES: 2142,
  CASH_FLOW_HISTORY_LIST_REQ: 2143,
  CASH_FLOW_HISTORY_LIST_RES: 2144,
  ACCOUNTS_TOKEN_INVALIDATED_EVENT: 2147,
  CLIENT_DISCONNECT_EVENT: 2148,
  GET_ACCOUNTS_BY_ACCESS_TOKEN_REQ: 2149,
  GET_ACCOUNTS_BY_ACCESS_TOKEN_RES: 2150,
  REFRESH_TOKEN_REQ: 2173,
  REFRESH_TOKEN_RES: 2174,
  ORDER_LIST_REQ: 2175,
  ORDER_LIST_RES: 2176,
  ACCOUNT_DISCONNECT_EVENT: 2164,
} as const;

/** ProtoOAOrderType. */
export const ORDER_TYPE = { MARKET: 1, LIMIT: 2, STOP: 3, STOP_LOSS_TAKE_PROFIT: 4, MARKET_RANGE: 5, STOP_LIMIT: 6 } as const;
/** ProtoOATimeInForce. */
export const TIME_IN_FORCE = { GOOD_TILL_DATE: 1, GOOD_TILL_CANCEL: 2, IMMEDIATE_OR_CANCEL: 3, FILL_OR_KILL: 4, MARKET_ON_OPEN: 5 } as const;
/** ProtoOATradeSide. */
export const TRADE_SIDE = { BUY: 1, SELL: 2 } as const;
/** ProtoOAExecutionType. */
export const EXECUTION = {
  ORDER_ACCEPTED: 2,
  ORDER_FILLED: 3,
  ORDER_REPLACED: 4,
  ORDER_CANCELLED: 5,
  ORDER_EXPIRED: 6,
  ORDER_REJECTED: 7,
  ORDER_CANCEL_REJECTED: 8,
  SWAP: 9,
  DEPOSIT_WITHDRAW: 10,
  ORDER_PARTIAL_FILL: 11,
} as const;
/** ProtoOAPositionStatus. */
export const POSITION_STATUS = { OPEN: 1, CLOSED: 2, CREATED: 3, ERROR: 4 } as const;
/** ProtoOAOrderStatus. */
export const ORDER_STATUS = { ACCEPTED: 1, FILLED: 2, REJECTED: 3, EXPIRED: 4, CANCELLED: 5 } as const;
/** ProtoOADealStatus. */
export const DEAL_STATUS = { FILLED: 2, PARTIALLY_FILLED: 3, REJECTED: 4, INTERNALLY_REJECTED: 5, ERROR: 6, MISSED: 7 } as const;
/** ProtoOAAccountType. */
export const ACCOUNT_TYPE = { HEDGED: 0, NETTED: 1, SPREAD_BETTING: 2 } as const;

/** An int64 as the endpoint may send it (number or decimal string). */
export type Int64 = number | string;
export const int = (value: Int64 | undefined | null): number => (value === undefined || value === null ? 0 : Number(value));

// ------------------------------------------------------------------ model messages (OpenApiModelMessages.proto)

export interface ProtoOACtidTraderAccount {
  readonly ctidTraderAccountId: Int64;
  readonly isLive?: boolean;
  readonly traderLogin?: Int64;
  readonly brokerTitleShort?: string;
}

export interface ProtoOAAsset {
  readonly assetId: Int64;
  readonly name: string;
  readonly displayName?: string;
  readonly digits?: number;
}

export interface ProtoOALightSymbol {
  readonly symbolId: Int64;
  readonly symbolName?: string;
  readonly enabled?: boolean;
  readonly baseAssetId?: Int64;
  readonly quoteAssetId?: Int64;
  readonly description?: string;
}

/** The full symbol (the fields the adapter reads). Volumes in cents of units. */
export interface ProtoOASymbol {
  readonly symbolId: Int64;
  readonly digits: number;
  readonly pipPosition: number;
  readonly swapLong?: number;
  readonly swapShort?: number;
  readonly maxVolume?: Int64;
  readonly minVolume?: Int64;
  readonly stepVolume?: Int64;
  /** One lot, in cents of units (EURUSD at most brokers: 10 000 000 = 100 000 units). */
  readonly lotSize?: Int64;
  readonly slDistance?: number;
  readonly tpDistance?: number;
  /** ProtoOATradingMode: 0 ENABLED, 1 DISABLED_WITHOUT_PENDINGS_EXECUTION, 2 DISABLED_WITH_PENDINGS_EXECUTION, 3 CLOSE_ONLY_MODE. */
  readonly tradingMode?: number;
}

export interface ProtoOATrader {
  readonly ctidTraderAccountId: Int64;
  readonly balance: Int64;
  readonly depositAssetId: Int64;
  /** 1:50 = 5000. */
  readonly leverageInCents?: number;
  readonly accountType?: number;
  readonly traderLogin?: Int64;
  readonly brokerName?: string;
  /** ms; the earliest time history requests need to reach. */
  readonly registrationTimestamp?: Int64;
  readonly moneyDigits?: number;
}

export interface ProtoOATradeData {
  readonly symbolId: Int64;
  /** Cents of units. */
  readonly volume: Int64;
  readonly tradeSide: number;
  readonly openTimestamp?: Int64;
  readonly label?: string;
  readonly comment?: string;
  readonly closeTimestamp?: Int64;
}

export interface ProtoOAPosition {
  readonly positionId: Int64;
  readonly tradeData: ProtoOATradeData;
  readonly positionStatus: number;
  readonly swap: Int64;
  /** VWAP of the position's executions. */
  readonly price?: number;
  readonly stopLoss?: number;
  readonly takeProfit?: number;
  readonly utcLastUpdateTimestamp?: Int64;
  readonly commission?: Int64;
  readonly moneyDigits?: number;
}

export interface ProtoOAOrder {
  readonly orderId: Int64;
  readonly tradeData: ProtoOATradeData;
  readonly orderType: number;
  readonly orderStatus: number;
  readonly expirationTimestamp?: Int64;
  readonly executionPrice?: number;
  readonly executedVolume?: Int64;
  readonly utcLastUpdateTimestamp?: Int64;
  readonly closingOrder?: boolean;
  readonly limitPrice?: number;
  readonly stopPrice?: number;
  readonly stopLoss?: number;
  readonly takeProfit?: number;
  /** At most 50 characters. */
  readonly clientOrderId?: string;
  readonly positionId?: Int64;
}

export interface ProtoOAClosePositionDetail {
  readonly entryPrice: number;
  readonly grossProfit: Int64;
  readonly swap: Int64;
  readonly commission: Int64;
  readonly balance: Int64;
  /** Cents of units. */
  readonly closedVolume?: Int64;
  readonly moneyDigits?: number;
}

export interface ProtoOADeal {
  readonly dealId: Int64;
  readonly orderId: Int64;
  readonly positionId: Int64;
  readonly volume: Int64;
  readonly filledVolume: Int64;
  readonly symbolId: Int64;
  readonly createTimestamp: Int64;
  readonly executionTimestamp: Int64;
  readonly executionPrice?: number;
  readonly tradeSide: number;
  readonly dealStatus: number;
  readonly commission?: Int64;
  /** Set on a deal that closed volume. */
  readonly closePositionDetail?: ProtoOAClosePositionDetail;
  readonly moneyDigits?: number;
}

// ------------------------------------------------------------------ requests, answers and events (OpenApiMessages.proto)

export interface ProtoOAApplicationAuthReq {
  readonly clientId: string;
  readonly clientSecret: string;
}
export type ProtoOAApplicationAuthRes = Record<string, never>;
export interface ProtoOAGetAccountListByAccessTokenReq {
  readonly accessToken: string;
}
export interface ProtoOAGetAccountListByAccessTokenRes {
  readonly accessToken: string;
  /** ProtoOAClientPermissionScope: 0 SCOPE_VIEW, 1 SCOPE_TRADE. */
  readonly permissionScope?: number;
  readonly ctidTraderAccount?: readonly ProtoOACtidTraderAccount[];
}
export interface ProtoOAAccountAuthReq {
  readonly ctidTraderAccountId: Int64;
  readonly accessToken: string;
}
export interface ProtoOAAccountAuthRes {
  readonly ctidTraderAccountId: Int64;
}
export interface ProtoOATraderReq {
  readonly ctidTraderAccountId: Int64;
}
export interface ProtoOATraderRes {
  readonly ctidTraderAccountId: Int64;
  readonly trader: ProtoOATrader;
}
export interface ProtoOAAssetListReq {
  readonly ctidTraderAccountId: Int64;
}
export interface ProtoOAAssetListRes {
  readonly ctidTraderAccountId: Int64;
  readonly asset?: readonly ProtoOAAsset[];
}
export interface ProtoOASymbolsListReq {
  readonly ctidTraderAccountId: Int64;
  readonly includeArchivedSymbols?: boolean;
}
export interface ProtoOASymbolsListRes {
  readonly ctidTraderAccountId: Int64;
  readonly symbol?: readonly ProtoOALightSymbol[];
}
export interface ProtoOASymbolByIdReq {
  readonly ctidTraderAccountId: Int64;
  readonly symbolId: readonly Int64[];
}
export interface ProtoOASymbolByIdRes {
  readonly ctidTraderAccountId: Int64;
  readonly symbol?: readonly ProtoOASymbol[];
}
export interface ProtoOAReconcileReq {
  readonly ctidTraderAccountId: Int64;
  readonly returnProtectionOrders?: boolean;
}
export interface ProtoOAReconcileRes {
  readonly ctidTraderAccountId: Int64;
  readonly position?: readonly ProtoOAPosition[];
  readonly order?: readonly ProtoOAOrder[];
}
export interface ProtoOANewOrderReq {
  readonly ctidTraderAccountId: Int64;
  readonly symbolId: Int64;
  readonly orderType: number;
  readonly tradeSide: number;
  /** Cents of units. */
  readonly volume: Int64;
  readonly limitPrice?: number;
  readonly stopPrice?: number;
  readonly timeInForce?: number;
  /** ms; with timeInForce GOOD_TILL_DATE. */
  readonly expirationTimestamp?: Int64;
  /** Absolute prices: "not supported for MARKET orders" (the .proto); market orders use the relative ones. */
  readonly stopLoss?: number;
  readonly takeProfit?: number;
  readonly comment?: string;
  /** At most 100 characters. */
  readonly label?: string;
  readonly positionId?: Int64;
  /** At most 50 characters. */
  readonly clientOrderId?: string;
  /**
   * Distances from the entry price in 1/100 000 of a price unit (123000 = 1.23): a buy's stop loss is
   * entry − relativeStopLoss, its take profit entry + relativeTakeProfit; a sell's the other way round.
   */
  readonly relativeStopLoss?: Int64;
  readonly relativeTakeProfit?: Int64;
}
export interface ProtoOACancelOrderReq {
  readonly ctidTraderAccountId: Int64;
  readonly orderId: Int64;
}
/** Changes a pending order; the adapter always sends the whole order it wants (volume, price, expiry, stop loss, take profit). */
export interface ProtoOAAmendOrderReq {
  readonly ctidTraderAccountId: Int64;
  readonly orderId: Int64;
  readonly volume?: Int64;
  readonly limitPrice?: number;
  readonly stopPrice?: number;
  readonly expirationTimestamp?: Int64;
  readonly stopLoss?: number;
  readonly takeProfit?: number;
}
/** Sets a position's protection: a level left out is removed, so the adapter sends both it keeps. */
export interface ProtoOAAmendPositionSLTPReq {
  readonly ctidTraderAccountId: Int64;
  readonly positionId: Int64;
  readonly stopLoss?: number;
  readonly takeProfit?: number;
}
/** Needs an authenticated application only (no account). */
export interface ProtoOARefreshTokenReq {
  readonly refreshToken: string;
}
/** The new pair: the old access and refresh tokens stop working. */
export interface ProtoOARefreshTokenRes {
  readonly accessToken: string;
  /** "bearer". */
  readonly tokenType?: string;
  /** Seconds the new access token lives. */
  readonly expiresIn: Int64;
  readonly refreshToken: string;
}
export interface ProtoOAClosePositionReq {
  readonly ctidTraderAccountId: Int64;
  readonly positionId: Int64;
  /** Cents of units. */
  readonly volume: Int64;
}
export interface ProtoOAExecutionEvent {
  readonly ctidTraderAccountId: Int64;
  readonly executionType: number;
  readonly position?: ProtoOAPosition;
  readonly order?: ProtoOAOrder;
  readonly deal?: ProtoOADeal;
  /** executionType DEPOSIT_WITHDRAW: the operation. */
  readonly depositWithdraw?: ProtoOADepositWithdraw;
  readonly errorCode?: string;
  readonly isServerEvent?: boolean;
}
/** A deposit, withdrawal or other cash movement (ProtoOAChangeBalanceType: cashFlow.ts). */
export interface ProtoOADepositWithdraw {
  readonly operationType: number;
  readonly balanceHistoryId: Int64;
  /** The balance after it, scaled by moneyDigits. */
  readonly balance: Int64;
  /** Its amount, scaled by moneyDigits. */
  readonly delta: Int64;
  readonly changeBalanceTimestamp: Int64;
  readonly externalNote?: string;
  readonly moneyDigits?: number;
}
/** At most a week: toTimestamp − fromTimestamp ≤ 604 800 000. */
export interface ProtoOACashFlowHistoryListReq {
  readonly ctidTraderAccountId: Int64;
  readonly fromTimestamp: Int64;
  readonly toTimestamp: Int64;
}
export interface ProtoOACashFlowHistoryListRes {
  readonly ctidTraderAccountId: Int64;
  readonly depositWithdraw?: readonly ProtoOADepositWithdraw[];
}
export interface ProtoOAOrderErrorEvent {
  readonly ctidTraderAccountId: Int64;
  readonly errorCode: string;
  readonly orderId?: Int64;
  readonly positionId?: Int64;
  readonly description?: string;
}
export interface ProtoOAErrorRes {
  readonly ctidTraderAccountId?: Int64;
  readonly errorCode: string;
  readonly description?: string;
  /** Seconds until a rate-limited payload type is unlocked (errorCode BLOCKED_PAYLOAD_TYPE). */
  readonly retryAfter?: Int64;
}
export interface ProtoOASubscribeSpotsReq {
  readonly ctidTraderAccountId: Int64;
  readonly symbolId: readonly Int64[];
}
export interface ProtoOASpotEvent {
  readonly ctidTraderAccountId: Int64;
  readonly symbolId: Int64;
  /** 1/100 000 of a price unit. */
  readonly bid?: Int64;
  readonly ask?: Int64;
  readonly timestamp?: Int64;
}
export interface ProtoOADealListReq {
  readonly ctidTraderAccountId: Int64;
  readonly fromTimestamp?: Int64;
  readonly toTimestamp?: Int64;
  readonly maxRows?: number;
}
export interface ProtoOADealListRes {
  readonly ctidTraderAccountId: Int64;
  readonly deal?: readonly ProtoOADeal[];
  readonly hasMore: boolean;
}
export interface ProtoOAOrderListReq {
  readonly ctidTraderAccountId: Int64;
  readonly fromTimestamp?: Int64;
  readonly toTimestamp?: Int64;
}
export interface ProtoOAOrderListRes {
  readonly ctidTraderAccountId: Int64;
  readonly order?: readonly ProtoOAOrder[];
  readonly hasMore: boolean;
}
export interface ProtoOAAccountsTokenInvalidatedEvent {
  readonly ctidTraderAccountIds?: readonly Int64[];
  readonly reason?: string;
}

/** One frame of the JSON endpoint. */
export interface Frame<P = unknown> {
  readonly clientMsgId?: string;
  readonly payloadType: number;
  readonly payload?: P;
}

/** Parses a frame; null when it is not one. */
export const parseFrame = (text: string): Frame | null => {
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object') return null;
    const frame = value as { payloadType?: unknown; clientMsgId?: unknown; payload?: unknown };
    if (typeof frame.payloadType !== 'number') return null;
    return {
      payloadType: frame.payloadType,
      ...(typeof frame.clientMsgId === 'string' ? { clientMsgId: frame.clientMsgId } : {}),
      payload: frame.payload ?? {},
    };
  } catch {
    return null;
  }
};

// ------------------------------------------------------------------ units

/** 1/100 000 of a price unit (spot events) to a price. */
export const spotPrice = (value: Int64 | undefined): number => int(value) / 100_000;
/** An integer of money scaled by 10^digits (2 when not said) to an amount. */
export const money = (value: Int64 | undefined, digits: number | undefined): number => int(value) / 10 ** (digits ?? 2);

/** Cents of units to lots of a symbol whose lot is `lotSize` cents. */
export const toLots = (cents: Int64, lotSize: number): number => Number((int(cents) / lotSize).toFixed(10));

/**
 * Lots to cents of units, or null when `lots` is not a whole number of cents (the endpoint takes
 * integers only). 0.01 lot of a 100 000-unit lot (lotSize 10 000 000) is 100 000 cents = 1 000 units.
 */
export const toCents = (lots: number, lotSize: number): number | null => {
  const cents = lots * lotSize;
  const whole = Math.round(cents);
  // Float dust (0.07 × 10 000 000 = 700 000.0000000001) is not a fraction of a cent.
  return Math.abs(cents - whole) < 1e-6 ? whole : null;
};

/** ProtoOA error codes as the Trading API's codes (ProtoOAErrorCode, ProtoErrorCode names). */
export const ERROR_CODES: Readonly<Record<string, string>> = {
  OA_AUTH_TOKEN_EXPIRED: '[INVALID_CREDENTIALS]',
  ACCOUNT_NOT_AUTHORIZED: '[INVALID_CREDENTIALS]',
  RET_NO_SUCH_LOGIN: '[INVALID_CREDENTIALS]',
  RET_ACCOUNT_DISABLED: '[INVALID_CREDENTIALS]',
  CH_CLIENT_AUTH_FAILURE: '[INVALID_CREDENTIALS]',
  CH_ACCESS_TOKEN_INVALID: '[INVALID_CREDENTIALS]',
  CH_CTID_TRADER_ACCOUNT_NOT_FOUND: '[INVALID_CREDENTIALS]',
  CH_OA_CLIENT_NOT_FOUND: '[INVALID_CREDENTIALS]',
  SYMBOL_NOT_FOUND: '[SYMBOL_NOT_FOUND]',
  UNKNOWN_SYMBOL: '[SYMBOL_NOT_FOUND]',
  NOT_ENOUGH_MONEY: '[NOT_ENOUGH_MONEY]',
  MAX_EXPOSURE_REACHED: '[NOT_ENOUGH_MONEY]',
  POSITION_NOT_FOUND: '[POSITION_NOT_FOUND]',
  POSITION_NOT_OPEN: '[POSITION_NOT_FOUND]',
  ORDER_NOT_FOUND: '[ORDER_NOT_FOUND]',
  UNABLE_TO_CANCEL_ORDER: '[ORDER_NOT_FOUND]',
  UNABLE_TO_AMEND_ORDER: '[INVALID_REQUEST]',
  TRADING_BAD_VOLUME: '[INVALID_VOLUME]',
  TRADING_BAD_STAKE: '[INVALID_VOLUME]',
  TRADING_BAD_STOPS: '[INVALID_STOPS]',
  PROTECTION_IS_TOO_CLOSE_TO_MARKET: '[INVALID_STOPS]',
  WORSE_GSL_NOT_ALLOWED: '[INVALID_STOPS]',
  TRADING_BAD_PRICES: '[INVALID_PRICE]',
  TRADING_BAD_EXPIRATION_DATE: '[INVALID_EXPIRATION]',
  MARKET_CLOSED: '[MARKET_CLOSED]',
  SYMBOL_HAS_HOLIDAY: '[MARKET_CLOSED]',
  TRADING_DISABLED: '[MARKET_CLOSED]',
  NO_QUOTES: '[MARKET_CLOSED]',
  TRADING_NOT_ALLOWED: '[INVALID_REQUEST]',
  SHORT_SELLING_NOT_ALLOWED: '[INVALID_REQUEST]',
  TOO_MANY_POSITIONS: '[INVALID_REQUEST]',
  POSITION_LOCKED: '[INVALID_REQUEST]',
  INVALID_REQUEST: '[INVALID_REQUEST]',
  ENTITY_NOT_FOUND: '[INVALID_REQUEST]',
};

/** Codes of an access token cTrader no longer takes (expired, revoked, replaced): renew it with the refresh token. */
export const TOKEN_CODES: ReadonlySet<string> = new Set(['CH_ACCESS_TOKEN_INVALID', 'OA_AUTH_TOKEN_EXPIRED']);

/**
 * Codes that say "not now" rather than "no": the request did not (or may not have) run and may be
 * tried again (rate limit, maintenance, timeouts, the server unreachable, an order under execution).
 */
export const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  'REQUEST_FREQUENCY_EXCEEDED',
  'BLOCKED_PAYLOAD_TYPE',
  'SERVER_IS_UNDER_MAINTENANCE',
  'CH_SERVER_NOT_REACHABLE',
  'CANT_ROUTE_REQUEST',
  'TIMEOUT_ERROR',
  'CONCURRENT_MODIFICATION',
  'PENDING_EXECUTION',
  'UNKNOWN_ERROR',
]);
