// Orders of a ccxt account (connection.ts): the exchange client order id of an engine id, an order
// looked up by it, the account's orders of a market as the replay reads them (book.ts), and ccxt's
// unified order as the replay's ExchangeOrder.
import { createHash } from 'node:crypto';
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import type { CloseReason } from '../port.js';
import type { ExchangeOrder } from './book.js';
import { venueErrorOf } from './errors.js';

/** The exchange client order id of an engine id: its 32 hex digits for a uuid, else a digest of it. */
export const exchangeClientOrderId = (id: string): string =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
    ? id.replace(/-/g, '').toLowerCase()
    : createHash('sha256').update(id).digest('hex').slice(0, 32);

export const positive = (value: number | undefined | null): number | null => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null);

/** ccxt's call, its refusals as VenueErrors. */
export const call = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    throw venueErrorOf(error);
  }
};

/**
 * Every order of a market: one call where the exchange lists all of them (Binance's allOrders), else
 * the open ones and the closed and cancelled ones (Bybit's realtime and history, OKX's orders-pending
 * and orders-history: those keep 7 days, so an order older than that leaves the book).
 */
export const ordersOf = async (exchange: Exchange, market: Market, params: Record<string, string> = {}): Promise<Order[]> => {
  if (exchange.has.fetchOrders === true) return call(() => exchange.fetchOrders(market.symbol, undefined, undefined, params));
  const open = await call(() => exchange.fetchOpenOrders(market.symbol, undefined, undefined, params));
  const done =
    exchange.has.fetchCanceledAndClosedOrders === true
      ? await call(() => exchange.fetchCanceledAndClosedOrders(market.symbol, undefined, undefined, params))
      : await call(() => exchange.fetchClosedOrders(market.symbol, undefined, undefined, params));
  return [...open, ...done];
};

/** The order placed under a client id, or null. `byList`: asked through the order lists (Bybit's orderLinkId filter). */
export const lookUpOrder = async (
  exchange: Exchange,
  market: Market,
  clientId: string,
  byList: boolean,
  conditional: Record<string, unknown> = {},
): Promise<Order | null> => {
  if (byList) {
    const found = await ordersOf(exchange, market, { orderLinkId: clientId });
    return found.find((o) => o.clientOrderId === clientId) ?? null;
  }
  try {
    return await exchange.fetchOrder('', market.symbol, { clientOrderId: clientId, ...conditional });
  } catch (error) {
    if (classOf(error, 'OrderNotFound')) return null;
    throw venueErrorOf(error);
  }
};

/** An order's fees as ccxt tells them (its `fees`, else its one `fee`), with the market's base and quote coins. */
const feesOf = (o: Order): { fees: Order['fee'][]; base: string | undefined; quote: string | undefined } => {
  const [base, quote] = (o.symbol ?? '').split(/[/:]/);
  const all = (o as Order & { fees?: Order['fee'][] }).fees;
  return { fees: all && all.length > 0 ? all : o.fee ? [o.fee] : [], base, quote };
};

const costOf = (fee: Order['fee']): number | null => {
  const cost = fee?.cost;
  return typeof cost === 'number' && Number.isFinite(cost) ? cost : null;
};

/**
 * The fees an order paid so far in its market's quote currency (the account's): a fee in the base coin
 * at the order's average price; a fee in another coin (Binance's BNB) is not counted.
 */
export const feeOf = (o: Order): number => {
  const { fees, base, quote } = feesOf(o);
  let sum = 0;
  for (const fee of fees) {
    const cost = costOf(fee);
    if (cost === null) continue;
    if (fee?.currency === quote) sum += cost;
    else if (fee?.currency === base && o.average) sum += cost * o.average;
  }
  return Math.round(sum * 1e10) / 1e10;
};

/** The coins of the market's base coin the order's fees took (OKX spot: a buy pays its fee in the coin it bought); 0: none. */
export const baseFeeOf = (o: Order): number => {
  const { fees, base } = feesOf(o);
  let sum = 0;
  for (const fee of fees) if (fee?.currency === base) sum += costOf(fee) ?? 0;
  return Math.round(sum * 1e10) / 1e10;
};

/**
 * ccxt's order as the replay's; `withFees`: the exchange's orders carry their cumulative fees (OKX, Bybit),
 * the coins a base-coin fee took among them (`baseFee`: on spot a buy adds that much less, book.ts).
 */
export const exchangeOrderOf = (o: Order, symbol: string, withFees = false): ExchangeOrder => {
  const baseFee = withFees ? baseFeeOf(o) : 0;
  return {
    id: String(o.id),
    clientOrderId: o.clientOrderId ?? null,
    symbol,
    side: o.side === 'sell' ? 'sell' : 'buy',
    type: o.type ?? 'market',
    status: o.status ?? 'closed',
    amount: o.amount ?? 0,
    filled: o.filled ?? 0,
    average: o.average ?? (o.filled && o.cost ? o.cost / o.filled : (o.price ?? null)),
    price: o.type === 'limit' ? (o.price ?? null) : null,
    timestamp: o.timestamp ?? 0,
    lastTradeTimestamp: o.lastTradeTimestamp ?? o.lastUpdateTimestamp ?? o.timestamp ?? 0,
    stopLoss: positive(o.stopLossPrice),
    takeProfit: positive(o.takeProfitPrice),
    triggerPrice: positive(o.triggerPrice),
    closeReason: closeReasonOf(o),
    fee: withFees ? feeOf(o) : 0,
    ...(baseFee > 0 ? { baseFee } : {}),
  };
};

/**
 * What closed a position when its closing order says so (Bybit's createType; Binance USDⓈ-M: a close-all
 * conditional order's type; OKX: the leg of the TP/SL algo order that placed it, okx.ts); else manual.
 */
const closeReasonOf = (o: Order): CloseReason => {
  const info = (o.info ?? {}) as Record<string, unknown>;
  const closeAll = info.closePosition === true ? (info.orderType ?? info.origType) : undefined;
  if (info.createType === 'CreateByStopLoss' || closeAll === 'STOP_MARKET' || info.actualSide === 'sl') return 'stopLoss';
  if (info.createType === 'CreateByTakeProfit' || closeAll === 'TAKE_PROFIT_MARKET' || info.actualSide === 'tp') return 'takeProfit';
  return 'manual';
};

/** `volume` cut to the market's amount precision; 0 when nothing is left (ccxt throws below one step). */
export const amountAt = (exchange: Exchange, market: Market, volume: number): number => {
  try {
    return Number(exchange.amountToPrecision(market.symbol, volume));
  } catch {
    return 0;
  }
};

/** True: the order says whether and how it filled (a market order is not left open unless it waits for its trigger). */
export const settled = (order: Order): boolean =>
  order.status !== undefined &&
  order.filled !== undefined &&
  order.type !== undefined &&
  !(order.type === 'market' && order.status === 'open' && !positive(order.triggerPrice));

export const classOf = (error: unknown, name: string): boolean => {
  for (let proto: unknown = error === null || typeof error !== 'object' ? null : Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === name) return true;
  }
  return false;
};
