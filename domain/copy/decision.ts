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
import type { ChangeContext, ModifyContext } from './features/rules.js';
import { type Context, deferred, notCopied, orderOf, priceFor, runContext, skipped, specOf, stopsFor } from './decisionContext.js';
import { open, openAction } from './opening.js';
import { partialCloseVolume } from './partialClose.js';
import { partialCloseOfParts, partOf } from './split.js';
import { strategySkip } from './strategyRouting.js';
import { isKeepAliveOrder } from '../keepAlive/events.js';
import { exact, toNumber, ZERO } from '../shared/decimal.js';
import type {
  CopierView,
  CopyAccounts,
  CopyAction,
  MarketData,
  MasterEvent,
  MasterTrade,
  ModifyAction,
  SkipAction,
  SkipReason,
  SlaveCopy,
  SymbolSpec,
} from './types.js';
import { type FeatureInputs, NO_FEATURES } from './decisionContext.js';

export { type FeatureInputs, NO_FEATURES, noFeaturesAt } from './decisionContext.js';

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

const cancel = (context: Context, copy: SlaveCopy): CopyAction =>
  Object.assign(orderOf(context, 'cancel', copy.symbol, partOf(copy)), { slavePositionId: copy.slavePositionId });

const close = (context: Context, copy: SlaveCopy): CopyAction =>
  Object.assign(orderOf(context, 'close', copy.symbol, partOf(copy)), { slavePositionId: copy.slavePositionId, volume: copy.volume });

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
      : Object.assign(orderOf(context, 'partialClose', c.copy.symbol, partOf(c.copy)), {
          slavePositionId: c.copy.slavePositionId,
          volume: c.volume,
          remainingVolume: c.remaining,
        }),
  );
};

// The skips of decideLive, at module level rather than closures made on every decision: under tsx
// (`npm start`), every function made inside another is named through Object.defineProperty, some
// tenths of a microsecond each, and decideLive runs once per copier of every fan-out.
const because = (event: MasterEvent, reason: SkipReason, why: string): SkipAction =>
  skipped(event.data.masterPositionId, reason, `${notCopied(event)}: ${why}`);
const noPosition = (event: MasterEvent): SkipAction => because(event, 'NO_SLAVE_POSITION', 'the slave holds no copy of that position');
const noOrder = (context: Context): SkipAction =>
  context.copier.settings.skipPendingOrders
    ? because(context.event, 'PENDING_ORDER_SKIPPED', 'pending orders are not copied (skipPendingOrders)')
    : because(context.event, 'NO_SLAVE_ORDER', 'the slave holds no copy of that pending order');

const decideLive = (context: Context): CopyAction[] => {
  const { event, parts } = context;
  const positions = parts.filter((part) => part.kind === 'position');
  const pendingOrders = parts.filter((part) => part.kind === 'pendingOrder');

  switch (event.type) {
    case 'MasterPositionOpened':
      return open(context, event.data);

    case 'MasterPendingOrderPlaced':
      if (context.copier.settings.skipPendingOrders)
        return [because(event, 'PENDING_ORDER_SKIPPED', 'pending orders are not copied (skipPendingOrders); its fill will be copied as a position')];
      return open(context, event.data);

    case 'MasterPositionModified': {
      if (positions.length === 0) return [noPosition(event)];
      const verdict = changeVerdict(context, 'onModify');
      if (verdict) return [verdict];
      return positions.map((position) => {
        const stops = stopsFor(context, event.data, specOf(context, position.symbol));
        const modify: ModifyAction = Object.assign(orderOf(context, 'modify', position.symbol, partOf(position)), {
          slavePositionId: position.slavePositionId,
          stopLoss: stops.stopLoss,
          takeProfit: stops.takeProfit,
          openPrice: null,
        });
        return adjustedModify(context, position, modify, null);
      });
    }

    case 'MasterPendingOrderModified': {
      if (pendingOrders.length === 0) return [noOrder(context)];
      return pendingOrders.map((pendingOrder) => {
        const spec = specOf(context, pendingOrder.symbol);
        const stops = stopsFor(context, event.data, spec);
        const modify: ModifyAction = Object.assign(orderOf(context, 'modify', pendingOrder.symbol, partOf(pendingOrder)), {
          slavePositionId: pendingOrder.slavePositionId,
          stopLoss: stops.stopLoss,
          takeProfit: stops.takeProfit,
          openPrice: priceFor(event.data.openPrice, spec),
        });
        return adjustedModify(context, pendingOrder, modify, event.data.openPrice);
      });
    }

    case 'MasterPositionPartiallyClosed': {
      const [position] = positions;
      if (!position) return [noPosition(event)];
      const verdict = changeVerdict(context, 'onClose');
      if (verdict) return [verdict];
      const spec = specOf(context, position.symbol);
      if (!spec) return [because(event, 'SYMBOL_SPEC_INVALID', `no specification of ${position.symbol} at the slave`)];
      return partialClose(context, positions, spec, event.data.closedVolume, event.data.remainingVolume);
    }

    case 'MasterPositionClosed': {
      // A copy still pending (its fill was never seen) has nothing left to follow.
      const cancels = pendingOrders.map((pendingOrder) => cancel(context, pendingOrder));
      if (positions.length === 0) return cancels.length > 0 ? cancels : [noPosition(event)];
      const verdict = changeVerdict(context, 'onClose');
      return [...cancels, ...(verdict ? [verdict] : positions.map((position) => close(context, position)))];
    }

    case 'MasterPendingOrderCancelled':
      // The slave's copy filled at its own broker while the master's order never did: the master
      // holds nothing, so neither does the slave.
      if (parts.length === 0) return [noOrder(context)];
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
