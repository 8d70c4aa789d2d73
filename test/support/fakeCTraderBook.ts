// One account of the fake cTrader Open API endpoint (fakeCTrader.ts): its balance, positions (with stop
// loss and take profit), pending limit and stop orders, orders and deals, and what the trading requests
// do to them, the way cTrader answers them: market orders fill at once (ORDER_ACCEPTED then ORDER_FILLED;
// relative stop loss and take profit set from the fill price), pending orders are ORDER_ACCEPTED and fill
// when the price reaches them (a buy limit when the ask falls to it, a buy stop when it rises to it),
// cancels are ORDER_CANCELLED, amendments of an order or of a position's protection ORDER_REPLACED.
// Closes are a closing deal with closePositionDetail. Errors are ProtoOAOrderErrorEvent with cTrader's codes.
import {
  DEAL_STATUS,
  EXECUTION,
  int,
  type Int64,
  ORDER_STATUS,
  ORDER_TYPE,
  POSITION_STATUS,
  type ProtoOADeal,
  type ProtoOAOrder,
  type ProtoOAPosition,
  TRADE_SIDE,
} from '../../engine/venues/ctrader/protocol.js';

export interface FakeSymbolSpec {
  readonly symbolId: number;
  readonly name: string;
  readonly digits: number;
  /** Cents of units. */
  readonly lotSize: number;
  readonly minVolume: number;
  readonly stepVolume: number;
  readonly maxVolume: number;
  readonly baseAssetId: number;
  readonly quoteAssetId: number;
  bid: number;
  ask: number;
}

interface FakePosition {
  readonly id: number;
  readonly symbolId: number;
  readonly side: number;
  volume: number;
  readonly price: number;
  readonly openTimestamp: number;
  readonly label?: string;
  readonly comment?: string;
  stopLoss?: number;
  takeProfit?: number;
}

/** An error cTrader answers as ProtoOAOrderErrorEvent. */
export class FakeOrderError extends Error {
  constructor(
    readonly errorCode: string,
    description: string,
  ) {
    super(description);
  }
}

/** Who asked: its execution events carry its clientMsgId; `swallow`: it hears nothing (a lost answer). */
export interface Requester {
  readonly session: unknown;
  readonly clientMsgId?: string;
  readonly swallow?: boolean;
}

export interface FakeBookContext {
  readonly symbols: readonly FakeSymbolSpec[];
  readonly now: () => number;
  readonly nextId: () => number;
  /** Execution events of the account: to the requester with its clientMsgId, to its other sessions without. */
  readonly announce: (account: FakeCTraderAccount, requester: Requester | null, events: readonly object[]) => void;
}

export interface NewOrder {
  readonly symbolId: number;
  readonly orderType: number;
  readonly tradeSide: number;
  readonly volume: number;
  readonly limitPrice?: number;
  readonly stopPrice?: number;
  readonly expirationTimestamp?: number;
  readonly stopLoss?: number;
  readonly takeProfit?: number;
  readonly relativeStopLoss?: number;
  readonly relativeTakeProfit?: number;
  readonly clientOrderId?: string;
  readonly label?: string;
  readonly comment?: string;
}

const num = (value: unknown): number | undefined => (value === undefined || value === null ? undefined : int(value as Int64));
const price = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** A ProtoOANewOrderReq's payload as the fake reads it. */
export const newOrderOf = (p: Record<string, unknown>): NewOrder => ({
  symbolId: int(p.symbolId as Int64),
  orderType: int(p.orderType as Int64),
  tradeSide: int(p.tradeSide as Int64),
  volume: int(p.volume as Int64),
  ...defined({
    limitPrice: price(p.limitPrice),
    stopPrice: price(p.stopPrice),
    expirationTimestamp: num(p.expirationTimestamp),
    stopLoss: price(p.stopLoss),
    takeProfit: price(p.takeProfit),
    relativeStopLoss: num(p.relativeStopLoss),
    relativeTakeProfit: num(p.relativeTakeProfit),
    clientOrderId: p.clientOrderId as string | undefined,
    label: p.label as string | undefined,
    comment: p.comment as string | undefined,
  }),
});

const defined = <T extends Record<string, unknown>>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;

export class FakeCTraderAccount {
  /** USD cents. */
  balance: number;
  readonly positions = new Map<number, FakePosition>();
  /** Pending orders (status ACCEPTED), by id. */
  readonly pending = new Map<number, ProtoOAOrder>();
  readonly deals: ProtoOADeal[] = [];
  readonly orders: ProtoOAOrder[] = [];

  constructor(
    readonly ctid: number,
    readonly traderLogin: number,
    readonly isLive: boolean,
    balance: number,
    private readonly context: FakeBookContext,
  ) {
    this.balance = balance;
  }

  symbol(symbolId: number): FakeSymbolSpec {
    const symbol = this.context.symbols.find((s) => s.symbolId === symbolId);
    if (!symbol) throw new FakeOrderError('SYMBOL_NOT_FOUND', 'unknown symbol');
    return symbol;
  }

  /** A new market, limit or stop order (ProtoOANewOrderReq). */
  place(o: NewOrder, requester: Requester | null): ProtoOAOrder {
    const symbol = this.symbol(o.symbolId);
    if (o.volume < symbol.minVolume || o.volume > symbol.maxVolume || o.volume % symbol.stepVolume !== 0) {
      throw new FakeOrderError('TRADING_BAD_VOLUME', `volume ${o.volume} is invalid`);
    }
    if (o.orderType === ORDER_TYPE.MARKET) {
      if (o.stopLoss !== undefined || o.takeProfit !== undefined)
        throw new FakeOrderError('TRADING_BAD_STOPS', 'absolute SL/TP is not supported for MARKET orders');
      return this.fill(o, requester, null);
    }
    if (o.orderType !== ORDER_TYPE.LIMIT && o.orderType !== ORDER_TYPE.STOP)
      throw new FakeOrderError('INVALID_REQUEST', 'the fake takes market, limit and stop orders');
    const at = o.orderType === ORDER_TYPE.LIMIT ? o.limitPrice : o.stopPrice;
    if (at === undefined || at <= 0) throw new FakeOrderError('TRADING_BAD_PRICES', 'a limit order needs limitPrice, a stop order stopPrice');
    const buy = o.tradeSide === TRADE_SIDE.BUY;
    const market = buy ? symbol.ask : symbol.bid;
    // A limit is placed on the better side of the market, a stop on the worse side.
    if ((o.orderType === ORDER_TYPE.LIMIT) === buy ? at >= market : at <= market)
      throw new FakeOrderError('TRADING_BAD_PRICES', `price ${at} is on the wrong side of ${market}`);
    this.checkStops(buy, at, o.stopLoss, o.takeProfit);
    const now = this.context.now();
    const order: ProtoOAOrder = {
      orderId: this.context.nextId(),
      tradeData: { symbolId: o.symbolId, volume: o.volume, tradeSide: o.tradeSide, openTimestamp: now, ...defined({ label: o.label, comment: o.comment }) },
      orderType: o.orderType,
      orderStatus: ORDER_STATUS.ACCEPTED,
      utcLastUpdateTimestamp: now,
      ...defined({
        limitPrice: o.limitPrice,
        stopPrice: o.stopPrice,
        expirationTimestamp: o.expirationTimestamp,
        stopLoss: o.stopLoss,
        takeProfit: o.takeProfit,
        clientOrderId: o.clientOrderId,
      }),
    };
    this.pending.set(int(order.orderId), order);
    this.orders.push(order);
    this.context.announce(this, requester, [{ executionType: EXECUTION.ORDER_ACCEPTED, order }]);
    return order;
  }

  /** ProtoOACancelOrderReq. */
  cancel(orderId: number, requester: Requester | null): void {
    const order = this.pending.get(orderId);
    if (!order) throw new FakeOrderError('ORDER_NOT_FOUND', `order ${orderId} is not pending`);
    this.pending.delete(orderId);
    const cancelled = this.record({ ...order, orderStatus: ORDER_STATUS.CANCELLED, utcLastUpdateTimestamp: this.context.now() });
    this.context.announce(this, requester, [{ executionType: EXECUTION.ORDER_CANCELLED, order: cancelled }]);
  }

  /** ProtoOAAmendOrderReq: the order becomes what the request says (left out: unchanged, but stop loss and take profit: removed). */
  amendOrder(p: Record<string, unknown>, requester: Requester | null): void {
    const orderId = int(p.orderId as Int64);
    const order = this.pending.get(orderId);
    if (!order) throw new FakeOrderError('ORDER_NOT_FOUND', `order ${orderId} is not pending`);
    const symbol = this.symbol(int(order.tradeData.symbolId));
    const volume = num(p.volume) ?? int(order.tradeData.volume);
    if (volume < symbol.minVolume || volume % symbol.stepVolume !== 0) throw new FakeOrderError('TRADING_BAD_VOLUME', `volume ${volume} is invalid`);
    const at = order.orderType === ORDER_TYPE.LIMIT ? (price(p.limitPrice) ?? order.limitPrice!) : (price(p.stopPrice) ?? order.stopPrice!);
    this.checkStops(order.tradeData.tradeSide === TRADE_SIDE.BUY, at, price(p.stopLoss), price(p.takeProfit));
    const { stopLoss: _sl, takeProfit: _tp, ...rest } = order;
    const amended: ProtoOAOrder = {
      ...rest,
      tradeData: { ...order.tradeData, volume },
      ...(order.orderType === ORDER_TYPE.LIMIT ? { limitPrice: at } : { stopPrice: at }),
      ...defined({ stopLoss: price(p.stopLoss), takeProfit: price(p.takeProfit), expirationTimestamp: num(p.expirationTimestamp) }),
      utcLastUpdateTimestamp: this.context.now(),
    };
    this.pending.set(orderId, amended);
    this.context.announce(this, requester, [{ executionType: EXECUTION.ORDER_REPLACED, order: amended }]);
  }

  /** ProtoOAAmendPositionSLTPReq: the position's protection becomes the request's (a level left out is removed). */
  amendPosition(p: Record<string, unknown>, requester: Requester | null): void {
    const positionId = int(p.positionId as Int64);
    const position = this.positions.get(positionId);
    if (!position) throw new FakeOrderError('POSITION_NOT_FOUND', `position ${positionId} is not open`);
    const symbol = this.symbol(position.symbolId);
    const buy = position.side === TRADE_SIDE.BUY;
    this.checkStops(buy, buy ? symbol.bid : symbol.ask, price(p.stopLoss), price(p.takeProfit));
    position.stopLoss = price(p.stopLoss);
    position.takeProfit = price(p.takeProfit);
    this.context.announce(this, requester, [{ executionType: EXECUTION.ORDER_REPLACED, position: this.positionMessage(positionId, POSITION_STATUS.OPEN) }]);
  }

  /** A new price: pending orders it reaches fill, positions whose stop loss or take profit it reaches close. */
  priceMoved(symbol: FakeSymbolSpec): void {
    for (const order of [...this.pending.values()]) {
      if (int(order.tradeData.symbolId) !== symbol.symbolId) continue;
      const buy = order.tradeData.tradeSide === TRADE_SIDE.BUY;
      const market = buy ? symbol.ask : symbol.bid;
      const at = order.limitPrice ?? order.stopPrice!;
      const reached = (order.orderType === ORDER_TYPE.LIMIT) === buy ? market <= at : market >= at;
      if (!reached) continue;
      this.pending.delete(int(order.orderId));
      this.fill(
        {
          symbolId: symbol.symbolId,
          orderType: order.orderType,
          tradeSide: order.tradeData.tradeSide,
          volume: int(order.tradeData.volume),
          ...defined({ stopLoss: order.stopLoss, takeProfit: order.takeProfit, label: order.tradeData.label, comment: order.tradeData.comment }),
        },
        null,
        order,
      );
    }
    for (const position of [...this.positions.values()]) {
      if (position.symbolId !== symbol.symbolId) continue;
      const buy = position.side === TRADE_SIDE.BUY;
      const exit = buy ? symbol.bid : symbol.ask;
      const stopped = position.stopLoss !== undefined && (buy ? exit <= position.stopLoss : exit >= position.stopLoss);
      const taken = position.takeProfit !== undefined && (buy ? exit >= position.takeProfit : exit <= position.takeProfit);
      if (stopped || taken) this.close(position.id, position.volume, null);
    }
  }

  /** Fills a market order, or a pending order the price reached (`pending`), as a new position. */
  fill(o: NewOrder, requester: Requester | null, pending: ProtoOAOrder | null): ProtoOAOrder {
    const symbol = this.symbol(o.symbolId);
    const now = this.context.now();
    const buy = o.tradeSide === TRADE_SIDE.BUY;
    const fillPrice = buy ? symbol.ask : symbol.bid;
    const positionId = this.context.nextId();
    const unit = 100_000;
    const stopLoss = o.relativeStopLoss !== undefined ? round(fillPrice + ((buy ? -1 : 1) * o.relativeStopLoss) / unit, symbol.digits) : o.stopLoss;
    const takeProfit = o.relativeTakeProfit !== undefined ? round(fillPrice + ((buy ? 1 : -1) * o.relativeTakeProfit) / unit, symbol.digits) : o.takeProfit;
    this.positions.set(positionId, {
      id: positionId,
      symbolId: o.symbolId,
      side: o.tradeSide,
      volume: o.volume,
      price: fillPrice,
      openTimestamp: now,
      ...defined({ label: o.label, comment: o.comment, stopLoss, takeProfit }),
    });
    const order: ProtoOAOrder = pending
      ? { ...pending, orderStatus: ORDER_STATUS.FILLED, executionPrice: fillPrice, executedVolume: o.volume, utcLastUpdateTimestamp: now, positionId }
      : {
          orderId: this.context.nextId(),
          tradeData: { symbolId: o.symbolId, volume: o.volume, tradeSide: o.tradeSide, openTimestamp: now, ...defined({ label: o.label }) },
          orderType: ORDER_TYPE.MARKET,
          orderStatus: ORDER_STATUS.FILLED,
          executionPrice: fillPrice,
          executedVolume: o.volume,
          utcLastUpdateTimestamp: now,
          positionId,
          ...defined({ clientOrderId: o.clientOrderId }),
        };
    if (pending) this.record(order);
    else this.orders.push(order);
    const deal = this.deal(order, positionId, o.symbolId, o.volume, o.tradeSide, fillPrice);
    const position = this.positionMessage(positionId, POSITION_STATUS.OPEN);
    this.context.announce(this, requester, [
      ...(pending ? [] : [{ executionType: EXECUTION.ORDER_ACCEPTED, order: { ...order, orderStatus: ORDER_STATUS.ACCEPTED }, position }]),
      { executionType: EXECUTION.ORDER_FILLED, order, position, deal },
    ]);
    return order;
  }

  /** Closes `volume` cents of a position (ProtoOAClosePositionReq, a close by hand, a stop loss or take profit). */
  close(positionId: number, volume: number, requester: Requester | null): void {
    const position = this.positions.get(positionId);
    if (!position) throw new FakeOrderError('POSITION_NOT_FOUND', 'no such position');
    if (volume <= 0 || volume > position.volume) throw new FakeOrderError('TRADING_BAD_VOLUME', `cannot close ${volume}`);
    const symbol = this.symbol(position.symbolId);
    const now = this.context.now();
    const closeSide = position.side === TRADE_SIDE.BUY ? TRADE_SIDE.SELL : TRADE_SIDE.BUY;
    const closePrice = closeSide === TRADE_SIDE.SELL ? symbol.bid : symbol.ask;
    const units = volume / 100;
    // Profit in the quote currency, USD here (the deposit currency): cents.
    const grossProfit = Math.round((closePrice - position.price) * units * (position.side === TRADE_SIDE.BUY ? 1 : -1) * 100);
    this.balance += grossProfit;
    const remaining = position.volume - volume;
    if (remaining > 0) position.volume = remaining;
    const before = this.positionMessage(positionId, remaining > 0 ? POSITION_STATUS.OPEN : POSITION_STATUS.CLOSED, volume);
    if (remaining <= 0) this.positions.delete(positionId);
    const order: ProtoOAOrder = {
      orderId: this.context.nextId(),
      tradeData: { symbolId: position.symbolId, volume, tradeSide: closeSide, openTimestamp: now },
      orderType: ORDER_TYPE.MARKET,
      orderStatus: ORDER_STATUS.FILLED,
      executionPrice: closePrice,
      executedVolume: volume,
      utcLastUpdateTimestamp: now,
      closingOrder: true,
      positionId,
    };
    this.orders.push(order);
    const deal: ProtoOADeal = {
      ...this.deal(order, positionId, position.symbolId, volume, closeSide, closePrice),
      closePositionDetail: { entryPrice: position.price, grossProfit, swap: 0, commission: 0, balance: this.balance, closedVolume: volume, moneyDigits: 2 },
    };
    this.deals[this.deals.length - 1] = deal;
    this.context.announce(this, requester, [
      { executionType: EXECUTION.ORDER_ACCEPTED, order: { ...order, orderStatus: ORDER_STATUS.ACCEPTED }, position: before },
      { executionType: EXECUTION.ORDER_FILLED, order, position: before, deal },
    ]);
  }

  positionMessage(positionId: number, status: number, volume?: number): ProtoOAPosition {
    const p = this.positions.get(positionId)!;
    return {
      positionId: p.id,
      tradeData: {
        symbolId: p.symbolId,
        volume: volume ?? p.volume,
        tradeSide: p.side,
        openTimestamp: p.openTimestamp,
        ...defined({ label: p.label, comment: p.comment }),
      },
      positionStatus: status,
      swap: 0,
      price: p.price,
      utcLastUpdateTimestamp: this.context.now(),
      commission: 0,
      moneyDigits: 2,
      ...defined({ stopLoss: p.stopLoss, takeProfit: p.takeProfit }),
    };
  }

  openPositions(): ProtoOAPosition[] {
    return [...this.positions.keys()].map((id) => this.positionMessage(id, POSITION_STATUS.OPEN));
  }

  /** A buy's stop loss below `reference` and take profit above it; a sell's the other way round. */
  private checkStops(buy: boolean, reference: number, stopLoss: number | undefined, takeProfit: number | undefined): void {
    if (stopLoss !== undefined && (buy ? stopLoss >= reference : stopLoss <= reference))
      throw new FakeOrderError('TRADING_BAD_STOPS', `stop loss ${stopLoss} is on the wrong side of ${reference}`);
    if (takeProfit !== undefined && (buy ? takeProfit <= reference : takeProfit >= reference))
      throw new FakeOrderError('TRADING_BAD_STOPS', `take profit ${takeProfit} is on the wrong side of ${reference}`);
  }

  /** Keeps the latest state of an order in the order list (the list answers each order once). */
  private record(order: ProtoOAOrder): ProtoOAOrder {
    const index = this.orders.findIndex((o) => int(o.orderId) === int(order.orderId));
    if (index >= 0) this.orders[index] = order;
    else this.orders.push(order);
    return order;
  }

  private deal(order: ProtoOAOrder, positionId: number, symbolId: number, volume: number, tradeSide: number, at: number): ProtoOADeal {
    const now = this.context.now();
    const deal: ProtoOADeal = {
      dealId: this.context.nextId(),
      orderId: order.orderId,
      positionId,
      volume,
      filledVolume: volume,
      symbolId,
      createTimestamp: now,
      executionTimestamp: now,
      executionPrice: at,
      tradeSide,
      dealStatus: DEAL_STATUS.FILLED,
      commission: 0,
      moneyDigits: 2,
    };
    this.deals.push(deal);
    return deal;
  }
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));
