// The venue port: one trading account at a broker or exchange, seen the same way whatever the
// platform (../shared/research/venues.md §1). The built-in simulated venue and every real adapter
// implement it, so the copy engine and the Trading API never know which one they talk to.
import { Observable } from 'rxjs';
import type { BalanceOperationData, CancelReason, ClosedTradeData, CloseReason, PendingOrderData, PositionData } from '../../domain/positions/position.js';
import { DomainError, type DomainErrorKind } from '../../domain/shared/errors.js';

export type Side = 'buy' | 'sell';
export type PendingOrderType = 'buyLimit' | 'sellLimit' | 'buyStop' | 'sellStop';
export type OrderType = Side | PendingOrderType;
/** MT5's ACCOUNT_MARGIN_MODE_RETAIL_HEDGING / _NETTING (venues.md §5.4). */
export type MarginMode = 'hedging' | 'netting';
/** MQL5 ENUM_SYMBOL_CALC_MODE, the modes a FX/CFD dealer uses (venues.md §5.3). */
export type MarginCalcMode = 'forex' | 'forexNoLeverage' | 'cfd' | 'cfdLeverage';
export type { CancelReason, CloseReason };

export const isPendingOrderType = (type: OrderType): type is PendingOrderType => type !== 'buy' && type !== 'sell';
export const sideOf = (type: OrderType): Side => (type === 'buy' || type === 'buyLimit' || type === 'buyStop' ? 'buy' : 'sell');

/** A platform application (OAuth client) an account connects under (cTrader's Open API application). */
export interface VenueApplication {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface VenueCredentials {
  readonly login: string;
  readonly password: string;
  readonly server?: string;
  /** The account's brand's own application (engine/venues/applications.ts); unset: the venue's configured one. */
  readonly application?: VenueApplication;
  /**
   * The venue renewed the credentials on its own (cTrader's OAuth token pair): the service stores
   * `password` sealed as the account's password, for the next connection. Resolves once stored.
   */
  readonly onRenewed?: (password: string) => Promise<void>;
}

interface OrderRequestBase {
  readonly symbol: string;
  /** Lots. */
  readonly volume: number;
  /** Absolute prices; null or omitted = none. */
  readonly stopLoss?: number | null;
  readonly takeProfit?: number | null;
  readonly comment?: string | null;
  readonly magicNumber?: number | null;
}

export interface MarketOrderRequest extends OrderRequestBase {
  readonly orderType: Side;
}

export interface PendingOrderRequest extends OrderRequestBase {
  readonly orderType: PendingOrderType;
  readonly openPrice: number;
  /** ISO 8601; null or omitted = good till cancelled. */
  readonly expiry?: string | null;
}

export type OrderRequest = MarketOrderRequest | PendingOrderRequest;

export const isPendingOrderRequest = (request: OrderRequest): request is PendingOrderRequest => isPendingOrderType(request.orderType);

/** What modifyPosition may change (spec "PositionDTO and PositionRequestDTO"). Omitted = unchanged, null = removed. */
export interface PositionChanges {
  /** A lower volume on an open position is a partial close; on a pending order, the new volume. */
  readonly volume?: number;
  /** Pending orders only. */
  readonly openPrice?: number;
  readonly stopLoss?: number | null;
  readonly takeProfit?: number | null;
}

// The position, order, trade and balance operation of the positions stream (domain/positions/position.ts),
// with the venue's spelling of their id (`id`) and side (`buy`, `sellLimit`): the venue contract specs
// and the simulated venue's saved state use it. engine/venues/recorder.ts maps them to the events.

export interface OpenPosition extends Omit<PositionData, 'positionId' | 'orderType'> {
  readonly kind: 'position';
  readonly id: string;
  readonly orderType: Side;
  /** The price the position would close at now: bid for a buy, ask for a sell. */
  readonly currentPrice: number;
  /** Floating profit in the account currency, without swap and commission. */
  readonly profit: number;
  /** Commission charged for the volume still open (negative = paid). */
  readonly commission: number;
}

export interface PendingOrder extends Omit<PendingOrderData, 'orderId' | 'orderType'> {
  readonly kind: 'order';
  readonly id: string;
  readonly orderType: PendingOrderType;
  /** The price the order is watched against: ask for buy types, bid for sell types. */
  readonly currentPrice: number;
}

export type VenuePosition = OpenPosition | PendingOrder;

/** One closed volume of a position: a full close or one partial close. */
export interface ClosedTrade extends Omit<ClosedTradeData, 'tradeId' | 'orderType'> {
  readonly kind: 'trade';
  readonly id: string;
  readonly orderType: Side;
}

export interface BalanceOperation extends Omit<BalanceOperationData, 'operationId'> {
  readonly kind: 'balance';
  readonly id: string;
}

export type HistoryEntry = ClosedTrade | BalanceOperation;

export interface Quote {
  readonly symbol: string;
  readonly bid: number;
  readonly ask: number;
  /** Time of the last price change. */
  readonly time: string;
}

export interface SymbolInfo {
  readonly symbol: string;
  readonly description: string;
  readonly digits: number;
  /** 10^-digits; also the tick size. */
  readonly point: number;
  readonly contractSize: number;
  readonly minVolume: number;
  readonly maxVolume: number;
  readonly volumeStep: number;
  /** Minimum distance in points of SL, TP and pending prices from the market (MT StopLevel). */
  readonly stopsLevel: number;
  readonly marginCalcMode: MarginCalcMode;
  readonly marginRate: number;
  readonly baseCurrency: string;
  readonly marginCurrency: string;
  readonly profitCurrency: string;
  /** Account currency per lot, charged once when volume opens. */
  readonly commissionPerLot: number;
  /** Points per lot per day. */
  readonly swapLong: number;
  readonly swapShort: number;
  /** Weekday (0 = Sunday) charged three days of swap; null = every calendar day charged once. */
  readonly swapRollover3Days: number | null;
}

export interface AccountInformation {
  readonly login: string;
  readonly currency: string;
  readonly leverage: number;
  readonly marginMode: MarginMode;
  readonly balance: number;
  readonly credit: number;
  readonly equity: number;
  /** Used margin. */
  readonly margin: number;
  readonly freeMargin: number;
  /** Equity / margin × 100; null without margin in use. */
  readonly marginLevel: number | null;
  readonly stopOutLevel: number;
  /** Floating profit plus swap of the open positions. */
  readonly unrealizedProfit: number;
  readonly openPositionsCount: number;
  readonly pendingOrdersCount: number;
  readonly connected: boolean;
  readonly environment: 'LIVE' | 'DEMO' | null;
}

export type PlaceOrderResult =
  | {
      readonly status: 'filled';
      readonly orderId: string;
      readonly clientOrderId: string;
      /** The position the deal opened or changed; null when it left the symbol flat (netting). */
      readonly positionId: string | null;
      readonly price: number;
      readonly volume: number;
      readonly time: string;
    }
  | {
      readonly status: 'placed';
      readonly orderId: string;
      readonly clientOrderId: string;
      readonly openPrice: number;
      readonly volume: number;
      readonly time: string;
    };

interface ChangeBase {
  readonly login: string;
  /** 1, 2, 3... per account: a gap means changes were missed (reconcile with positions()). */
  readonly sequence: number;
  readonly at: string;
}

export interface PositionOpened extends ChangeBase {
  readonly type: 'positionOpened';
  readonly position: OpenPosition;
}
/** Netting: a same-side deal added volume at `price`; the position's open price is the new average. */
export interface PositionIncreased extends ChangeBase {
  readonly type: 'positionIncreased';
  readonly position: OpenPosition;
  readonly volume: number;
  readonly price: number;
}
export interface PositionModified extends ChangeBase {
  readonly type: 'positionModified';
  readonly position: OpenPosition;
}
export interface PositionPartiallyClosed extends ChangeBase {
  readonly type: 'positionPartiallyClosed';
  /** What remains open, under the same id. */
  readonly position: OpenPosition;
  readonly trade: ClosedTrade;
}
export interface PositionClosed extends ChangeBase {
  readonly type: 'positionClosed';
  readonly trade: ClosedTrade;
}
export interface OrderPlaced extends ChangeBase {
  readonly type: 'orderPlaced';
  readonly order: PendingOrder;
}
export interface OrderModified extends ChangeBase {
  readonly type: 'orderModified';
  readonly order: PendingOrder;
}
/** A pending order triggered; the position changes it caused follow as their own changes. */
export interface OrderFilled extends ChangeBase {
  readonly type: 'orderFilled';
  readonly order: PendingOrder;
  readonly price: number;
}
export interface OrderCancelled extends ChangeBase {
  readonly type: 'orderCancelled';
  readonly order: PendingOrder;
  readonly reason: CancelReason;
}
export interface BalanceChanged extends ChangeBase {
  readonly type: 'balanceChanged';
  readonly operation: BalanceOperation;
}

export type VenueChange =
  | PositionOpened
  | PositionIncreased
  | PositionModified
  | PositionPartiallyClosed
  | PositionClosed
  | OrderPlaced
  | OrderModified
  | OrderFilled
  | OrderCancelled
  | BalanceChanged;

export type VenueChangeListener = (change: VenueChange) => void;
export type Unsubscribe = () => void;

/** One account at one venue. Every call but connect fails with [NOT_CONNECTED] while disconnected. */
export interface VenueConnection {
  readonly login: string;
  /** Fails with [INVALID_CREDENTIALS]. */
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  isConnected(): boolean;
  accountInformation(): Promise<AccountInformation>;
  /** Open positions and pending orders. */
  positions(): Promise<readonly VenuePosition[]>;
  /** Closed trades (by close time) and balance operations (by time), from and to inclusive. */
  history(from: string, to: string): Promise<readonly HistoryEntry[]>;
  /** Placing again with the same clientOrderId returns the first result and places nothing. */
  placeOrder(request: OrderRequest, clientOrderId: string): Promise<PlaceOrderResult>;
  /**
   * modify, close and cancel take an optional client request id with the same promise: a repeat
   * answers the first result and changes nothing, so a replayed copy never closes twice.
   */
  modifyPosition(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition>;
  /** Closes all of an open position, or `volume` lots of it. */
  closePosition(id: string, volume?: number, clientRequestId?: string): Promise<ClosedTrade>;
  cancelOrder(id: string, clientRequestId?: string): Promise<PendingOrder>;
  quote(symbol: string): Promise<Quote>;
  symbolInfo(symbol: string): Promise<SymbolInfo>;
  /** Every symbol the account can trade. */
  symbols(): Promise<readonly SymbolInfo[]>;
  /** The margin `volume` lots of `symbol` on `side` would hold now, in the account currency (MT5 OrderCalcMargin). */
  marginRequired(symbol: string, side: Side, volume: number): Promise<number>;
  /** Changes of this account, whoever caused them, delivered while connected, in sequence order. */
  subscribe(listener: VenueChangeListener): Unsubscribe;
  /**
   * What the link to the platform is doing, with its last error (AccountDTO.statusMessage). A real
   * venue's connection says it; the simulated venue has no link and says nothing (the account's status is shown).
   */
  readonly statusMessage?: string;
  /**
   * The symbols the service knows positions or orders of this account in (told before a
   * reconciliation). A venue that is asked symbol by symbol (a crypto exchange's orders) follows them.
   * `known`: the open positions the service holds of this account, so a venue whose history no longer
   * shows how a position opened (an exchange keeps 7 days of orders) keeps its id. `pending`: the
   * pending orders it holds, so one that filled (and closed) while nobody listened is read back too.
   */
  follow?(symbols: readonly string[], known?: readonly KnownPosition[], pending?: readonly KnownOrder[]): void;
}

/** A pending order as the service's read models hold it (VenueConnection.follow). */
export type KnownOrder = Pick<KnownPosition, 'id' | 'symbol' | 'openTime'>;

/** An open position as the service's read models hold it (VenueConnection.follow). */
export interface KnownPosition {
  readonly id: string;
  readonly symbol: string;
  readonly side: Side;
  readonly volume: number;
  readonly openPrice: number;
  readonly openTime: string;
}

export interface Venue {
  readonly name: string;
  connection(credentials: VenueCredentials): VenueConnection;
}

/** The change feed as an RxJS stream, for the copy engine. */
export const venueChanges = (connection: VenueConnection): Observable<VenueChange> =>
  new Observable<VenueChange>((subscriber) => connection.subscribe((change) => subscriber.next(change)));

export type VenueErrorCode =
  | '[SYMBOL_NOT_FOUND]'
  | '[INVALID_VOLUME]'
  | '[INVALID_PRICE]'
  | '[INVALID_STOPS]'
  | '[INVALID_EXPIRATION]'
  | '[INVALID_REQUEST]'
  | '[NOT_ENOUGH_MONEY]'
  | '[MARKET_CLOSED]'
  | '[POSITION_NOT_FOUND]'
  | '[ORDER_NOT_FOUND]'
  | '[NOT_CONNECTED]'
  | '[INVALID_CREDENTIALS]'
  | '[ACCOUNT_NOT_FOUND]'
  | '[ACCOUNT_EXISTS]';

const kindOf: Readonly<Record<VenueErrorCode, DomainErrorKind>> = {
  '[SYMBOL_NOT_FOUND]': 'notFound',
  '[INVALID_VOLUME]': 'validation',
  '[INVALID_PRICE]': 'validation',
  '[INVALID_STOPS]': 'validation',
  '[INVALID_EXPIRATION]': 'validation',
  '[INVALID_REQUEST]': 'validation',
  '[NOT_ENOUGH_MONEY]': 'conflict',
  '[MARKET_CLOSED]': 'conflict',
  '[POSITION_NOT_FOUND]': 'notFound',
  '[ORDER_NOT_FOUND]': 'notFound',
  '[NOT_CONNECTED]': 'conflict',
  '[INVALID_CREDENTIALS]': 'validation',
  '[ACCOUNT_NOT_FOUND]': 'notFound',
  '[ACCOUNT_EXISTS]': 'conflict',
};

/** A venue refusal: nothing was placed or changed. A DomainError, so the API maps it to a 4xx. */
export class VenueError extends DomainError {
  constructor(
    override readonly code: VenueErrorCode,
    message: string,
    details?: Readonly<Record<string, unknown>>,
  ) {
    super(kindOf[code], code, message, details);
    this.name = 'VenueError';
  }
}
