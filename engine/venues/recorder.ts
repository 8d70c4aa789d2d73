// Venue changes as events of the account's positions stream. Each event's id derives from what it is
// about (the position, order, trade or balance operation, and for repeatable changes the venue's
// sequence number), so the same change recorded twice, live and again by a reconciliation after a
// reconnect or a crash, is appended once. The mappers here are the one boundary from the venue port's
// spelling of a position, order, trade or balance operation (id, buy) to the events' (positionId, Buy):
// both are domain/positions/position.ts's types. They copy member by member, so a venue's live figures
// (currentPrice, profit) never reach an event.
import { uuidV5 as uuidv5 } from '../../domain/shared/uuidV5.js';
import type { MarketOrderType, PendingOrderType as SpecPendingOrderType } from '../../domain/copy/types.js';
import type { PositionsEvent } from '../../domain/positions/events.js';
import type { BalanceOperationData, ClosedTradeData, PendingOrderData, PositionData } from '../../domain/positions/position.js';
import type { BalanceOperation, ClosedTrade, OpenPosition, OrderType, PendingOrder, PendingOrderType, Side, VenueChange } from './port.js';

/** Fixed forever: changing it would record every change again after a reconnect. */
export const POSITIONS_EVENT_NAMESPACE = '0b7f4a8e-2d0c-4c55-9f43-5a3d1f0e7c21';

export const positionsEventId = (accountId: string, key: string): string => uuidv5(`${accountId}/${key}`, POSITIONS_EVENT_NAMESPACE);

const SIDE: Readonly<Record<Side, MarketOrderType>> = { buy: 'Buy', sell: 'Sell' };
const PENDING: Readonly<Record<PendingOrderType, SpecPendingOrderType>> = {
  buyLimit: 'BuyLimit',
  sellLimit: 'SellLimit',
  buyStop: 'BuyStop',
  sellStop: 'SellStop',
};
const VENUE_TYPE: Readonly<Record<MarketOrderType | SpecPendingOrderType, OrderType>> = {
  Buy: 'buy',
  Sell: 'sell',
  BuyLimit: 'buyLimit',
  SellLimit: 'sellLimit',
  BuyStop: 'buyStop',
  SellStop: 'sellStop',
};

/** The spec's spelling (Buy, SellLimit) of a venue order type, and back. */
export const specOrderType = (type: OrderType): MarketOrderType | SpecPendingOrderType => (type === 'buy' || type === 'sell' ? SIDE[type] : PENDING[type]);
export const venueOrderType = (type: MarketOrderType | SpecPendingOrderType): OrderType => VENUE_TYPE[type];

export const positionData = (p: OpenPosition): PositionData => ({
  positionId: p.id,
  symbol: p.symbol,
  orderType: SIDE[p.orderType],
  volume: p.volume,
  openPrice: p.openPrice,
  openTime: p.openTime,
  stopLoss: p.stopLoss,
  takeProfit: p.takeProfit,
  swap: p.swap,
  commission: p.commission,
  comment: p.comment,
  magicNumber: p.magicNumber,
  clientOrderId: p.clientOrderId,
});

export const orderData = (o: PendingOrder): PendingOrderData => ({
  orderId: o.id,
  symbol: o.symbol,
  orderType: PENDING[o.orderType],
  volume: o.volume,
  openPrice: o.openPrice,
  openTime: o.openTime,
  stopLoss: o.stopLoss,
  takeProfit: o.takeProfit,
  expiry: o.expiry,
  comment: o.comment,
  magicNumber: o.magicNumber,
  clientOrderId: o.clientOrderId,
});

export const tradeData = (t: ClosedTrade): ClosedTradeData => ({
  tradeId: t.id,
  positionId: t.positionId,
  symbol: t.symbol,
  orderType: SIDE[t.orderType],
  volume: t.volume,
  openPrice: t.openPrice,
  openTime: t.openTime,
  closePrice: t.closePrice,
  closeTime: t.closeTime,
  profit: t.profit,
  swap: t.swap,
  commission: t.commission,
  reason: t.reason,
  stopLoss: t.stopLoss ?? null,
  takeProfit: t.takeProfit ?? null,
  comment: t.comment,
  magicNumber: t.magicNumber,
  clientOrderId: t.clientOrderId,
});

export const balanceData = (b: BalanceOperation): BalanceOperationData => ({ operationId: b.id, time: b.time, amount: b.amount, comment: b.comment });

export interface RecordedChange {
  readonly id: string;
  readonly event: PositionsEvent;
}

/** The event a venue change becomes, with its deterministic id. */
export const recordChange = (accountId: string, change: VenueChange): RecordedChange => {
  const at = change.at;
  const id = (key: string) => positionsEventId(accountId, key);
  switch (change.type) {
    case 'positionOpened':
      return { id: id(`opened/${change.position.id}`), event: { type: 'PositionOpened', data: { accountId, at, position: positionData(change.position) } } };
    case 'positionIncreased':
      return {
        id: id(`increased/${change.position.id}/${change.sequence}`),
        event: { type: 'PositionIncreased', data: { accountId, at, position: positionData(change.position), volume: change.volume, price: change.price } },
      };
    case 'positionModified':
      return {
        id: id(`modified/${change.position.id}/${change.sequence}`),
        event: { type: 'PositionModified', data: { accountId, at, position: positionData(change.position) } },
      };
    case 'positionPartiallyClosed':
      return {
        id: id(`partial/${change.trade.id}`),
        event: { type: 'PositionPartiallyClosed', data: { accountId, at, position: positionData(change.position), trade: tradeData(change.trade) } },
      };
    case 'positionClosed':
      return { id: id(`closed/${change.trade.positionId}`), event: { type: 'PositionClosed', data: { accountId, at, trade: tradeData(change.trade) } } };
    case 'orderPlaced':
      return { id: id(`placed/${change.order.id}`), event: { type: 'PendingOrderPlaced', data: { accountId, at, order: orderData(change.order) } } };
    case 'orderModified':
      return {
        id: id(`ordermodified/${change.order.id}/${change.sequence}`),
        event: { type: 'PendingOrderModified', data: { accountId, at, order: orderData(change.order) } },
      };
    case 'orderFilled':
      return {
        id: id(`filled/${change.order.id}`),
        event: { type: 'PendingOrderFilled', data: { accountId, at, order: orderData(change.order), price: change.price } },
      };
    case 'orderCancelled':
      return {
        id: id(`cancelled/${change.order.id}`),
        event: { type: 'PendingOrderCancelled', data: { accountId, at, order: orderData(change.order), reason: change.reason } },
      };
    case 'balanceChanged':
      return { id: id(`balance/${change.operation.id}`), event: { type: 'BalanceChanged', data: { accountId, at, operation: balanceData(change.operation) } } };
    default: {
      const unhandled: never = change;
      throw new Error(`unhandled venue change ${JSON.stringify(unhandled)}`);
    }
  }
};
