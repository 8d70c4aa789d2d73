// What the copy rules see and what they answer. The engine turns venue changes of a master account
// into MasterEvents, gathers the slave's view and the symbol data, and asks `decideCopy` what to do;
// the answer is a list of CopyActions, each either an order to place or a skip with its reason.
import type { CopierSettings } from '../copier/settings.js';
import type { StrategyRouting } from './strategyRouting.js';
import type { ProjectMapping } from './symbolMapping.js';

/** Volume in lots. */
export type Lots = number;

/** The spelling of PositionRequestDTO `orderType` and FeatureOrderTypeFilterDTO. */
export type MarketOrderType = 'Buy' | 'Sell';
export type PendingOrderType = 'BuyLimit' | 'SellLimit' | 'BuyStop' | 'SellStop';
export type OrderType = MarketOrderType | PendingOrderType;

/** A symbol's trading specification at one broker (venues.md §5.2: MT's SYMBOL_VOLUME_* and digits). */
export interface SymbolSpec {
  readonly symbol: string;
  readonly minLot: Lots;
  readonly maxLot: Lots;
  readonly lotStep: Lots;
  readonly digits: number;
  /** 10^-digits. */
  readonly point: number;
  /** Units of the base asset per lot. */
  readonly contractSize: number;
  /** Minimum distance in points of stops from the market (MT StopLevel); 0 when unknown. */
  readonly stopsLevel?: number;
  /** Swap rates of a buy and a sell (points per lot per day; negative = the position pays); absent when unknown. */
  readonly swapLong?: number;
  readonly swapShort?: number;
}

/** What a master position or pending order carries when it appears. */
export interface MasterTrade<T extends OrderType = OrderType> {
  readonly masterPositionId: string;
  readonly symbol: string;
  readonly orderType: T;
  readonly volume: Lots;
  /** Fill price of a position; trigger price of a pending order. */
  readonly openPrice: number;
  /** Absolute prices; null = none. */
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  /** The master order's client order id, where the venue reported one (a keep-alive trade's is never copied). */
  readonly clientOrderId?: string | null;
  /**
   * When the master placed it (ISO 8601, the venue's time): a market open's open time, a pending
   * order's placement (also when its fill is decided). Absent where not known.
   */
  readonly openTime?: string;
}

interface MasterRef {
  readonly masterPositionId: string;
  readonly symbol: string;
}

interface Event<Type extends string, Data> {
  readonly type: Type;
  /** The id of the master's event in the store: the seed of the slave's client order ids. */
  readonly eventId: string;
  readonly data: Data;
}

export type MasterPositionOpened = Event<'MasterPositionOpened', MasterTrade<MarketOrderType>>;
export type MasterPositionModified = Event<'MasterPositionModified', MasterRef & { readonly stopLoss: number | null; readonly takeProfit: number | null }>;
/** closedVolume + remainingVolume is the master's volume before the close. */
export type MasterPositionPartiallyClosed = Event<'MasterPositionPartiallyClosed', MasterRef & { readonly closedVolume: Lots; readonly remainingVolume: Lots }>;
export type MasterPositionClosed = Event<'MasterPositionClosed', MasterRef>;
export type MasterPendingOrderPlaced = Event<'MasterPendingOrderPlaced', MasterTrade<PendingOrderType>>;
export type MasterPendingOrderModified = Event<
  'MasterPendingOrderModified',
  MasterRef & { readonly openPrice: number; readonly stopLoss: number | null; readonly takeProfit: number | null }
>;
export type MasterPendingOrderCancelled = Event<'MasterPendingOrderCancelled', MasterRef>;
/** The pending order became a position under the same masterPositionId; the trade is that position. */
export type MasterPendingOrderFilled = Event<'MasterPendingOrderFilled', MasterTrade<MarketOrderType>>;

export type MasterEvent =
  | MasterPositionOpened
  | MasterPositionModified
  | MasterPositionPartiallyClosed
  | MasterPositionClosed
  | MasterPendingOrderPlaced
  | MasterPendingOrderModified
  | MasterPendingOrderCancelled
  | MasterPendingOrderFilled;

export interface AccountFunds {
  readonly balance: number;
  readonly equity: number;
  /** ISO 4217 code. */
  readonly currency: string;
}

/** A slave position or pending order that copies one master position of this copier. */
export interface SlaveCopy {
  readonly masterPositionId: string;
  readonly slavePositionId: string;
  readonly kind: 'position' | 'pendingOrder';
  /** The slave's symbol. */
  readonly symbol: string;
  readonly orderType: OrderType;
  readonly volume: Lots;
  /** forcePositionLotSize: which of the orders copying the master position this is (split.ts); absent = 0. */
  readonly part?: number;
}

/** Folded from the copier's closed copies by `nextMartingaleState`. */
export interface MartingaleState {
  readonly consecutiveLosses: number;
}

export interface SlaveState extends AccountFunds {
  /** The open copies of this copier: one per master position, or one per part of a split one (split.ts). */
  readonly copies: readonly SlaveCopy[];
  readonly martingale: MartingaleState;
}

export interface CopyAccounts {
  readonly master: AccountFunds;
  readonly slave: SlaveState;
}

export interface CopierView {
  readonly id: string;
  readonly settings: CopierSettings;
  /** Explicit symbol mappings, master symbol -> slave symbol; they win over automatic mapping. */
  readonly symbolOverrides: Readonly<Record<string, string>>;
  /**
   * The project's symbol mappings that apply to this copier's two brokers, in the order they are
   * tried (symbolMapping.ts); after the overrides, before automatic mapping. Omitted: none.
   */
  readonly projectMappings?: readonly ProjectMapping[];
  /** A strategy copier's routing by key (strategyRouting.ts); omitted: a copier without a strategy. */
  readonly strategy?: StrategyRouting;
}

export interface MarketData {
  /** The master broker's specification of the event's symbol. */
  readonly masterSymbol: SymbolSpec;
  /** Every symbol the slave's broker offers. */
  readonly slaveSymbols: readonly SymbolSpec[];
  /**
   * The value of one unit of the slave's currency in the master's currency (slave EUR, master USD:
   * EURUSD, about 1.08). Needed by the ratio scale types when the currencies differ.
   */
  readonly slaveToMasterRate: number | null;
  /**
   * The slave's quote of the mapped symbol, read for a market open when the copier has a maxSlippage;
   * null otherwise or when the venue gives none.
   */
  readonly slaveQuote?: { readonly bid: number; readonly ask: number } | null;
}

export type SkipReason =
  | 'COPIER_INACTIVE'
  | 'MONITOR_ONLY'
  | 'ALREADY_COPIED'
  | 'SYMBOL_NOT_MAPPED'
  | 'SYMBOL_SPEC_INVALID'
  | 'FIXED_LOT_SIZE_MISSING'
  | 'CURRENCY_RATE_MISSING'
  | 'MASTER_FUNDS_NOT_POSITIVE'
  | 'VOLUME_NOT_POSITIVE'
  | 'VOLUME_BELOW_MINIMUM'
  | 'MIN_VOLUME_SAFETY'
  | 'MAXIMUM_LOT_REACHED'
  // The copier's own members (CopierDTO).
  | 'PENDING_ORDER_SKIPPED'
  | 'SLIPPAGE_EXCEEDED'
  | 'PARTIAL_CLOSE_ROUNDS_TO_ZERO'
  | 'NO_SLAVE_POSITION'
  | 'NO_SLAVE_ORDER'
  // Copier features (domain/copy/features): each skip names the feature's rule.
  | 'LOT_FILTERED'
  | 'COMMENT_FILTERED'
  | 'MAGIC_NUMBER_FILTERED'
  // A strategy copier (strategyRouting.ts): a trade without the strategy's key, an inactive strategy.
  | 'STRATEGY_KEY_FILTERED'
  | 'STRATEGY_INACTIVE'
  // The master's own keep-alive trade (FeatureKeepAliveTradeDTO on the master's account).
  | 'MASTER_KEEP_ALIVE_TRADE'
  | 'ORDER_TYPE_FILTERED'
  | 'SYMBOL_NOT_PERMITTED'
  | 'POSITION_SKIPPED'
  | 'HEDGING_BLOCKED'
  | 'MAX_OPEN_POSITIONS_REACHED'
  | 'COOLDOWN'
  | 'SPREAD_TOO_WIDE'
  | 'PRICE_MISSING'
  | 'NO_TP_SL'
  | 'TP_SL_LOCKED'
  | 'TP_SL_REMOVED'
  | 'MARGIN_CAP'
  | 'MAX_LOT_SIZE_EXCEEDED'
  | 'SCHEDULED_PAUSE'
  | 'MASTER_CLOSED_BEFORE_REOPEN'
  | 'REOPEN_SLIPPAGE_EXCEEDED'
  | 'EXIT_SIGNAL_OVERRIDDEN'
  | 'MASANIELLO_SERIES_OVER'
  | 'MASANIELLO_COOLDOWN'
  | 'LIVE_DELAY'
  // FeatureNewsFilterDTO: an affecting calendar event in the blackout window, a bank holiday.
  | 'NEWS_BLACKOUT'
  | 'BANK_HOLIDAY'
  // FeatureNewsProtectionDTO's re-open guards (MASTER_CLOSED_BEFORE_REOPEN too).
  | 'REOPEN_ADVERSE_MOVE'
  | 'REOPEN_SPREAD_TOO_WIDE'
  | 'REOPEN_INTENT_EXPIRED'
  // Account features applied to every copier of the slave account.
  | 'RISK_PER_TRADE'
  | 'OUTSIDE_TRADING_WINDOW'
  | 'APPROVAL_REJECTED'
  | 'APPROVAL_EXPIRED'
  // Account protections (domain/protection/blocks.ts): a risk limit hit or a profit target locked.
  | 'RISK_LIMIT_HIT'
  | 'PROFIT_TARGET_LOCKED'
  | 'OVERALL_TARGET_REACHED';

interface SlaveOrder {
  /** Deterministic (slaveOrderId): the venue's client order id, so a replay never places twice. */
  readonly clientOrderId: string;
  readonly masterPositionId: string;
  /** The slave's symbol. */
  readonly symbol: string;
  /**
   * forcePositionLotSize: the part of a copy split into several orders (split.ts) that the order
   * places or acts on; absent = 0, the only order of an unsplit copy.
   */
  readonly part?: number;
}

export interface OpenAction extends SlaveOrder {
  readonly type: 'open';
  readonly orderType: OrderType;
  readonly volume: Lots;
  /** Pending orders: the trigger price; market orders: null. */
  readonly openPrice: number | null;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  /**
   * Set when the master's pending order filled before the slave's: the slave's pending order to
   * cancel first. The open is placed only once that cancel succeeded; if the slave's order filled
   * meanwhile, the open is dropped.
   */
  readonly replacesPendingOrderId: string | null;
}

export interface ModifyAction extends SlaveOrder {
  readonly type: 'modify';
  readonly slavePositionId: string;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  /** Pending orders: the new trigger price; positions: null. */
  readonly openPrice: number | null;
}

export interface PartialCloseAction extends SlaveOrder {
  readonly type: 'partialClose';
  readonly slavePositionId: string;
  /** Lots to close. */
  readonly volume: Lots;
  readonly remainingVolume: Lots;
}

export interface CloseAction extends SlaveOrder {
  readonly type: 'close';
  readonly slavePositionId: string;
  readonly volume: Lots;
}

export interface CancelAction extends SlaveOrder {
  readonly type: 'cancel';
  readonly slavePositionId: string;
}

export type TradeAction = OpenAction | ModifyAction | PartialCloseAction | CloseAction | CancelAction;

export interface SkipAction {
  readonly type: 'skip';
  readonly masterPositionId: string;
  readonly reason: SkipReason;
  /** For the account's log: what was not copied and why, in words. */
  readonly message: string;
  /** MONITOR_ONLY: what a live copier would have done; empty otherwise. */
  readonly wouldHave: readonly CopyAction[];
}

/**
 * Not now: a rule (a delayed execution, a minimum holding time) wants the master event decided
 * again at `until`. The engine keeps it and brings the event back then, with `deferredBy` set so
 * that rule does not defer it again.
 */
export interface DeferAction {
  readonly type: 'defer';
  readonly masterPositionId: string;
  readonly until: string;
  /** The feature type that deferred it. */
  readonly by: string;
  readonly message: string;
}

export type CopyAction = TradeAction | SkipAction | DeferAction;

/** A rule's refusal, before it becomes a SkipAction. */
export interface Skip {
  readonly reason: SkipReason;
  readonly message: string;
}
