// The orders the cTrader adapter sends (connection.ts): new market and pending orders with their
// protection, amendments of pending orders and of positions' stop loss and take profit, and the
// execution events that answer them. Pure: the connection gives the symbol, its details and prices.
//
// - Pending orders: buyLimit/sellLimit are LIMIT orders at limitPrice, buyStop/sellStop STOP orders at
//   stopPrice; an expiry is GOOD_TILL_DATE at expirationTimestamp, none GOOD_TILL_CANCEL. Their stop loss
//   and take profit are absolute prices.
// - Market orders: the .proto says absolute stopLoss/takeProfit are "not supported for MARKET orders";
//   they carry relativeStopLoss/relativeTakeProfit, distances from the entry price in 1/100 000 of a
//   price unit, here from the price the order is expected to fill at (ask for a buy, bid for a sell) and
//   rounded to the symbol's digits. A fill away from that price moves both levels; the connection then
//   sets the levels asked for exactly (ProtoOAAmendPositionSLTPReq).
import type { OrderRequest, PendingOrderRequest, PositionChanges } from '../port.js';
import { isPendingOrderRequest, VenueError } from '../port.js';
import type { BookOrder } from './book.js';
import {
  EXECUTION,
  type Frame,
  ORDER_TYPE,
  PT,
  type ProtoOAAmendOrderReq,
  type ProtoOAExecutionEvent,
  type ProtoOANewOrderReq,
  TIME_IN_FORCE,
  TRADE_SIDE,
} from './protocol.js';

/** What a new order needs besides the request: the account, the symbol and its volume in cents. */
export interface OrderTarget {
  readonly ctid: number;
  readonly symbolId: number;
  /** ProtoOASymbol.digits. */
  readonly digits: number;
  readonly volume: number;
  readonly clientOrderId: string;
  /** The price a market order is expected to fill at (ask for a buy, bid for a sell); unused for pending orders. */
  readonly entry: number;
}

const isBuy = (request: OrderRequest): boolean => request.orderType === 'buy' || request.orderType === 'buyLimit' || request.orderType === 'buyStop';

/**
 * A distance in 1/100 000 of a price unit, rounded to the symbol's digits (cTrader refuses finer ones);
 * [INVALID_STOPS] when the level is on the wrong side of the entry.
 */
export const relativeDistance = (distance: number, digits: number, what: string): number => {
  const unit = 10 ** Math.max(0, 5 - digits);
  const value = Math.round(Math.round(distance * 100_000) / unit) * unit;
  if (value <= 0) throw new VenueError('[INVALID_STOPS]', `the ${what} is on the wrong side of the market price`);
  return value;
};

/** The protection of a market order as distances from its entry. */
const relativeProtection = (request: OrderRequest, target: OrderTarget): Pick<ProtoOANewOrderReq, 'relativeStopLoss' | 'relativeTakeProfit'> => {
  const buy = isBuy(request);
  const out: { relativeStopLoss?: number; relativeTakeProfit?: number } = {};
  if (request.stopLoss)
    out.relativeStopLoss = relativeDistance(buy ? target.entry - request.stopLoss : request.stopLoss - target.entry, target.digits, 'stop loss');
  if (request.takeProfit)
    out.relativeTakeProfit = relativeDistance(buy ? request.takeProfit - target.entry : target.entry - request.takeProfit, target.digits, 'take profit');
  return out;
};

/** The pending part of a new order: type, price, time in force and absolute protection. */
const pendingTerms = (request: PendingOrderRequest): Partial<ProtoOANewOrderReq> => {
  const limit = request.orderType === 'buyLimit' || request.orderType === 'sellLimit';
  const expiry = request.expiry ? Date.parse(request.expiry) : null;
  if (expiry !== null && !Number.isFinite(expiry)) throw new VenueError('[INVALID_EXPIRATION]', `expiry ${request.expiry} is not a time`);
  return {
    orderType: limit ? ORDER_TYPE.LIMIT : ORDER_TYPE.STOP,
    ...(limit ? { limitPrice: request.openPrice } : { stopPrice: request.openPrice }),
    ...(expiry !== null ? { timeInForce: TIME_IN_FORCE.GOOD_TILL_DATE, expirationTimestamp: expiry } : { timeInForce: TIME_IN_FORCE.GOOD_TILL_CANCEL }),
    ...(request.stopLoss ? { stopLoss: request.stopLoss } : {}),
    ...(request.takeProfit ? { takeProfit: request.takeProfit } : {}),
  };
};

/** The ProtoOANewOrderReq of a port order. */
export const newOrderOf = (request: OrderRequest, target: OrderTarget): ProtoOANewOrderReq => ({
  ctidTraderAccountId: target.ctid,
  symbolId: target.symbolId,
  orderType: ORDER_TYPE.MARKET,
  tradeSide: isBuy(request) ? TRADE_SIDE.BUY : TRADE_SIDE.SELL,
  volume: target.volume,
  clientOrderId: target.clientOrderId,
  ...(isPendingOrderRequest(request) ? pendingTerms(request) : relativeProtection(request, target)),
  ...(request.magicNumber !== null && request.magicNumber !== undefined ? { label: String(request.magicNumber) } : {}),
  ...(request.comment ? { comment: request.comment.slice(0, 512) } : {}),
});

/** The stop loss and take profit wanted after `changes` (omitted: kept, null: removed). */
export const protectionAfter = (
  current: { readonly stopLoss: number | null; readonly takeProfit: number | null },
  changes: PositionChanges,
): { stopLoss: number | null; takeProfit: number | null } => ({
  stopLoss: changes.stopLoss === undefined ? current.stopLoss : changes.stopLoss || null,
  takeProfit: changes.takeProfit === undefined ? current.takeProfit : changes.takeProfit || null,
});

/** The whole pending order wanted after `changes`, as ProtoOAAmendOrderReq (volume in cents). */
export const amendmentOf = (ctid: number, order: BookOrder, changes: PositionChanges, volume: number): ProtoOAAmendOrderReq => {
  const price = changes.openPrice ?? order.openPrice;
  const limit = order.orderType === 'buyLimit' || order.orderType === 'sellLimit';
  const { stopLoss, takeProfit } = protectionAfter(order, changes);
  return {
    ctidTraderAccountId: ctid,
    orderId: Number(order.id),
    volume,
    ...(limit ? { limitPrice: price } : { stopPrice: price }),
    ...(order.expiry ? { expirationTimestamp: Date.parse(order.expiry) } : {}),
    ...(stopLoss !== null ? { stopLoss } : {}),
    ...(takeProfit !== null ? { takeProfit } : {}),
  };
};

/** Two prices the same to the symbol's precision (a level read back from cTrader against the one asked). */
export const samePrice = (a: number | null, b: number | null): boolean => (a === null || b === null ? a === b : Math.abs(a - b) < 1e-9);

/** The execution event of `types` that answers a request (filled, accepted, replaced, cancelled). */
export const executionOf =
  (...types: readonly number[]) =>
  (frame: Frame): ProtoOAExecutionEvent | undefined => {
    if (frame.payloadType !== PT.EXECUTION_EVENT) return undefined;
    const event = frame.payload as ProtoOAExecutionEvent;
    return types.includes(event.executionType) && (event.order || event.position) ? event : undefined;
  };

export const FILLED = executionOf(EXECUTION.ORDER_FILLED);
export const ACCEPTED = executionOf(EXECUTION.ORDER_ACCEPTED);
export const REPLACED = executionOf(EXECUTION.ORDER_REPLACED);
export const CANCELLED = executionOf(EXECUTION.ORDER_CANCELLED);
