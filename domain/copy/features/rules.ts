// How a copier feature changes what the engine does (spec "Feature DTOs", scope copier). A feature is
// a definition (domain/feature/definition.ts) plus any of these pure hooks; the decision
// (decision.ts) and the engine's periodic management call them in the order of the catalogue.
//
//   open of a master position or pending order:
//     filterOpen  -> a skip, or go on                  (filters, cooldowns, spread, pauses)
//     sizing      -> the copier settings sizing uses   (fixed balances, maximum lot, martingale)
//     fallback    -> a lot when sizing refused         (a fallback lot)
//     adjustVolume-> the sized lot, or a skip          (caps, margin, money management)
//     adjustOpen  -> the open order                    (stops)
//     deferOpen   -> decide again at a later time      (delays)
//   stop loss / take profit change:   onModify -> a skip, or go on
//                                     adjustModify -> the stops to place (distances, extra points)
//   close and partial close:          onClose  -> a skip, a later time, or go on
//   every tick, per open copy:        manage   -> modifications, closes, reopens
// adjustSettings changes the copier settings of every decision (no feature of the catalogue uses it today).
// Hooks never read a clock or a venue: `now` and the venue data arrive in the context.
import type { CopierSettings } from '../../copier/settings.js';
import type { FeatureDefinition } from '../../feature/definition.js';
import type { FeatureScopeKind } from '../../feature/events.js';
import type { AccountFunds, MasterEvent, MasterTrade, ModifyAction, OpenAction, Skip, SkipReason, SlaveCopy, SymbolSpec } from '../types.js';
import type { PositionData } from '../../positions/position.js';
import type { CalendarRecord } from '../../calendar/analytics.js';

/** A copy of this copier, open or closed, for rules that look back (cooldowns, counts, series). */
export interface CopyRecord {
  readonly masterPositionId: string;
  readonly slavePositionId: string;
  /** The slave's symbol. */
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  readonly openedAt: string;
  readonly closedAt: string | null;
  /** Net result (profit + swap + commission) in the slave's currency, once closed. */
  readonly result: number | null;
  /** The price it closed at, when known (a close by the engine or at the slave's venue). */
  readonly closePrice?: number | null;
  /** Who closed it: COPIER (the master closed), SLAVE_VENUE (its own stop, by hand) or a feature rule. */
  readonly closedBy: string | null;
  /**
   * Its partial closes before the last close, each with its volume and net result, when the read model
   * gives them; `volume` is then what the last close closed and `result` the net result of all parts.
   */
  readonly partials?: readonly { readonly volume: number; readonly result: number }[];
}

export interface QuoteView {
  readonly bid: number;
  readonly ask: number;
}

export interface SlaveAccountView {
  readonly balance: number;
  readonly equity: number;
  readonly usedMargin: number;
  readonly freeMargin: number;
  readonly leverage: number;
  readonly currency: string;
}

/**
 * What the engine reads for the features of a copier; a rule declares what it needs. 'positions': the
 * slave account's open positions (OpenContext and ManageContext.slavePositions); 'pointValue': the value
 * of a point of the slave symbol (OpenContext.pointValue); 'margin' also fills ManageContext.slaveAccount;
 * 'openPrices': on a master's stop change, the master position's and the slave copy's open prices
 * (ModifyContext); 'closeStops': on a master close or partial close, the slave account's open
 * positions, for the stops of the copy (ChangeContext.slavePositions); 'calendar': the economic calendar's
 * events around `now` (FeatureRunContext.calendar; opens and stop changes).
 */
export type FeatureNeed = 'calendar' | 'quotes' | 'margin' | 'positions' | 'pointValue' | 'openPrices' | 'closeStops' | HistoryNeed;

/**
 * Needs read from the read models' history: 'masterOrders', the master's orders on the decided trade's
 * symbol (OpenContext.masterOrders); 'slaveActivity', when the slave account last traded
 * (ManageContext.slaveLastTradeAt); 'accountHistory', attached to an account: the copies of every copier
 * of the account as its `history` (ActiveFeature.accountHistory); 'masterCloses', the partial closes of
 * the master's open positions (ManageContext.masterCloses).
 */
export type HistoryNeed = 'masterOrders' | 'slaveActivity' | 'accountHistory' | 'masterCloses';

/**
 * One of the master's orders on the symbol of the trade being decided, as the read models hold it
 * (open positions and pending orders, and positions closed since the feature was configured).
 */
export interface MasterOrderRecord {
  readonly masterPositionId: string;
  readonly side: 'Buy' | 'Sell';
  /** 'pendingOrder' while it waits; 'position' for a market open or a pending order that filled. */
  readonly kind: 'position' | 'pendingOrder';
  /** A pending order's placement; a position's open (a filled pending order's fill). */
  readonly openedAt: string;
  /** When the position closed in full; null while open or pending. */
  readonly closedAt: string | null;
}

/**
 * An open position of the slave account as its venue shows it, whoever opened it: the members of the
 * shared position (domain/positions/position.ts) the risk rules read, its side, and what it stands at.
 */
export interface AccountPosition extends Pick<PositionData, 'positionId' | 'symbol' | 'volume' | 'openPrice' | 'stopLoss' | 'takeProfit'> {
  readonly side: PositionData['orderType'];
  /** Floating profit plus swap, in the account's currency. */
  readonly result: number;
}

/**
 * A person's decision on a master open held back for approval (FeatureApprovalDTO): approved or
 * rejected, and with an approval the lots the person chose for the copy (ApprovalDTO.volume) in place of
 * the copier's sizing; null: the copier's sizing.
 */
export type ApprovalDecision = { readonly decision: 'approved'; readonly volume: number | null } | { readonly decision: 'rejected'; readonly volume: null };

export interface FeatureRunContext {
  /** ISO 8601: the engine's clock. */
  readonly now: string;
  /** This copier's copies, newest first: the open ones and at least the last few hundred closed. */
  readonly history: readonly CopyRecord[];
  /** When the feature's running state was last reset (PUT .../masaniello/{id}/reset), by key ('*' = all). */
  readonly resets: Readonly<Record<string, string>>;
  /** The copier's own settings (openRetry, maxLotSize ...). */
  readonly copier: CopierSettings;
  /** The venue time of the master event being decided; null outside one (management). */
  readonly eventTime: string | null;
  /** Feature types that held this master event back before (a deferral decided again). */
  readonly deferredBy: readonly string[];
  /** The decision on this master event, held back for approval (POST .../approvals); null or absent: none. */
  readonly approval?: ApprovalDecision | null;
  /** When the feature was configured (added); absent when not known. */
  readonly configuredAt?: string;
  /** Where the running feature is attached; absent: the copier. */
  readonly scope?: FeatureScopeKind;
  /** With 'calendar': the economic calendar's events from a day before to a day after `now`; absent when not read. */
  readonly calendar?: readonly CalendarRecord[];
}

export interface OpenContext extends FeatureRunContext {
  readonly trade: MasterTrade;
  readonly slaveSymbol: string;
  readonly slaveSpec: SymbolSpec;
  readonly masterSpec: SymbolSpec;
  /** This copier's live copies. */
  readonly copies: readonly SlaveCopy[];
  /** The slave account's balance and equity as the decision knows them (always given by the decision). */
  readonly slaveFunds?: AccountFunds;
  /** With 'quotes': the master's and the slave's quote of the symbol now; null when not available. */
  readonly quotes: { readonly master: QuoteView | null; readonly slave: QuoteView | null };
  /** With 'margin': the slave account's figures and the margin one lot of the slave symbol needs now. */
  readonly slaveAccount: SlaveAccountView | null;
  readonly marginPerLot: number | null;
  /** With 'positions': the slave account's open positions; null or absent when not read. */
  readonly slavePositions?: readonly AccountPosition[] | null;
  /** With 'pointValue': what a one-point move of one lot of the slave symbol is worth in the slave's currency now; null when unknown. */
  readonly pointValue?: number | null;
  /**
   * With 'masterOrders': the master's orders on trade.symbol, oldest first (the trade itself included
   * once the read models hold it); null or absent when not read.
   */
  readonly masterOrders?: readonly MasterOrderRecord[] | null;
}

export interface ChangeContext extends FeatureRunContext {
  readonly event: MasterEvent;
  /** The slave's live copy of the master position, if any. */
  readonly copy: SlaveCopy | undefined;
  readonly record: CopyRecord | undefined;
  /** With 'closeStops', on a close or partial close: the slave account's open positions; null or absent when not read. */
  readonly slavePositions?: readonly AccountPosition[] | null;
}

/** A master's stop change about to be copied to the slave's copy (a position or a pending order). */
export interface ModifyContext extends ChangeContext {
  readonly copy: SlaveCopy;
  /** The specification of the copy's symbol at the slave's broker; undefined when not known. */
  readonly slaveSpec: SymbolSpec | undefined;
  /** With 'openPrices': the master position's open price (a pending order's trigger price); null when not read. */
  readonly masterOpenPrice: number | null;
  /** With 'openPrices': the copy's open price at the slave (a pending order's trigger price); null when not read. */
  readonly copyOpenPrice: number | null;
}

/** A slave position copied by this copier, as its venue shows it now. */
export interface ManagedCopy {
  readonly masterPositionId: string;
  readonly slavePositionId: string;
  readonly symbol: string;
  readonly side: 'Buy' | 'Sell';
  readonly volume: number;
  readonly openPrice: number;
  readonly openTime: string;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  /** The close side of the market: bid for a buy, ask for a sell. */
  readonly currentPrice: number;
  readonly profit: number;
  readonly swap: number;
  readonly spec: SymbolSpec;
}

export interface ManageContext extends FeatureRunContext {
  readonly copies: readonly ManagedCopy[];
  /** The master's open positions (ids), to tell whether a master still holds what it opened. */
  readonly masterOpen: ReadonlySet<string>;
  /** Master positions still open, with what a reopen needs. */
  readonly masterPositions: readonly MasterTrade[];
  readonly quotes: ReadonlyMap<string, QuoteView>;
  readonly specs: ReadonlyMap<string, SymbolSpec>;
  /** The slave account's open positions, every copier's and those it did not copy. */
  readonly slavePositions?: readonly AccountPosition[];
  /** With 'margin': the slave account's figures now; null or absent otherwise. */
  readonly slaveAccount?: SlaveAccountView | null;
  /** This feature's standalone trades (standaloneTradeId), open and recently closed, newest first. */
  readonly standalone?: readonly CopyRecord[];
  /**
   * With 'slaveActivity': the latest open or close of a position at the slave account, whoever made
   * it, standalone trades aside; null when it never traded.
   */
  readonly slaveLastTradeAt?: string | null;
  /**
   * With 'masterCloses': the partial closes of the master's open positions (history read model), each
   * with its volume and venue time; what a master held at an earlier time is its volume now plus the
   * volumes closed since. Absent when not read.
   */
  readonly masterCloses?: readonly { readonly masterPositionId: string; readonly volume: number; readonly at: string }[];
  /** This copier's pending orders at the slave (copies of the master's pending orders). */
  readonly pendingCopies?: readonly { readonly masterPositionId: string; readonly slavePositionId: string; readonly symbol: string }[];
}

export type ManagedAction =
  | {
      readonly kind: 'modify';
      readonly slavePositionId: string;
      readonly masterPositionId: string;
      readonly symbol: string;
      readonly stopLoss: number | null;
      readonly takeProfit: number | null;
      readonly message: string;
    }
  | {
      readonly kind: 'close';
      readonly slavePositionId: string;
      readonly masterPositionId: string;
      readonly symbol: string;
      readonly volume: number;
      readonly message: string;
    }
  | {
      readonly kind: 'reopen';
      /** Names this reopen (a schedule and its day): the same key reopens once. */
      readonly key: string;
      readonly masterPositionId: string;
      readonly symbol: string;
      readonly side: 'Buy' | 'Sell';
      readonly volume: number;
      readonly stopLoss: number | null;
      readonly takeProfit: number | null;
      readonly message: string;
    }
  | { readonly kind: 'skip'; readonly masterPositionId: string; readonly reason: SkipReason; readonly message: string }
  /** Cancels a pending order copy (one of ManageContext.pendingCopies). */
  | { readonly kind: 'cancel'; readonly slavePositionId: string; readonly masterPositionId: string; readonly symbol: string; readonly message: string }
  | {
      /**
       * A trade of the feature's own, tied to no master position (a keep-alive trade): opened at market
       * with no stops under masterPositionId = standaloneTradeId(featureId, key), so the same key is
       * placed once; it is not a copy (see standaloneTradeId). Closed with a 'close' of that id.
       */
      readonly kind: 'standaloneOpen';
      readonly masterPositionId: string;
      readonly symbol: string;
      readonly side: 'Buy' | 'Sell';
      readonly volume: number;
      readonly message: string;
    };

export interface CopierRules<S> {
  readonly needs?: readonly FeatureNeed[];
  /**
   * At account scope it is run by an executor of its own, not by the account's copiers: a feature that
   * trades the account on its own (the keep-alive trade, engine/schedule/keepAliveTrades.ts), one trade
   * per account whether it has no copier or several. A copier's own instance is still the copier's.
   */
  readonly accountScopeElsewhere?: boolean;
  /** Its management's closes, cancels and reopens are logged in its own words (the action's message), not as plain copies. */
  readonly logsItsReasons?: boolean;
  /** The copier settings every decision of this copier uses (monitor-only, reverse ...), before anything else. */
  adjustSettings?(settings: S, copier: CopierSettings): CopierSettings;
  filterOpen?(settings: S, ctx: OpenContext): Skip | null;
  sizing?(settings: S, copier: CopierSettings, ctx: OpenContext): CopierSettings;
  /**
   * Sizing refused the trade (below the minimum, no rate, no master funds ...): a lot to open instead,
   * or null to let the refusal stand. The first feature that answers a lot wins.
   */
  fallback?(settings: S, refusal: Skip, ctx: OpenContext): { readonly volume: number } | null;
  adjustVolume?(settings: S, volume: number, ctx: OpenContext): { readonly volume: number } | Skip;
  adjustOpen?(settings: S, open: OpenAction, ctx: OpenContext): OpenAction;
  /** An ISO time to decide the open again at, or null to open now. */
  deferOpen?(settings: S, ctx: OpenContext): string | null;
  onModify?(settings: S, ctx: ChangeContext): Skip | null;
  /** The modification a master's stop change places on the copy, once no onModify refused it. */
  adjustModify?(settings: S, modify: ModifyAction, ctx: ModifyContext): ModifyAction;
  /** A close or partial close: a skip, a time to decide it again at, or null to copy it now. */
  onClose?(settings: S, ctx: ChangeContext): Skip | { readonly until: string } | null;
  manage?(settings: S, ctx: ManageContext, featureId: string): readonly ManagedAction[];
}

export interface CopierFeature<S extends object = Record<string, unknown>> extends FeatureDefinition<S> {
  readonly rules: CopierRules<S>;
}

/** A configured feature of one copier (or of its slave account) with its members. */
export interface ActiveFeature {
  readonly featureId: string;
  readonly feature: CopierFeature<object>;
  readonly settings: object;
  readonly resets: Readonly<Record<string, string>>;
  /** When the feature was added (its creation), ISO 8601. */
  readonly configuredAt?: string;
  /** Where it is attached (absent: the copier). Set at several scopes, the most specific runs (engine/copy/inputs.ts). */
  readonly scope?: FeatureScopeKind;
  /**
   * For an account-scope feature that counts copies (FeatureMaxOpenPositionsDTO): the copies of every
   * copier of the account, newest first, which its rules see as `history` instead of the copier's.
   */
  readonly accountHistory?: readonly CopyRecord[];
}

export const skip = (reason: SkipReason, message: string): Skip => ({ reason, message });
export const isSkip = (value: unknown): value is Skip => typeof value === 'object' && value !== null && 'reason' in value && 'message' in value;
/** Management's close of the whole of a copy. */
export const closeOf = (copy: ManagedCopy, message: string): ManagedAction => ({
  kind: 'close',
  slavePositionId: copy.slavePositionId,
  masterPositionId: copy.masterPositionId,
  symbol: copy.symbol,
  volume: copy.volume,
  message,
});

/** A feature as the catalogue holds it: its settings type forgotten (the API checked them against `members`). */
export const erased = <S extends object>(feature: CopierFeature<S>): CopierFeature<object> => feature as unknown as CopierFeature<object>;

/**
 * The masterPositionId of a trade a feature places on its own (ManagedAction 'standaloneOpen'): not a
 * copy of any master position. The engine keeps such trades out of every copy rule's view (history,
 * live copies, the martingale state) and shows them only to the feature that placed them.
 */
export const STANDALONE_PREFIX = 'feature:';
export const standaloneTradeId = (featureId: string, key: string): string => `${STANDALONE_PREFIX}${featureId}:${key}`;
export const isStandaloneTrade = (masterPositionId: string): boolean => masterPositionId.startsWith(STANDALONE_PREFIX);
/** The standalone trades of one feature among records. */
export const standaloneOf = (featureId: string, records: readonly CopyRecord[]): CopyRecord[] =>
  records.filter((r) => r.masterPositionId.startsWith(`${STANDALONE_PREFIX}${featureId}:`));
