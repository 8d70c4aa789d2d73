// Trading: the requests a connection makes (place, modify, close, cancel), checked against the
// symbol's terms and the market, then carried out as deals.
import {
  type ClosedTrade,
  isPendingOrderRequest,
  type OpenPosition,
  type OrderRequest,
  type PendingOrder,
  type PlaceOrderResult,
  type PositionChanges,
  sideOf,
  type VenuePosition,
} from '../port.js';
import type { Book } from './book.js';
import { affordable, applyDeal, cancelOrder, closeVolume, planDeal } from './deals.js';
import type { Desk } from './desk.js';
import type { OrderRecord, PositionRecord, RecordedRequest, RequestKind, ResultOf } from './state.js';
import {
  checkedMagic,
  checkedPrice,
  checkedText,
  checkedTime,
  checkedVolume,
  checkPendingPrice,
  checkStops,
  fail,
  iso,
  lotsOf,
  optionalStop,
  volumeUnits,
} from './validation.js';
import { orderView, positionView } from './views.js';

/**
 * Runs a request at most once per client id: a repeat answers the first result and changes
 * nothing. Without an id (modify, close, cancel allow that) the request simply runs.
 */
export const once = <K extends RequestKind>(book: Book, kind: K, id: string | undefined, work: () => ResultOf<K>): ResultOf<K> => {
  if (id === undefined && kind !== 'place') return work();
  if (typeof id !== 'string' || id.length === 0) return fail('[INVALID_REQUEST]', 'a client request id must be a non-empty string');
  const earlier = book.requests.get(id);
  if (earlier) {
    if (earlier.kind !== kind) fail('[INVALID_REQUEST]', `client request id ${id} was already used for a ${earlier.kind} request`);
    return earlier.result as ResultOf<K>;
  }
  // A place repeated after its request was forgotten (book.ts REQUESTS_KEPT) still never places twice.
  if (kind === 'place' && book.requestsKeptFrom > 0 && book.holds(id)) {
    fail('[INVALID_REQUEST]', `client order id ${id} is on an open position or pending order, placed longer ago than the requests the venue keeps`);
  }
  const result = work();
  book.record({ kind, id, result } as RecordedRequest);
  return result;
};

/**
 * The client order id added to placeDeal's new result, not spread with it into another literal: in
 * Node 20's V8 that gives the result a map of its own on every call (domain/copy/decisionContext.ts, orderOf).
 */
export const place = (desk: Desk, book: Book, request: OrderRequest, clientOrderId: string): PlaceOrderResult =>
  Object.assign(placeDeal(desk, book, request, clientOrderId), { clientOrderId }) as PlaceOrderResult;

/** What a trade placed in the broker's terminal answers: as a placed order, without a client order id. */
export type TerminalTradeResult = DistributiveOmit<PlaceOrderResult, 'clientOrderId'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * A trade placed at the venue itself, as a person does in the broker's terminal: the same checks and
 * deals as a connection's order, but no client order id (the service did not place it), so what the
 * venue reports of it (positionOpened, orderPlaced, the book) carries clientOrderId null.
 */
export const placeFromTerminal = (desk: Desk, book: Book, request: OrderRequest): TerminalTradeResult => placeDeal(desk, book, request, null);

const placeDeal = (desk: Desk, book: Book, request: OrderRequest, clientOrderId: string | null): TerminalTradeResult => {
  const { market } = desk;
  const spec = market.spec(request.symbol);
  const { info } = spec;
  const type: unknown = request.orderType;
  if (type !== 'buy' && type !== 'sell' && type !== 'buyLimit' && type !== 'sellLimit' && type !== 'buyStop' && type !== 'sellStop') {
    return fail('[INVALID_REQUEST]', `unknown order type ${String(type)}`);
  }
  const volume = checkedVolume(info, request.volume);
  const stopLoss = optionalStop(info, request.stopLoss, 'stop loss');
  const takeProfit = optionalStop(info, request.takeProfit, 'take profit');
  const comment = checkedText(request.comment, 'comment');
  const magicNumber = checkedMagic(request.magicNumber);
  const now = desk.now();
  market.requireOpen(spec, now);
  const quote = market.quoteAt(info.symbol, now);

  let result: TerminalTradeResult;
  if (!isPendingOrderRequest(request)) {
    const side = request.orderType;
    const price = side === 'buy' ? quote.ask : quote.bid;
    checkStops(info, side, side === 'buy' ? quote.bid : quote.ask, stopLoss, takeProfit);
    // The ticket is only taken once the deal passes, so a refusal leaves no trace.
    const ticket = desk.peekTicket();
    const deal = { ticket, symbol: info.symbol, side, volume, price, stopLoss, takeProfit, comment, magicNumber, clientOrderId };
    const plan = planDeal(market, book, deal, now);
    if (!affordable(market, book, plan, now)) {
      fail('[NOT_ENOUGH_MONEY]', `not enough free margin for ${volume} lots of ${info.symbol}`);
    }
    desk.ticket();
    const positionId = applyDeal(desk, book, plan, now);
    result = { status: 'filled', orderId: ticket, positionId, price, volume, time: iso(now) };
  } else {
    const openPrice = checkedPrice(info, request.openPrice, '[INVALID_PRICE]', 'open price');
    checkPendingPrice(info, request.orderType, openPrice, quote);
    checkStops(info, sideOf(request.orderType), openPrice, stopLoss, takeProfit);
    let expiry: string | null = null;
    if (request.expiry !== undefined && request.expiry !== null) {
      const expiryMs = checkedTime(request.expiry, 'expiry', '[INVALID_EXPIRATION]');
      if (expiryMs <= now) fail('[INVALID_EXPIRATION]', `expiry ${request.expiry} is not in the future`);
      expiry = iso(expiryMs);
    }
    const order: OrderRecord = {
      id: desk.ticket(),
      symbol: info.symbol,
      orderType: request.orderType,
      volume,
      openPrice,
      openTime: iso(now),
      stopLoss,
      takeProfit,
      expiry,
      comment,
      magicNumber,
      clientOrderId,
    };
    book.orders.set(order.id, order);
    desk.emit(book, { type: 'orderPlaced', order: orderView(market, order, now) }, now);
    result = { status: 'placed', orderId: order.id, openPrice, volume, time: iso(now) };
  }
  return result;
};

export const modify = (desk: Desk, book: Book, id: string, changes: PositionChanges): VenuePosition => {
  const position = book.positions.get(id);
  if (position) return modifyPosition(desk, book, position, changes);
  const order = book.orders.get(id);
  if (order) return modifyOrder(desk, book, order, changes);
  return fail('[POSITION_NOT_FOUND]', `no open position or pending order ${id}`);
};

const modifyPosition = (desk: Desk, book: Book, position: PositionRecord, changes: PositionChanges): OpenPosition => {
  const { market } = desk;
  const spec = market.spec(position.symbol);
  const { info } = spec;
  const now = desk.now();
  market.requireOpen(spec, now);
  if (changes.openPrice !== undefined && checkedPrice(info, changes.openPrice, '[INVALID_PRICE]', 'open price') !== position.openPrice) {
    fail('[INVALID_PRICE]', `the open price of open position ${position.id} cannot change`);
  }
  let closeUnits = 0;
  if (changes.volume !== undefined) {
    const volume = checkedVolume(info, changes.volume);
    if (volume > position.volume) fail('[INVALID_VOLUME]', `position ${position.id} has ${position.volume} lots; a volume can only be lowered`);
    closeUnits = volumeUnits(position.volume) - volumeUnits(volume);
    if (closeUnits > 0) checkedVolume(info, lotsOf(closeUnits));
  }
  const stopLoss = changes.stopLoss === undefined ? position.stopLoss : optionalStop(info, changes.stopLoss, 'stop loss');
  const takeProfit = changes.takeProfit === undefined ? position.takeProfit : optionalStop(info, changes.takeProfit, 'take profit');
  const quote = market.quoteAt(info.symbol, now);
  const reference = position.side === 'buy' ? quote.bid : quote.ask;
  // Only a changed stop is checked: one that was valid when set may sit closer to the market now.
  const changedStopLoss = stopLoss !== position.stopLoss ? stopLoss : null;
  const changedTakeProfit = takeProfit !== position.takeProfit ? takeProfit : null;
  checkStops(info, position.side, reference, changedStopLoss, changedTakeProfit);

  if (closeUnits > 0) closeVolume(desk, book, position, lotsOf(closeUnits), 'manual', quote, now);
  const current = book.positions.get(position.id) ?? position;
  if (stopLoss === current.stopLoss && takeProfit === current.takeProfit) return positionView(market, book, current, now);
  const modified: PositionRecord = { ...current, stopLoss, takeProfit };
  book.positions.set(modified.id, modified);
  const view = positionView(market, book, modified, now);
  desk.emit(book, { type: 'positionModified', position: view }, now);
  return view;
};

const modifyOrder = (desk: Desk, book: Book, order: OrderRecord, changes: PositionChanges): PendingOrder => {
  const { market } = desk;
  const spec = market.spec(order.symbol);
  const { info } = spec;
  const now = desk.now();
  market.requireOpen(spec, now);
  const volume = changes.volume === undefined ? order.volume : checkedVolume(info, changes.volume);
  const openPrice = changes.openPrice === undefined ? order.openPrice : checkedPrice(info, changes.openPrice, '[INVALID_PRICE]', 'open price');
  const stopLoss = changes.stopLoss === undefined ? order.stopLoss : optionalStop(info, changes.stopLoss, 'stop loss');
  const takeProfit = changes.takeProfit === undefined ? order.takeProfit : optionalStop(info, changes.takeProfit, 'take profit');
  if (openPrice !== order.openPrice) checkPendingPrice(info, order.orderType, openPrice, market.quoteAt(info.symbol, now));
  checkStops(info, sideOf(order.orderType), openPrice, stopLoss, takeProfit);
  if (volume === order.volume && openPrice === order.openPrice && stopLoss === order.stopLoss && takeProfit === order.takeProfit) {
    return orderView(market, order, now);
  }
  const modified: OrderRecord = { ...order, volume, openPrice, stopLoss, takeProfit };
  book.orders.set(order.id, modified);
  const view = orderView(market, modified, now);
  desk.emit(book, { type: 'orderModified', order: view }, now);
  return view;
};

export const close = (desk: Desk, book: Book, id: string, volume: number | undefined): ClosedTrade => {
  const position = book.positions.get(id) ?? fail('[POSITION_NOT_FOUND]', `no open position ${id}`);
  const spec = desk.market.spec(position.symbol);
  const now = desk.now();
  desk.market.requireOpen(spec, now);
  let lots = position.volume;
  if (volume !== undefined) {
    lots = checkedVolume(spec.info, volume);
    if (lots > position.volume) fail('[INVALID_VOLUME]', `position ${id} has only ${position.volume} lots`);
    const remaining = volumeUnits(position.volume) - volumeUnits(lots);
    if (remaining > 0 && remaining < volumeUnits(spec.info.minVolume)) {
      fail('[INVALID_VOLUME]', `closing ${lots} lots would leave less than ${spec.info.minVolume} lots open`);
    }
  }
  return closeVolume(desk, book, position, lots, 'manual', desk.market.quoteAt(position.symbol, now), now);
};

export const cancel = (desk: Desk, book: Book, id: string): PendingOrder => {
  const order = book.orders.get(id) ?? fail('[ORDER_NOT_FOUND]', `no pending order ${id}`);
  return cancelOrder(desk, book, order, 'manual', desk.now());
};
