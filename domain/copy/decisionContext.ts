// What every part of the copy decision shares (decision.ts): the inputs from the copier's features,
// the context of one decision, and the small builders of actions (order ids, skips, stops).
import type {
  ActiveFeature,
  ApprovalDecision,
  CopyRecord,
  FeatureRunContext,
  OpenContext,
  QuoteView,
  SlaveAccountView,
  AccountPosition,
} from './features/rules.js';
import { slaveOrderId } from './orderIds.js';
import { copiedStops, type Stops } from './reverse.js';
import { roundPrice } from './rounding.js';
import type { ProtectionBlock } from '../protection/blocks.js';
import type { CopierView, CopyAccounts, DeferAction, MarketData, MasterEvent, SkipAction, SkipReason, SlaveCopy, SymbolSpec, TradeAction } from './types.js';
/** What the copier's features need beside the master event (see features/rules.ts). */
export interface FeatureInputs {
  /** The copier's features and those of its slave account that apply to copying, in catalogue order. */
  readonly active: readonly ActiveFeature[];
  /** ISO 8601: the engine's clock. */
  readonly now: string;
  readonly history: readonly CopyRecord[];
  readonly quotes: { readonly master: QuoteView | null; readonly slave: QuoteView | null };
  readonly slaveAccount: SlaveAccountView | null;
  readonly marginPerLot: number | null;
  /** Feature types that held this event back so far (a hook decides by time whether to again). */
  readonly deferredBy: readonly string[];
  /** The master event's venue time. */
  readonly eventTime: string | null;
  /** The decision on this master event if it was held back for approval. */
  readonly approval?: ApprovalDecision | null;
  /** The slave account's open positions (rules that need 'positions'). */
  readonly slavePositions?: readonly AccountPosition[] | null;
  /** The value of a point of one lot of the slave symbol (rules that need 'pointValue'). */
  readonly pointValue?: number | null;
  /** The master's orders on the trade's symbol (rules that need 'masterOrders'). */
  readonly masterOrders?: OpenContext['masterOrders'];
  /** The slave account's protections in force (a risk limit hit, a profit target locked): no new copies. */
  readonly protections?: readonly ProtectionBlock[];
  /**
   * On a master's stop change (rules that need 'openPrices'): the master position's open price, and
   * the open prices of the slave account's positions by id.
   */
  readonly openPrices?: { readonly master: number | null; readonly slave: Readonly<Record<string, number>> } | null;
  /** The economic calendar's events around `now` (rules that need 'calendar'). */
  readonly calendar?: FeatureRunContext['calendar'];
}

export const NO_FEATURES: FeatureInputs = {
  active: [],
  now: new Date(0).toISOString(),
  history: [],
  quotes: { master: null, slave: null },
  slaveAccount: null,
  marginPerLot: null,
  deferredBy: [],
  eventTime: null,
};

/**
 * NO_FEATURES at a time: built member by member in NO_FEATURES' order, not spread (orderOf below), as
 * it is for every copier without features of every fan-out.
 */
export const noFeaturesAt = (now: string, eventTime: string | null, deferredBy: FeatureInputs['deferredBy']): FeatureInputs => ({
  active: NO_FEATURES.active,
  now,
  history: NO_FEATURES.history,
  quotes: NO_FEATURES.quotes,
  slaveAccount: null,
  marginPerLot: null,
  deferredBy,
  eventTime,
});

export interface Context {
  readonly event: MasterEvent;
  readonly copier: CopierView;
  readonly accounts: CopyAccounts;
  readonly market: MarketData;
  /** The first of `parts`: what the features see of the copy. */
  readonly copy: SlaveCopy | undefined;
  /** Every slave order copying the master position (several when forcePositionLotSize split it), by part. */
  readonly parts: readonly SlaveCopy[];
  readonly features: FeatureInputs;
}

export const runContext = (features: FeatureInputs, feature: ActiveFeature, copier: CopierView): FeatureRunContext => ({
  now: features.now,
  history: feature.accountHistory ?? features.history,
  resets: feature.resets,
  copier: copier.settings,
  eventTime: features.eventTime,
  deferredBy: features.deferredBy,
  approval: features.approval ?? null,
  ...(feature.configuredAt === undefined ? {} : { configuredAt: feature.configuredAt }),
  ...(feature.scope === undefined ? {} : { scope: feature.scope }),
  ...(features.calendar === undefined ? {} : { calendar: features.calendar }),
});

export const deferred = (masterPositionId: string, until: string, by: string, message: string): DeferAction => ({
  type: 'defer',
  masterPositionId,
  until,
  by,
  message,
});

export const skipped = (masterPositionId: string, reason: SkipReason, message: string): SkipAction => ({
  type: 'skip',
  masterPositionId,
  reason,
  message,
  wouldHave: [],
});

/**
 * The members every slave order starts with, in a new object. Callers add theirs with Object.assign
 * rather than spreading it into another literal: in Node 20's V8 a literal that spreads an object and
 * then adds members gets a map of its own on every call (some microseconds each, and garbage), where
 * members added to a fresh literal follow the transitions V8 keeps.
 */
export const orderOf = <T extends TradeAction['type']>(context: Context, type: T, symbol: string, part = 0) => ({
  type,
  clientOrderId: slaveOrderId(context.event.eventId, context.copier.id, type, part),
  masterPositionId: context.event.data.masterPositionId,
  symbol,
  ...(part === 0 ? {} : { part }),
});

export const specOf = (context: Context, symbol: string): SymbolSpec | undefined => context.market.slaveSymbols.find((spec) => spec.symbol === symbol);

/** The master event in words, for messages. */
export const EVENT_WORDS: Readonly<Record<MasterEvent['type'], string>> = {
  MasterPositionOpened: 'open',
  MasterPositionModified: 'stop loss / take profit change',
  MasterPositionPartiallyClosed: 'partial close',
  MasterPositionClosed: 'close',
  MasterPendingOrderPlaced: 'pending order',
  MasterPendingOrderModified: 'pending order change',
  MasterPendingOrderCancelled: 'cancellation',
  MasterPendingOrderFilled: 'pending order fill',
};

export const notCopied = (event: MasterEvent): string => `${EVENT_WORDS[event.type]} of master #${event.data.masterPositionId} not copied`;

/** A master price normalised to the slave's digits when its specification is known. */
export const priceFor = (price: number, spec: SymbolSpec | undefined): number => (spec ? roundPrice(price, spec.digits) : price);

/** Stops for the slave: swapped under reverse, without those not copied, normalised to the slave's digits when known. */
export const stopsFor = (context: Context, master: Stops, spec: SymbolSpec | undefined): Stops => {
  const stops = copiedStops(master, context.copier.settings);
  return {
    stopLoss: stops.stopLoss === null ? null : priceFor(stops.stopLoss, spec),
    takeProfit: stops.takeProfit === null ? null : priceFor(stops.takeProfit, spec),
  };
};
