// The copy decision (ARCHITECTURE.md, "Engine"): a pure function of the master event, the copier,
// both accounts and the symbol data, answering with the slave orders to place or a skip with its
// reason. No clock, no random source, no I/O; order ids derive from the master event id.
//
// Per event:
//   PositionOpened, PendingOrderPlaced  -> open (mapped symbol, sized, reversed, labelled)
//   PositionModified                    -> modify stop loss / take profit (swapped under reverse)
//   PendingOrderModified                -> modify trigger price and stops of the slave's pending order
//   PositionPartiallyClosed             -> partial close, proportional (partialClose.ts)
//   PositionClosed                      -> close
//   PendingOrderCancelled               -> cancel
//   PendingOrderFilled                  -> nothing when the slave's copy has filled too; when it is
//                                          still pending, cancel it and open at market with its
//                                          volume, so the slave holds the position as the master
//                                          does; with no copy at all, an open like PositionOpened
// forcePositionLotSize: a lot above the broker's maximum opens as several orders (parts, split.ts), and
// every later event acts on each part.
// With skipPendingOrders (the default) a pending order placed is not copied; its fill is then copied as
// a market open. An inactive copier does nothing at all, closes included; a monitor-only copier
// manages the copies it holds (modifications, closes, cancellations) but copies nothing new: an open
// answers one MONITOR_ONLY skip that carries what it would have done.
import type {
  AccountPosition,
  ActiveFeature,
  ApprovalDecision,
  ChangeContext,
  CopyRecord,
  FeatureRunContext,
  ModifyContext,
  OpenContext,
  QuoteView,
  SlaveAccountView,
} from './features/rules.js';
import { slaveComment, slaveMagicNumber } from './labels.js';
import { slaveOrderId } from './orderIds.js';
import { partialCloseVolume } from './partialClose.js';
import { largestSplit, partialCloseOfParts, partOf, splitOpen } from './split.js';
import { copiedStops, slaveOrderType, type Stops } from './reverse.js';
import { floorToStep, roundPrice } from './rounding.js';
import { slaveVolume } from './sizing.js';
import { strategyMagicNumber, strategySkip } from './strategyRouting.js';
import { isKeepAliveOrder } from '../keepAlive/events.js';
import { mapSymbol } from './symbolMapping.js';
import { protectionSkip, type ProtectionBlock } from '../protection/blocks.js';
import { exact, toNumber, ZERO } from '../shared/decimal.js';
import type {
  CopierView,
  CopyAccounts,
  CopyAction,
  DeferAction,
  MarketData,
  MasterEvent,
  MasterTrade,
  ModifyAction,
  OpenAction,
  Skip,
  SkipAction,
  SkipReason,
  SlaveCopy,
  SymbolSpec,
  TradeAction,
} from './types.js';

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

interface Context {
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

const runContext = (features: FeatureInputs, feature: ActiveFeature, copier: CopierView): FeatureRunContext => ({
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

const deferred = (masterPositionId: string, until: string, by: string, message: string): DeferAction => ({
  type: 'defer',
  masterPositionId,
  until,
  by,
  message,
});

const skipped = (masterPositionId: string, reason: SkipReason, message: string): SkipAction => ({
  type: 'skip',
  masterPositionId,
  reason,
  message,
  wouldHave: [],
});

const orderOf = <T extends TradeAction['type']>(context: Context, type: T, symbol: string, part = 0) => ({
  type,
  clientOrderId: slaveOrderId(context.event.eventId, context.copier.id, type, part),
  masterPositionId: context.event.data.masterPositionId,
  symbol,
  ...(part === 0 ? {} : { part }),
});

const specOf = (context: Context, symbol: string): SymbolSpec | undefined => context.market.slaveSymbols.find((spec) => spec.symbol === symbol);

/** The master event in words, for messages. */
const EVENT_WORDS: Readonly<Record<MasterEvent['type'], string>> = {
  MasterPositionOpened: 'open',
  MasterPositionModified: 'stop loss / take profit change',
  MasterPositionPartiallyClosed: 'partial close',
  MasterPositionClosed: 'close',
  MasterPendingOrderPlaced: 'pending order',
  MasterPendingOrderModified: 'pending order change',
  MasterPendingOrderCancelled: 'cancellation',
  MasterPendingOrderFilled: 'pending order fill',
};

const notCopied = (event: MasterEvent): string => `${EVENT_WORDS[event.type]} of master #${event.data.masterPositionId} not copied`;

const describeTrade = (trade: MasterTrade): string => `${trade.orderType} ${trade.volume} ${trade.symbol} (master #${trade.masterPositionId})`;

/** A master price normalised to the slave's digits when its specification is known. */
const priceFor = (price: number, spec: SymbolSpec | undefined): number => (spec ? roundPrice(price, spec.digits) : price);

/** Stops for the slave: swapped under reverse, without those not copied, normalised to the slave's digits when known. */
const stopsFor = (context: Context, master: Stops, spec: SymbolSpec | undefined): Stops => {
  const stops = copiedStops(master, context.copier.settings);
  return {
    stopLoss: stops.stopLoss === null ? null : priceFor(stops.stopLoss, spec),
    takeProfit: stops.takeProfit === null ? null : priceFor(stops.takeProfit, spec),
  };
};

const openLotsOf = (context: Context): number => toNumber(context.accounts.slave.copies.reduce((sum, copy) => sum.plus(exact(copy.volume)), ZERO));

const openAction = (
  context: Context,
  trade: MasterTrade,
  symbol: string,
  volume: number,
  spec: SymbolSpec | undefined,
  replacesPendingOrderId: string | null,
  part = 0,
): OpenAction => {
  const { settings } = context.copier;
  const orderType = slaveOrderType(trade.orderType, settings.reverse);
  const pending = orderType !== 'Buy' && orderType !== 'Sell';
  return {
    ...orderOf(context, 'open', symbol, part),
    orderType,
    volume,
    openPrice: pending ? priceFor(trade.openPrice, spec) : null,
    ...stopsFor(context, trade, spec),
    comment: slaveComment(settings, trade.comment),
    magicNumber: strategyMagicNumber(context.copier.strategy, slaveMagicNumber(settings, trade.magicNumber)),
    replacesPendingOrderId,
  };
};

type FeatureContext = (feature: ActiveFeature) => OpenContext;

/**
 * The lot sizing gives with the settings the features adjusted; when sizing refuses, the first
 * fallback lot a feature offers, on whole lot steps within the broker's limits. Else the refusal.
 */
const sizedVolume = (context: Context, trade: MasterTrade, spec: SymbolSpec, contextOf: FeatureContext): number | Skip => {
  const { copier, accounts, market, features } = context;
  const settings = features.active.reduce(
    (current, feature) => feature.feature.rules.sizing?.(feature.settings, current, contextOf(feature)) ?? current,
    copier.settings,
  );
  const sized = slaveVolume(trade.volume, settings, {
    master: accounts.master,
    slave: accounts.slave,
    slaveToMasterRate: market.slaveToMasterRate,
    masterSymbol: market.masterSymbol,
    slaveSymbol: spec,
    openLots: openLotsOf(context),
    martingale: accounts.slave.martingale,
    volumeOverride: features.approval?.decision === 'approved' ? features.approval.volume : null,
  });
  if (sized.ok) return sized.volume;
  const fallback = features.active
    .map((feature) => feature.feature.rules.fallback?.(feature.settings, sized, contextOf(feature)) ?? null)
    .find((answer) => answer !== null);
  if (!fallback) return sized;
  const stepped = floorToStep(exact(fallback.volume), exact(spec.lotStep));
  const ceiling = settings.forcePositionLotSize ? largestSplit(spec) : exact(spec.maxLot);
  if (stepped.lessThan(exact(spec.minLot)) || stepped.greaterThan(ceiling)) return sized;
  return toNumber(stepped);
};

/** The sized lot after each feature's adjustVolume (caps, guards), on whole lot steps; or a refusal. */
const adjustedVolume = (sized: number, spec: SymbolSpec, features: FeatureInputs, contextOf: FeatureContext): number | Skip => {
  let volume = sized;
  for (const feature of features.active) {
    const adjust = feature.feature.rules.adjustVolume;
    if (!adjust) continue;
    const adjusted = adjust(feature.settings, volume, contextOf(feature));
    if ('reason' in adjusted) return adjusted;
    // A feature's lot goes to the broker as whole steps too.
    const stepped = floorToStep(exact(adjusted.volume), exact(spec.lotStep));
    if (stepped.lessThan(exact(spec.minLot))) {
      return {
        reason: 'VOLUME_BELOW_MINIMUM',
        message: `${feature.feature.type} leaves ${adjusted.volume} lots, below the minimum ${spec.minLot} of ${spec.symbol}`,
      };
    }
    volume = toNumber(stepped);
  }
  return volume;
};

/**
 * The copier's own limits on a new copy (CopierDTO): maxOpenPositions (0 = off) counts the copies this
 * copier holds open on the slave, positions and pending orders alike; maxSlippage (points, 0 = off)
 * compares a market copy's price now (ask for a buy, bid for a sell) with the master's open price.
 */
const copierLimits = (context: Context, trade: MasterTrade, spec: SymbolSpec): Skip | null => {
  const { settings } = context.copier;
  const open = context.accounts.slave.copies.length;
  if (settings.maxOpenPositions > 0 && open >= settings.maxOpenPositions)
    return { reason: 'MAX_OPEN_POSITIONS_REACHED', message: `this copier holds ${open} open copies, its maxOpenPositions is ${settings.maxOpenPositions}` };
  const orderType = slaveOrderType(trade.orderType, settings.reverse);
  if (settings.maxSlippage > 0 && (orderType === 'Buy' || orderType === 'Sell')) {
    const quote = context.market.slaveQuote ?? null;
    if (!quote) return { reason: 'PRICE_MISSING', message: `no ${spec.symbol} price at the slave's broker to check maxSlippage ${settings.maxSlippage}` };
    const price = orderType === 'Buy' ? quote.ask : quote.bid;
    const points = Math.round(Math.abs(price - trade.openPrice) / spec.point);
    if (points > settings.maxSlippage)
      return {
        reason: 'SLIPPAGE_EXCEEDED',
        message: `the slave's ${orderType} price ${price} is ${points} points from the master's open price ${trade.openPrice}, above maxSlippage ${settings.maxSlippage}`,
      };
  }
  return null;
};

/**
 * A new copy: symbol mapping, then the features (defer, filters, sizing settings), sizing, the
 * features again (the sized lot, the order), in that order.
 */
const open = (context: Context, trade: MasterTrade): CopyAction[] => {
  const what = describeTrade(trade);
  if (context.copy)
    return [
      skipped(
        trade.masterPositionId,
        'ALREADY_COPIED',
        `${what} not copied again: slave ${context.copy.kind} #${context.parts.map((part) => part.slavePositionId).join(', #')} already copies it`,
      ),
    ];
  // The account's protections come before the features: while one is in force nothing new is copied.
  const blocked = protectionSkip(context.features.protections ?? [], null, context.copier.id);
  if (blocked) return [skipped(trade.masterPositionId, blocked.reason, `${what} not copied: ${blocked.message}`)];
  const { copier, accounts, market, features } = context;
  const symbol = mapSymbol(
    trade.symbol,
    market.slaveSymbols.map((spec) => spec.symbol),
    copier.symbolOverrides,
    copier.projectMappings,
  );
  const spec = symbol === null ? undefined : specOf(context, symbol);
  if (symbol === null || !spec) return [skipped(trade.masterPositionId, 'SYMBOL_NOT_MAPPED', `${what} not copied: no unique slave symbol for ${trade.symbol}`)];
  const symbolBlocked = protectionSkip(features.protections ?? [], symbol, copier.id);
  if (symbolBlocked) return [skipped(trade.masterPositionId, symbolBlocked.reason, `${what} not copied: ${symbolBlocked.message}`)];
  const contextOf: FeatureContext = (feature) => ({
    ...runContext(features, feature, copier),
    trade,
    slaveSymbol: symbol,
    slaveSpec: spec,
    masterSpec: market.masterSymbol,
    copies: accounts.slave.copies,
    slaveFunds: { balance: accounts.slave.balance, equity: accounts.slave.equity, currency: accounts.slave.currency },
    quotes: features.quotes,
    slaveAccount: features.slaveAccount,
    marginPerLot: features.marginPerLot,
    slavePositions: features.slavePositions ?? null,
    pointValue: features.pointValue ?? null,
    masterOrders: features.masterOrders ?? null,
  });
  const refused = (skip: Skip): CopyAction[] => [skipped(trade.masterPositionId, skip.reason, `${what} not copied: ${skip.message}`)];
  const limited = copierLimits(context, trade, spec);
  if (limited) return refused(limited);

  for (const feature of features.active) {
    const skip = feature.feature.rules.filterOpen?.(feature.settings, contextOf(feature));
    if (skip) return refused(skip);
  }
  // After the filters, so a trade they refuse is refused at once rather than later.
  for (const feature of features.active) {
    const until = feature.feature.rules.deferOpen?.(feature.settings, contextOf(feature)) ?? null;
    if (until !== null) return [deferred(trade.masterPositionId, until, feature.feature.type, `${what} held back by ${feature.feature.type} until ${until}`)];
  }
  const sized = sizedVolume(context, trade, spec, contextOf);
  if (typeof sized !== 'number') return refused(sized);
  const volume = adjustedVolume(sized, spec, features, contextOf);
  if (typeof volume !== 'number') return refused(volume);
  let action = openAction(context, trade, symbol, volume, spec, null);
  for (const feature of features.active) {
    const adjust = feature.feature.rules.adjustOpen;
    if (adjust) action = adjust(feature.settings, action, contextOf(feature));
  }
  return copier.settings.forcePositionLotSize ? splitOpen(action, spec, context.event.eventId, copier.id) : [action];
};

/** The features' say on a change (stops, a close) of a position this copier copies. */
const changeVerdict = (context: Context, hook: 'onModify' | 'onClose'): CopyAction | null => {
  const { features, event, copy } = context;
  const id = event.data.masterPositionId;
  const record = features.history.find((r) => r.masterPositionId === id);
  for (const feature of features.active) {
    const rule = feature.feature.rules[hook];
    if (!rule) continue;
    const ctx: ChangeContext = { ...runContext(features, feature, context.copier), event, copy, record, slavePositions: features.slavePositions ?? null };
    const verdict = rule(feature.settings as never, ctx);
    if (verdict === null) continue;
    if ('until' in verdict)
      return deferred(id, verdict.until, feature.feature.type, `${notCopied(event)} yet: ${feature.feature.type} holds it until ${verdict.until}`);
    return skipped(id, verdict.reason, `${notCopied(event)}: ${verdict.message}`);
  }
  return null;
};

/**
 * The modification of a master's stop change after each feature's adjustModify. A pending order's
 * trigger prices are those of the change: the master's and the copy's.
 */
const adjustedModify = (context: Context, copy: SlaveCopy, modify: ModifyAction, masterTrigger: number | null): ModifyAction => {
  const { features, event } = context;
  const record = features.history.find((r) => r.masterPositionId === event.data.masterPositionId);
  const prices = features.openPrices ?? null;
  let action = modify;
  for (const feature of features.active) {
    const adjust = feature.feature.rules.adjustModify;
    if (!adjust) continue;
    const ctx: ModifyContext = {
      ...runContext(features, feature, context.copier),
      event,
      copy,
      record,
      slaveSpec: specOf(context, copy.symbol),
      masterOpenPrice: masterTrigger ?? prices?.master ?? null,
      copyOpenPrice: modify.openPrice ?? prices?.slave[copy.slavePositionId] ?? null,
    };
    action = adjust(feature.settings, action, ctx);
  }
  return action;
};

const cancel = (context: Context, copy: SlaveCopy): CopyAction => ({
  ...orderOf(context, 'cancel', copy.symbol, partOf(copy)),
  slavePositionId: copy.slavePositionId,
});

const close = (context: Context, copy: SlaveCopy): CopyAction => ({
  ...orderOf(context, 'close', copy.symbol, partOf(copy)),
  slavePositionId: copy.slavePositionId,
  volume: copy.volume,
});

/** A master partial close over the positions copying it: proportional to their sum (partialClose.ts), from the last part back. */
const partialClose = (context: Context, positions: readonly SlaveCopy[], spec: SymbolSpec, closed: number, remaining: number): CopyAction[] => {
  const held = toNumber(positions.reduce((sum, copy) => sum.plus(exact(copy.volume)), ZERO));
  const share = partialCloseVolume(held, closed, remaining, spec);
  if (share.kind === 'skip') return [skipped(context.event.data.masterPositionId, share.reason, `${notCopied(context.event)}: ${share.message}`)];
  if (share.kind === 'all') return positions.map((copy) => close(context, copy));
  const [only] = positions;
  const closes =
    positions.length === 1 && only
      ? [{ copy: only, kind: 'partial' as const, volume: share.volume, remaining: share.remaining }]
      : partialCloseOfParts(positions, share.volume, spec);
  return closes.map((c) =>
    c.kind === 'all'
      ? close(context, c.copy)
      : {
          ...orderOf(context, 'partialClose', c.copy.symbol, partOf(c.copy)),
          slavePositionId: c.copy.slavePositionId,
          volume: c.volume,
          remainingVolume: c.remaining,
        },
  );
};

const decideLive = (context: Context): CopyAction[] => {
  const { event, parts } = context;
  const id = event.data.masterPositionId;
  const positions = parts.filter((part) => part.kind === 'position');
  const pendingOrders = parts.filter((part) => part.kind === 'pendingOrder');
  const because = (reason: SkipReason, why: string) => skipped(id, reason, `${notCopied(event)}: ${why}`);
  const noPosition = () => because('NO_SLAVE_POSITION', 'the slave holds no copy of that position');
  const noOrder = () =>
    context.copier.settings.skipPendingOrders
      ? because('PENDING_ORDER_SKIPPED', 'pending orders are not copied (skipPendingOrders)')
      : because('NO_SLAVE_ORDER', 'the slave holds no copy of that pending order');

  switch (event.type) {
    case 'MasterPositionOpened':
      return open(context, event.data);

    case 'MasterPendingOrderPlaced':
      if (context.copier.settings.skipPendingOrders)
        return [because('PENDING_ORDER_SKIPPED', 'pending orders are not copied (skipPendingOrders); its fill will be copied as a position')];
      return open(context, event.data);

    case 'MasterPositionModified': {
      if (positions.length === 0) return [noPosition()];
      const verdict = changeVerdict(context, 'onModify');
      if (verdict) return [verdict];
      return positions.map((position) => {
        const modify: ModifyAction = {
          ...orderOf(context, 'modify', position.symbol, partOf(position)),
          slavePositionId: position.slavePositionId,
          ...stopsFor(context, event.data, specOf(context, position.symbol)),
          openPrice: null,
        };
        return adjustedModify(context, position, modify, null);
      });
    }

    case 'MasterPendingOrderModified': {
      if (pendingOrders.length === 0) return [noOrder()];
      return pendingOrders.map((pendingOrder) => {
        const spec = specOf(context, pendingOrder.symbol);
        const modify: ModifyAction = {
          ...orderOf(context, 'modify', pendingOrder.symbol, partOf(pendingOrder)),
          slavePositionId: pendingOrder.slavePositionId,
          ...stopsFor(context, event.data, spec),
          openPrice: priceFor(event.data.openPrice, spec),
        };
        return adjustedModify(context, pendingOrder, modify, event.data.openPrice);
      });
    }

    case 'MasterPositionPartiallyClosed': {
      const [position] = positions;
      if (!position) return [noPosition()];
      const verdict = changeVerdict(context, 'onClose');
      if (verdict) return [verdict];
      const spec = specOf(context, position.symbol);
      if (!spec) return [because('SYMBOL_SPEC_INVALID', `no specification of ${position.symbol} at the slave`)];
      return partialClose(context, positions, spec, event.data.closedVolume, event.data.remainingVolume);
    }

    case 'MasterPositionClosed': {
      // A copy still pending (its fill was never seen) has nothing left to follow.
      const cancels = pendingOrders.map((pendingOrder) => cancel(context, pendingOrder));
      if (positions.length === 0) return cancels.length > 0 ? cancels : [noPosition()];
      const verdict = changeVerdict(context, 'onClose');
      return [...cancels, ...(verdict ? [verdict] : positions.map((position) => close(context, position)))];
    }

    case 'MasterPendingOrderCancelled':
      // The slave's copy filled at its own broker while the master's order never did: the master
      // holds nothing, so neither does the slave.
      if (parts.length === 0) return [noOrder()];
      return [...positions.map((position) => close(context, position)), ...pendingOrders.map((pendingOrder) => cancel(context, pendingOrder))];

    case 'MasterPendingOrderFilled':
      if (parts.length === 0) return open(context, event.data);
      // Each part still pending is cancelled and opened at market with its volume; a filled part stays.
      return pendingOrders.flatMap((pendingOrder) => [
        cancel(context, pendingOrder),
        openAction(
          context,
          event.data,
          pendingOrder.symbol,
          pendingOrder.volume,
          specOf(context, pendingOrder.symbol),
          pendingOrder.slavePositionId,
          partOf(pendingOrder),
        ),
      ]);

    default: {
      const unhandled: never = event;
      throw new Error(`unhandled master event ${JSON.stringify(unhandled)}`);
    }
  }
};

export const describeAction = (action: CopyAction): string => {
  switch (action.type) {
    case 'open': {
      const at = action.openPrice === null ? '' : ` at ${action.openPrice}`;
      return `open ${action.orderType} ${action.volume} ${action.symbol}${at}`;
    }
    case 'modify': {
      const price = action.openPrice === null ? '' : `, price ${action.openPrice}`;
      return `modify #${action.slavePositionId} (stop loss ${action.stopLoss}, take profit ${action.takeProfit}${price})`;
    }
    case 'partialClose':
      return `close ${action.volume} of #${action.slavePositionId}, leaving ${action.remainingVolume}`;
    case 'close':
      return `close #${action.slavePositionId} (${action.volume})`;
    case 'cancel':
      return `cancel #${action.slavePositionId}`;
    case 'skip':
      return `skip (${action.reason})`;
    case 'defer':
      return `wait until ${action.until} (${action.by})`;
  }
};

const OPENING: ReadonlySet<MasterEvent['type']> = new Set(['MasterPositionOpened', 'MasterPendingOrderPlaced', 'MasterPendingOrderFilled']);

/** Monitor-only: no new copy is placed (one skip says what would have been); the copies held are managed. */
const monitorOnly = (event: MasterEvent, actions: CopyAction[]): CopyAction[] =>
  !OPENING.has(event.type) || actions.every((action) => action.type === 'skip')
    ? actions
    : [
        {
          ...skipped(event.data.masterPositionId, 'MONITOR_ONLY', `monitor only, nothing placed; would have: ${actions.map(describeAction).join('; ')}`),
          wouldHave: actions,
        },
      ];

export const decideCopy = (
  event: MasterEvent,
  copierView: CopierView,
  accounts: CopyAccounts,
  market: MarketData,
  features: FeatureInputs = NO_FEATURES,
): readonly CopyAction[] => {
  // Features may change the copier's settings for every decision (adjustSettings).
  const settings = features.active.reduce(
    (current, feature) => feature.feature.rules.adjustSettings?.(feature.settings, current) ?? current,
    copierView.settings,
  );
  const copier: CopierView = settings === copierView.settings ? copierView : { ...copierView, settings };
  const masterPositionId = event.data.masterPositionId;
  if (!copier.settings.active) return [skipped(masterPositionId, 'COPIER_INACTIVE', `${notCopied(event)}: the copier is inactive`)];
  const parts = accounts.slave.copies.filter((candidate) => candidate.masterPositionId === masterPositionId).sort((a, b) => partOf(a) - partOf(b));
  // A strategy copier copies only its strategy's trades (a trade it holds a copy of was one already).
  if (OPENING.has(event.type) && parts.length === 0) {
    // A keep-alive trade keeps the master's own account active: it is not a trade to copy.
    if (isKeepAliveOrder((event.data as MasterTrade).clientOrderId)) {
      return [skipped(masterPositionId, 'MASTER_KEEP_ALIVE_TRADE', `${notCopied(event)}: it is the master account's own keep-alive trade`)];
    }
    const refused = strategySkip(copier.strategy, event.data as MasterTrade);
    if (refused) return [skipped(masterPositionId, refused.reason, `${notCopied(event)}: ${refused.message}`)];
  }
  const actions = decideLive({ event, copier, accounts, market, copy: parts[0], parts, features });
  return copier.settings.monitorOnly ? monitorOnly(event, actions) : actions;
};
