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
// An inactive copier does nothing at all, closes included; a monitor-only copier answers one
// MONITOR_ONLY skip that carries what it would have done.
import { add, exact, toNumber, ZERO } from './fraction.js';
import { slaveComment, slaveMagicNumber } from './labels.js';
import { slaveOrderId } from './orderIds.js';
import { partialCloseVolume } from './partialClose.js';
import { slaveOrderType, slaveStops, type Stops } from './reverse.js';
import { roundPrice } from './rounding.js';
import { slaveVolume } from './sizing.js';
import { mapSymbol } from './symbolMapping.js';
import type {
  CopierView,
  CopyAccounts,
  CopyAction,
  MarketData,
  MasterEvent,
  MasterTrade,
  OpenAction,
  SkipAction,
  SkipReason,
  SlaveCopy,
  SymbolSpec,
  TradeAction,
} from './types.js';

interface Context {
  readonly event: MasterEvent;
  readonly copier: CopierView;
  readonly accounts: CopyAccounts;
  readonly market: MarketData;
  readonly copy: SlaveCopy | undefined;
}

const skipped = (masterPositionId: string, reason: SkipReason, message: string): SkipAction => ({
  type: 'skip',
  masterPositionId,
  reason,
  message,
  wouldHave: [],
});

const orderOf = <T extends TradeAction['type']>(context: Context, type: T, symbol: string) => ({
  type,
  clientOrderId: slaveOrderId(context.event.eventId, context.copier.id, type),
  masterPositionId: context.event.data.masterPositionId,
  symbol,
});

const specOf = (context: Context, symbol: string): SymbolSpec | undefined =>
  context.market.slaveSymbols.find((spec) => spec.symbol === symbol);

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

const describeTrade = (trade: MasterTrade): string =>
  `${trade.orderType} ${trade.volume} ${trade.symbol} (master #${trade.masterPositionId})`;

/** A master price normalised to the slave's digits when its specification is known. */
const priceFor = (price: number, spec: SymbolSpec | undefined): number => (spec ? roundPrice(price, spec.digits) : price);

/** Stops for the slave: swapped under reverse, normalised to the slave's digits when known. */
const stopsFor = (context: Context, master: Stops, spec: SymbolSpec | undefined): Stops => {
  const stops = slaveStops(master, context.copier.settings.reverse);
  return {
    stopLoss: stops.stopLoss === null ? null : priceFor(stops.stopLoss, spec),
    takeProfit: stops.takeProfit === null ? null : priceFor(stops.takeProfit, spec),
  };
};

const openLotsOf = (context: Context): number =>
  toNumber(context.accounts.slave.copies.reduce((sum, copy) => add(sum, exact(copy.volume)), ZERO));

const openAction = (
  context: Context,
  trade: MasterTrade,
  symbol: string,
  volume: number,
  spec: SymbolSpec | undefined,
  replacesPendingOrderId: string | null,
): OpenAction => {
  const { settings } = context.copier;
  const orderType = slaveOrderType(trade.orderType, settings.reverse);
  const pending = orderType !== 'Buy' && orderType !== 'Sell';
  return {
    ...orderOf(context, 'open', symbol),
    orderType,
    volume,
    openPrice: pending ? priceFor(trade.openPrice, spec) : null,
    ...stopsFor(context, trade, spec),
    comment: slaveComment(settings, trade.comment),
    magicNumber: slaveMagicNumber(settings, trade.magicNumber),
    replacesPendingOrderId,
  };
};

/** A new copy: symbol mapping, then sizing. */
const open = (context: Context, trade: MasterTrade): CopyAction[] => {
  const what = describeTrade(trade);
  if (context.copy)
    return [
      skipped(
        trade.masterPositionId,
        'ALREADY_COPIED',
        `${what} not copied again: slave ${context.copy.kind} #${context.copy.slavePositionId} already copies it`,
      ),
    ];
  const { copier, accounts, market } = context;
  const symbol = mapSymbol(
    trade.symbol,
    market.slaveSymbols.map((spec) => spec.symbol),
    copier.symbolOverrides,
  );
  const spec = symbol === null ? undefined : specOf(context, symbol);
  if (symbol === null || !spec)
    return [
      skipped(trade.masterPositionId, 'SYMBOL_NOT_MAPPED', `${what} not copied: no unique slave symbol for ${trade.symbol}`),
    ];
  const sized = slaveVolume(trade.volume, copier.settings, {
    master: accounts.master,
    slave: accounts.slave,
    slaveToMasterRate: market.slaveToMasterRate,
    masterSymbol: market.masterSymbol,
    slaveSymbol: spec,
    openLots: openLotsOf(context),
    martingale: accounts.slave.martingale,
  });
  if (!sized.ok) return [skipped(trade.masterPositionId, sized.reason, `${what} not copied: ${sized.message}`)];
  return [openAction(context, trade, symbol, sized.volume, spec, null)];
};

const cancel = (context: Context, copy: SlaveCopy): CopyAction => ({
  ...orderOf(context, 'cancel', copy.symbol),
  slavePositionId: copy.slavePositionId,
});

const close = (context: Context, copy: SlaveCopy): CopyAction => ({
  ...orderOf(context, 'close', copy.symbol),
  slavePositionId: copy.slavePositionId,
  volume: copy.volume,
});

const decideLive = (context: Context): CopyAction[] => {
  const { event, copy } = context;
  const id = event.data.masterPositionId;
  const position = copy?.kind === 'position' ? copy : undefined;
  const pendingOrder = copy?.kind === 'pendingOrder' ? copy : undefined;
  const because = (reason: SkipReason, why: string) => skipped(id, reason, `${notCopied(event)}: ${why}`);
  const noPosition = () => because('NO_SLAVE_POSITION', 'the slave holds no copy of that position');
  const noOrder = () => because('NO_SLAVE_ORDER', 'the slave holds no copy of that pending order');

  switch (event.type) {
    case 'MasterPositionOpened':
    case 'MasterPendingOrderPlaced':
      return open(context, event.data);

    case 'MasterPositionModified':
      if (!position) return [noPosition()];
      return [
        {
          ...orderOf(context, 'modify', position.symbol),
          slavePositionId: position.slavePositionId,
          ...stopsFor(context, event.data, specOf(context, position.symbol)),
          openPrice: null,
        },
      ];

    case 'MasterPendingOrderModified': {
      if (!pendingOrder) return [noOrder()];
      const spec = specOf(context, pendingOrder.symbol);
      return [
        {
          ...orderOf(context, 'modify', pendingOrder.symbol),
          slavePositionId: pendingOrder.slavePositionId,
          ...stopsFor(context, event.data, spec),
          openPrice: priceFor(event.data.openPrice, spec),
        },
      ];
    }

    case 'MasterPositionPartiallyClosed': {
      if (!position) return [noPosition()];
      const spec = specOf(context, position.symbol);
      if (!spec) return [because('SYMBOL_SPEC_INVALID', `no specification of ${position.symbol} at the slave`)];
      const part = partialCloseVolume(position.volume, event.data.closedVolume, event.data.remainingVolume, spec);
      if (part.kind === 'skip') return [because(part.reason, part.message)];
      if (part.kind === 'all') return [close(context, position)];
      return [
        {
          ...orderOf(context, 'partialClose', position.symbol),
          slavePositionId: position.slavePositionId,
          volume: part.volume,
          remainingVolume: part.remaining,
        },
      ];
    }

    case 'MasterPositionClosed':
      // A copy still pending (its fill was never seen) has nothing left to follow.
      if (pendingOrder) return [cancel(context, pendingOrder)];
      return position ? [close(context, position)] : [noPosition()];

    case 'MasterPendingOrderCancelled':
      // The slave's copy filled at its own broker while the master's order never did: the master
      // holds nothing, so neither does the slave.
      if (position) return [close(context, position)];
      return pendingOrder ? [cancel(context, pendingOrder)] : [noOrder()];

    case 'MasterPendingOrderFilled': {
      if (position) return [];
      if (!pendingOrder) return open(context, event.data);
      const spec = specOf(context, pendingOrder.symbol);
      return [
        cancel(context, pendingOrder),
        openAction(context, event.data, pendingOrder.symbol, pendingOrder.volume, spec, pendingOrder.slavePositionId),
      ];
    }

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
  }
};

/** Monitor-only: nothing is placed; one skip says what would have been. */
const monitorOnly = (masterPositionId: string, actions: CopyAction[]): CopyAction[] =>
  actions.every((action) => action.type === 'skip')
    ? actions
    : [
        {
          ...skipped(
            masterPositionId,
            'MONITOR_ONLY',
            `monitor only, nothing placed; would have: ${actions.map(describeAction).join('; ')}`,
          ),
          wouldHave: actions,
        },
      ];

export const decideCopy = (
  event: MasterEvent,
  copier: CopierView,
  accounts: CopyAccounts,
  market: MarketData,
): readonly CopyAction[] => {
  const masterPositionId = event.data.masterPositionId;
  if (!copier.settings.active)
    return [skipped(masterPositionId, 'COPIER_INACTIVE', `${notCopied(event)}: the copier is inactive`)];
  const copy = accounts.slave.copies.find((candidate) => candidate.masterPositionId === masterPositionId);
  const actions = decideLive({ event, copier, accounts, market, copy });
  return copier.settings.monitorOnly ? monitorOnly(masterPositionId, actions) : actions;
};
