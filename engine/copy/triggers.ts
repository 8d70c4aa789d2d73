// What in the store makes the engine act: a master account's position events (as the copy rules'
// MasterEvents) and copier events that ask for the master's open positions to be copied (a new or
// re-activated copier with copyOpenPositions, a resync).
import type { CopierEvent } from '../../domain/copier/events.js';
import type { MarketOrderType, MasterEvent, MasterTrade, PendingOrderType } from '../../domain/copy/types.js';
import type { PendingOrderData, PositionData, PositionsEvent } from '../../domain/positions/events.js';

const tradeOf = (p: PositionData): MasterTrade<MarketOrderType> => ({
  masterPositionId: p.positionId,
  symbol: p.symbol,
  orderType: p.orderType,
  volume: p.volume,
  openPrice: p.openPrice,
  stopLoss: p.stopLoss,
  takeProfit: p.takeProfit,
  comment: p.comment,
  magicNumber: p.magicNumber,
  clientOrderId: p.clientOrderId,
  openTime: p.openTime,
});

/**
 * A pending order as a trade; its fill (MasterPendingOrderFilled) passes the side and the fill price,
 * set in this one literal rather than spread over it.
 */
const orderAsTrade = <T extends PendingOrderType | MarketOrderType>(o: PendingOrderData, orderType: T, openPrice: number): MasterTrade<T> => ({
  masterPositionId: o.orderId,
  symbol: o.symbol,
  orderType,
  volume: o.volume,
  openPrice,
  stopLoss: o.stopLoss,
  takeProfit: o.takeProfit,
  comment: o.comment,
  magicNumber: o.magicNumber,
  clientOrderId: o.clientOrderId,
  // The placement: kept when the fill is decided.
  openTime: o.openTime,
});

const orderTradeOf = (o: PendingOrderData): MasterTrade<PendingOrderType> => orderAsTrade(o, o.orderType, o.openPrice);

export const sideOfPending = (type: PendingOrderType): MarketOrderType => (type.startsWith('Buy') ? 'Buy' : 'Sell');

export type MasterTrigger =
  | { readonly kind: 'event'; readonly event: MasterEvent }
  /** Netting: volume added to an open position. Not copied; the skip says so. */
  | { readonly kind: 'increase'; readonly masterPositionId: string; readonly symbol: string; readonly volume: number };

/** The master event a positions event is, or null when it is nothing to copy. */
export const masterTriggerOf = (event: PositionsEvent, eventId: string): MasterTrigger | null => {
  const of = (e: MasterEvent): MasterTrigger => ({ kind: 'event', event: e });
  switch (event.type) {
    case 'PositionOpened':
      // The opening of a filled pending order is copied through its PendingOrderFilled.
      if (event.data.fromPendingOrder) return null;
      return of({ type: 'MasterPositionOpened', eventId, data: tradeOf(event.data.position) });
    case 'PositionModified': {
      const p = event.data.position;
      return of({
        type: 'MasterPositionModified',
        eventId,
        data: { masterPositionId: p.positionId, symbol: p.symbol, stopLoss: p.stopLoss, takeProfit: p.takeProfit },
      });
    }
    case 'PositionPartiallyClosed':
      return of({
        type: 'MasterPositionPartiallyClosed',
        eventId,
        data: {
          masterPositionId: event.data.trade.positionId,
          symbol: event.data.trade.symbol,
          closedVolume: event.data.trade.volume,
          remainingVolume: event.data.position.volume,
        },
      });
    case 'PositionClosed':
      return of({ type: 'MasterPositionClosed', eventId, data: { masterPositionId: event.data.trade.positionId, symbol: event.data.trade.symbol } });
    case 'PendingOrderPlaced':
      return of({ type: 'MasterPendingOrderPlaced', eventId, data: orderTradeOf(event.data.order) });
    case 'PendingOrderModified': {
      const o = event.data.order;
      return of({
        type: 'MasterPendingOrderModified',
        eventId,
        data: { masterPositionId: o.orderId, symbol: o.symbol, openPrice: o.openPrice, stopLoss: o.stopLoss, takeProfit: o.takeProfit },
      });
    }
    case 'PendingOrderCancelled':
      return of({ type: 'MasterPendingOrderCancelled', eventId, data: { masterPositionId: event.data.order.orderId, symbol: event.data.order.symbol } });
    case 'PendingOrderFilled': {
      const o = event.data.order;
      return of({
        type: 'MasterPendingOrderFilled',
        eventId,
        data: orderAsTrade(o, sideOfPending(o.orderType), event.data.price),
      });
    }
    case 'PositionIncreased':
      return { kind: 'increase', masterPositionId: event.data.position.positionId, symbol: event.data.position.symbol, volume: event.data.volume };
    default:
      return null;
  }
};

export type CopierTriggerKind = 'copyOpenPositions' | 'resync';

/** Whether a copier event asks for the master's open positions, and why. */
export const copierTriggerOf = (event: CopierEvent): CopierTriggerKind | null => {
  switch (event.type) {
    case 'CopierCreated':
      return event.data.settings.copyOpenPositions && event.data.settings.active ? 'copyOpenPositions' : null;
    case 'CopierUpdated':
      // Activation; whether copyOpenPositions is on is read from the copier when handled.
      return event.data.changes.active === true ? 'copyOpenPositions' : null;
    case 'CopierResyncRequested':
      return 'resync';
    default:
      return null;
  }
};

/** A master position or pending order, as the opening event the rules copy. */
export const openingEventOf = (eventId: string, item: { kind: 'position'; data: PositionData } | { kind: 'order'; data: PendingOrderData }): MasterEvent =>
  item.kind === 'position'
    ? { type: 'MasterPositionOpened', eventId, data: tradeOf(item.data) }
    : { type: 'MasterPendingOrderPlaced', eventId, data: orderTradeOf(item.data) };
