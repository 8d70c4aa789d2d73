// Stop loss, take profit, stop orders and pending-order changes, per exchange: what ccxt's unified API
// leaves to each exchange's own parameters. An exchange listed here supports what its entry has; the
// rest is refused with a clear code before anything is sent (refusal below): [INVALID_STOPS] for stop
// loss / take profit, [INVALID_REQUEST] for stop orders and pending changes.
//
// Bybit v5 (linear): stop loss and take profit are the position's (tpslMode Full), attached to the
// opening order (`stopLoss` / `takeProfit`) and changed on the open position with
// /v5/position/trading-stop ("0" removes one); they are read back from /v5/position/list. Stop orders are
// conditional market orders (`triggerPrice`, `triggerDirection` 1 rising / 2 falling); a pending order's
// price, trigger or quantity changes with /v5/order/amend (ccxt editOrder).
//
// Binance USDⓈ-M: conditional orders live in the Algo Service (/fapi/v1/algoOrder, ccxt's `trigger`
// param reaches them). A position's stop loss is a close-all STOP_MARKET (closePosition true, no
// quantity) on the closing side, its take profit a close-all TAKE_PROFIT_MARKET: nothing can be attached
// to the opening order, so they are placed once it filled, changed by cancelling and placing again, and
// read back from the open algo orders (one of each on the closing side is the position's). Binance
// leaves a close-all order open when its position closes otherwise (its sibling fired, a close by hand):
// on a market gone flat, the ones placed before its last close are cancelled (leftovers), so a later
// position there is not closed by them. Stop orders are STOP_MARKET algo orders with a quantity; a triggered one
// is a market order whose fill the replay reads under the algo order's id (history.ts). Algo orders
// cannot be amended: pending changes are refused. A close-all stop carries a clientAlgoId made of its market,
// side, kind and level (closeAllClientId), so two replays placing it at once leave one.
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import { type OrderRequest, type PendingOrder, type PositionChanges, type Side, sideOf, VenueError } from '../port.js';
import { amountAt, call, classOf, exchangeClientOrderId, positive } from './orders.js';
import { binanceOrdersIn, binanceRecentOrders, type Cut } from './windows.js';
import { okxAlgoIdOf } from './okx.js';

export interface PositionStops {
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
}

export interface StopSupport {
  /** The createOrder params attaching a stop loss and take profit to an opening order; absent: set on the position once it filled. */
  readonly attach?: (stops: PositionStops) => Record<string, unknown>;
  /** The createOrder params of a stop order (a market order that waits for `trigger`; `clientId` its client id); absent: refused. */
  readonly stopOrder?: (side: Side, trigger: number, clientId: string) => Record<string, unknown>;
  /** The editOrder params of a new trigger price for a stop order; absent: pending orders are changed by `amend`, else not. */
  readonly retrigger?: (trigger: number) => Record<string, unknown>;
  /** Changes a pending order where editOrder does not reach (OKX): its new size (null: kept) and price, a stop order's trigger (null: kept). */
  readonly amend?: (exchange: Exchange, market: Market, pending: PendingOrder, change: { amount: number | null; price: number | null }) => Promise<void>;
  /** The params that reach a stop order where the exchange keeps them apart (look-up, cancel). */
  readonly conditional?: Record<string, unknown>;
  /** Sets (null: removes) the stop loss and take profit of the open position (`side`) of `market`. */
  setPositionStops(exchange: Exchange, market: Market, stops: PositionStops, side: Side): Promise<void>;
  /** The stop loss and take profit of the open positions, by market id. */
  positionStops(exchange: Exchange, open: readonly { market: Market; side: Side }[]): Promise<Map<string, PositionStops>>;
  /** Cancels the position stops left on markets that went flat: those placed before `before` (ms, the exchange's time). */
  clearLeftovers?(exchange: Exchange, flat: readonly { market: Market; before: number }[]): Promise<void>;
}

type Implicit = Record<string, (params: Record<string, unknown>) => Promise<unknown>>;

/** ccxt's unified stopLoss / takeProfit params of an opening order (Bybit: stopLoss/takeProfit; OKX: attachAlgoOrds). */
const attachTriggers = ({ stopLoss, takeProfit }: PositionStops): Record<string, unknown> => ({
  ...(stopLoss !== null ? { stopLoss: { triggerPrice: stopLoss } } : {}),
  ...(takeProfit !== null ? { takeProfit: { triggerPrice: takeProfit } } : {}),
});

const bybit: StopSupport = {
  attach: attachTriggers,
  stopOrder: (side, trigger) => ({ triggerPrice: trigger, triggerDirection: side === 'buy' ? 'ascending' : 'descending' }),
  setPositionStops: async (exchange, market, { stopLoss, takeProfit }) => {
    await (exchange as unknown as Implicit).privatePostV5PositionTradingStop!({
      category: 'linear',
      symbol: market.id,
      stopLoss: stopLoss === null ? '0' : exchange.priceToPrecision(market.symbol, stopLoss),
      takeProfit: takeProfit === null ? '0' : exchange.priceToPrecision(market.symbol, takeProfit),
      tpslMode: 'Full',
      positionIdx: 0,
    });
  },
  positionStops: async (exchange, open) => {
    const result = new Map<string, PositionStops>();
    if (open.length === 0) return result;
    const positions = await exchange.fetchPositions(open.map((o) => o.market.symbol));
    for (const p of positions) {
      const market = p.symbol ? exchange.markets?.[p.symbol] : undefined;
      if (!market || !(Number(p.contracts ?? 0) > 0)) continue;
      result.set(market.id, { stopLoss: positive(p.stopLossPrice), takeProfit: positive(p.takeProfitPrice) });
    }
    return result;
  },
  retrigger: (trigger) => ({ triggerPrice: trigger }),
};

/** Binance's close-all algo orders of a market, by kind: the stop loss is a STOP_MARKET, the take profit a TAKE_PROFIT_MARKET. */
const closeAllOf = async (exchange: Exchange, market: Market): Promise<Order[]> =>
  (await exchange.fetchOpenOrders(market.symbol, undefined, undefined, { trigger: true })).filter((o) => info(o).closePosition === true);

const info = (o: Order): Record<string, unknown> => (o.info ?? {}) as Record<string, unknown>;
const kindOf = (o: Order): keyof PositionStops | null =>
  info(o).orderType === 'STOP_MARKET' ? 'stopLoss' : info(o).orderType === 'TAKE_PROFIT_MARKET' ? 'takeProfit' : null;
const closing = (side: Side): Side => (side === 'buy' ? 'sell' : 'buy');

/**
 * The clientAlgoId of a close-all stop (ccxt sends `clientOrderId` as one on linear conditional orders): the
 * same for the same market, closing side, kind and level, so two replays placing the same stop at once get
 * Binance's duplicate refusal (-4116, unique among open algo orders) for the second instead of a second order.
 */
const closeAllClientId = (market: Market, side: Side, kind: keyof PositionStops, level: string): string =>
  exchangeClientOrderId(`close-all:${String(market.id)}:${side}:${kind}:${level}`);

const binanceusdm: StopSupport = {
  stopOrder: (_side, trigger) => ({ triggerPrice: trigger }),
  conditional: { trigger: true },
  setPositionStops: async (exchange, market, stops, side) => {
    const current = (await closeAllOf(exchange, market)).filter((o) => o.side === closing(side));
    for (const kind of ['stopLoss', 'takeProfit'] as const) {
      const want = stops[kind];
      const mine = current.filter((o) => kindOf(o) === kind);
      const kept = want === null ? undefined : mine.find((o) => o.triggerPrice === Number(exchange.priceToPrecision(market.symbol, want)));
      for (const o of mine) if (o !== kept) await exchange.cancelOrder(String(o.id), market.symbol, { trigger: true });
      if (want === null || kept) continue;
      const trigger = kind === 'stopLoss' ? { stopLossPrice: want } : { takeProfitPrice: want };
      const clientOrderId = closeAllClientId(market, closing(side), kind, String(exchange.priceToPrecision(market.symbol, want)));
      try {
        await exchange.createOrder(market.symbol, 'market', closing(side), 0, undefined, { ...trigger, closePosition: true, clientOrderId });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // -4116 "ClientOrderId is duplicated": a concurrent replay placed this very order (same market, side, kind and level).
        if (/-4116|duplicated/i.test(message)) continue;
        // -2021 "Order would immediately trigger" (ccxt: an ExchangeError): the level is on the wrong side of the price.
        if (classOf(error, 'InvalidOrder') || /-2021|immediately trigger/.test(message))
          throw new VenueError('[INVALID_STOPS]', `the exchange refused the ${kind === 'stopLoss' ? 'stop loss' : 'take profit'} ${want}: ${message}`);
        throw error;
      }
    }
  },
  positionStops: async (exchange, open) => {
    const result = new Map<string, PositionStops>();
    for (const { market, side } of open) {
      const mine = (await closeAllOf(exchange, market)).filter((o) => o.side === closing(side));
      const level = (kind: keyof PositionStops) => positive(mine.find((o) => kindOf(o) === kind)?.triggerPrice);
      result.set(String(market.id), { stopLoss: level('stopLoss'), takeProfit: level('takeProfit') });
    }
    return result;
  },
  clearLeftovers: async (exchange, flat) => {
    for (const { market, before } of flat) {
      for (const o of await closeAllOf(exchange, market))
        if ((o.timestamp ?? 0) < before) await exchange.cancelOrder(String(o.id), market.symbol, { trigger: true });
    }
  },
};

/** OKX's position stops of a swap: its pending reduce-only algo orders (conditional: one leg; oco: both), on the closing side of `side` (else both sides). */
const okxPositionAlgos = async (exchange: Exchange, market: Market, side?: Side): Promise<Order[]> =>
  (await exchange.fetchOpenOrders(market.symbol, undefined, undefined, { trigger: true, ordType: 'conditional,oco' })).filter(
    (o) => String(info(o).reduceOnly) === 'true' && (side === undefined || o.side === closing(side)),
  );

const legsOf = (o: Order): PositionStops => ({ stopLoss: positive(o.stopLossPrice), takeProfit: positive(o.takeProfitPrice) });

/** OKX's refusal of a trigger on the wrong side of the last price (51277-51280) as [INVALID_STOPS]. */
const okxRefused = async (what: string, work: () => Promise<unknown>): Promise<void> => {
  try {
    await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (classOf(error, 'InvalidOrder') || /5127[7-9]|51280/.test(message)) throw new VenueError('[INVALID_STOPS]', `the exchange refused ${what}: ${message}`);
    throw error;
  }
};

const okxLevel = (exchange: Exchange, market: Market, level: number | null): string =>
  level === null ? '0' : String(exchange.priceToPrecision(market.symbol, level));

/**
 * OKX's change of a pending order: a stop order (a trigger algo order) by amend-algos (newTriggerPx,
 * newSz: ccxt 4.5.84's editOrder sends an algo order's stop loss / take profit only), a limit order by
 * amend-order (ccxt editOrder: newPx, newSz, which counts what already filled, so that is read first).
 */
const okxAmend: StopSupport['amend'] = async (exchange, market, pending, { amount, price }) => {
  if (pending.orderType === 'buyStop' || pending.orderType === 'sellStop') {
    await (exchange as unknown as Implicit).privatePostTradeAmendAlgos!({
      instId: market.id,
      algoId: pending.id,
      ...(price !== null ? { newTriggerPx: String(price) } : {}),
      ...(amount !== null ? { newSz: String(amount) } : {}),
    });
    return;
  }
  const filled = amount === null ? 0 : ((await exchange.fetchOrder(pending.id, market.symbol)).filled ?? 0);
  const size = amount === null ? undefined : Number(exchange.amountToPrecision(market.symbol, amount + filled));
  await exchange.editOrder(pending.id, market.symbol, 'limit', sideOf(pending.orderType), size, price ?? undefined);
};

/**
 * OKX swaps (okxswap): the stop loss and take profit are attached to the opening order (ccxt's stopLoss /
 * takeProfit: attachAlgoOrds), which OKX turns into one reduce-only algo order on the closing side once it
 * fills. On the open position they are that algo order: its levels changed with amend-algos ("0" removes
 * one), a level it lacks added by cancelling it (cancel-algos) and placing one for the whole position
 * (order-algo, closeFraction 1: `conditional` with one level, `oco` with both, as ccxt places them from
 * stopLossPrice / takeProfitPrice); read back from orders-algo-pending. One left on a market gone flat
 * (the position closed otherwise) is cancelled. A stop order is a `trigger` algo order (ccxt's
 * triggerPrice: order-algo, orderPx -1, a market order once the last price reaches it) whose algoClOrdId
 * is the client id (ccxt looks algo orders up by it); read back from orders-algo-pending (okx.ts),
 * cancelled with cancel-algos, changed by okxAmend as limit orders are.
 */
const okxswap: StopSupport = {
  attach: attachTriggers,
  stopOrder: (_side, trigger, clientId) => ({ triggerPrice: trigger, algoClOrdId: clientId }),
  conditional: { trigger: true },
  amend: okxAmend,
  setPositionStops: async (exchange, market, stops, side) => {
    const [first, ...others] = await okxPositionAlgos(exchange, market, side);
    for (const o of others) await exchange.cancelOrder(String(o.id), market.symbol, { trigger: true });
    const want = { stopLoss: stops.stopLoss, takeProfit: stops.takeProfit };
    const has = first ? legsOf(first) : { stopLoss: null, takeProfit: null };
    const same = (kind: keyof PositionStops) =>
      (want[kind] === null && has[kind] === null) ||
      (want[kind] !== null && has[kind] !== null && Number(exchange.priceToPrecision(market.symbol, want[kind])) === has[kind]);
    if (first && same('stopLoss') && same('takeProfit')) return;
    const adds = (kind: keyof PositionStops) => want[kind] !== null && has[kind] === null;
    const what = `the stop loss ${want.stopLoss ?? 'none'} / take profit ${want.takeProfit ?? 'none'}`;
    if (first && !adds('stopLoss') && !adds('takeProfit') && (want.stopLoss !== null || want.takeProfit !== null)) {
      const leg = (kind: keyof PositionStops, trigger: string, order: string) =>
        has[kind] === null ? {} : { [trigger]: okxLevel(exchange, market, want[kind]), [order]: '-1' };
      await okxRefused(what, () =>
        (exchange as unknown as Implicit).privatePostTradeAmendAlgos!({
          instId: market.id,
          algoId: String(first.id),
          ...leg('stopLoss', 'newSlTriggerPx', 'newSlOrdPx'),
          ...leg('takeProfit', 'newTpTriggerPx', 'newTpOrdPx'),
        }),
      );
      return;
    }
    if (first) await exchange.cancelOrder(String(first.id), market.symbol, { trigger: true });
    if (want.stopLoss === null && want.takeProfit === null) return;
    // ccxt 4.5.84 sends both levels to order-algo only under the type 'oco' (one level: ordType conditional from 'market').
    const both = want.stopLoss !== null && want.takeProfit !== null;
    const levels = {
      ...(want.stopLoss !== null ? { stopLossPrice: want.stopLoss } : {}),
      ...(want.takeProfit !== null ? { takeProfitPrice: want.takeProfit } : {}),
    };
    await okxRefused(what, () =>
      exchange.createOrder(market.symbol, both ? 'oco' : 'market', closing(side), 0, undefined, { ...levels, closeFraction: '1', reduceOnly: true }),
    );
  },
  positionStops: async (exchange, open) => {
    const result = new Map<string, PositionStops>();
    for (const { market, side } of open) {
      const mine = (await okxPositionAlgos(exchange, market, side)).map(legsOf);
      const level = (kind: keyof PositionStops) => mine.find((legs) => legs[kind] !== null)?.[kind] ?? null;
      result.set(String(market.id), { stopLoss: level('stopLoss'), takeProfit: level('takeProfit') });
    }
    return result;
  },
  clearLeftovers: async (exchange, flat) => {
    for (const { market, before } of flat) {
      for (const o of await okxPositionAlgos(exchange, market))
        if ((o.timestamp ?? 0) < before) await exchange.cancelOrder(String(o.id), market.symbol, { trigger: true });
    }
  },
};

/** The targets whose stops the adapter places (adapter.ts CCXT_TARGETS names). */
export const STOP_SUPPORT: Readonly<Record<string, StopSupport>> = { bybit, binanceusdm, okxswap };

/** Why `request` cannot be placed at `exchangeId` by this adapter (null: it can). */
export const refusal = (exchangeId: string, request: OrderRequest): VenueError | null => {
  const support = STOP_SUPPORT[exchangeId];
  const by = Object.keys(STOP_SUPPORT).join(', ');
  if ((request.stopLoss || request.takeProfit) && !support)
    return new VenueError('[INVALID_STOPS]', `stop loss and take profit are not placed on ${exchangeId} by this adapter (${by} only): copy without them`);
  if ((request.orderType === 'buyStop' || request.orderType === 'sellStop') && !support?.stopOrder)
    return new VenueError(
      '[INVALID_REQUEST]',
      `${request.orderType} orders are not placed on ${exchangeId} by this adapter (${by} only): market and limit orders only`,
    );
  return null;
};

/**
 * An order a triggered conditional order placed, which the poll reads (connection.ts): Binance USDⓈ-M's
 * (its original type STOP_MARKET or TAKE_PROFIT_MARKET; streamed: `ot`), OKX's (an algoId: the poll
 * reads which leg fired, okx.ts).
 */
export const fromTrigger = (exchangeId: string, o: Order): boolean => {
  if (exchangeId === 'okx' || exchangeId === 'okxswap') return okxAlgoIdOf(o) !== '';
  const type = info(o).ot ?? info(o).origType;
  return exchangeId === 'binanceusdm' && (type === 'STOP_MARKET' || type === 'TAKE_PROFIT_MARKET');
};

/** Changes a pending order's price (a stop order's trigger) or volume where the exchange amends orders (Bybit, OKX swaps); else refused before sending. */
export const editPending = async (exchange: Exchange, exchangeId: string, market: Market, pending: PendingOrder, changes: PositionChanges): Promise<void> => {
  const stops = STOP_SUPPORT[exchangeId];
  if (!stops?.retrigger && !stops?.amend)
    throw new VenueError(
      '[INVALID_REQUEST]',
      `pending orders cannot be modified on ${exchangeId} by this adapter (bybit, okxswap only): cancel and place again`,
    );
  if (changes.stopLoss !== undefined || changes.takeProfit !== undefined)
    throw new VenueError('[INVALID_STOPS]', `a pending order's stop loss and take profit are not changed on ${exchangeId} by this adapter`);
  const stopOrder = pending.orderType === 'buyStop' || pending.orderType === 'sellStop';
  const amount = changes.volume !== undefined ? amountAt(exchange, market, changes.volume) : undefined;
  if (amount !== undefined && !(amount > 0)) throw new VenueError('[INVALID_VOLUME]', `${changes.volume} is below ${pending.symbol}'s step at ${exchangeId}`);
  const price = changes.openPrice !== undefined ? Number(exchange.priceToPrecision(market.symbol, changes.openPrice)) : undefined;
  if (stops.amend) return call(() => stops.amend!(exchange, market, pending, { amount: amount ?? null, price: price ?? null }));
  const type = stopOrder ? 'market' : 'limit';
  const params = stopOrder && price !== undefined ? stops.retrigger!(price) : {};
  await call(() => exchange.editOrder(pending.id, market.symbol, type, sideOf(pending.orderType), amount, stopOrder ? undefined : price, params));
};

const WEEK_MS = 7 * 86_400_000;
/** Windows of allAlgoOrders read back at most (13 weeks: Binance keeps 90 days). */
const OLDER_WINDOWS = 13;
/** Per connection (its ccxt client): algo orders found older than the window, by the id of the order they placed (final: they no longer change). */
const olderAlgos = new WeakMap<Exchange, Map<string, Order>>();

/**
 * Binance USDⓈ-M's conditional (algo) orders of a market for the replay (history.ts withTriggered):
 * allAlgoOrders answers the last 7 days only (by creation), so the open ones come from openAlgoOrders,
 * whatever their age, and one older than the window that triggered since (its market order is listed,
 * its origType a conditional type, no algo order placed it) is looked for a week at a time further back.
 * A millisecond holding more algo orders than one answer lists is told to `cut` (the account's log) and
 * read on, as the orders' windows are; without `cut` it throws.
 */
export const algoOrdersOf = async (exchange: Exchange, market: Market, orders: readonly Order[], cut?: Cut): Promise<Order[]> => {
  const recent = await binanceRecentOrders(exchange, market, { trigger: true }, cut);
  const open = await call(() => exchange.fetchOpenOrders(market.symbol, undefined, undefined, { trigger: true }));
  const byId = new Map([...recent, ...open].map((o) => [String(o.id), o]));
  const older = olderAlgos.get(exchange) ?? new Map<string, Order>();
  olderAlgos.set(exchange, older);
  const placedBy = (list: Iterable<Order>) => new Set([...list].map((o) => String(info(o).actualOrderId ?? '')));
  const known = placedBy(byId.values());
  const missing = () => orders.filter((o) => triggered(o) && !known.has(String(o.id)) && !older.has(String(o.id))).map((o) => String(o.id));
  const now = exchange.milliseconds();
  for (let window = 1; window <= OLDER_WINDOWS && missing().length > 0; window++) {
    const wanted = new Set(missing());
    const until = now - window * WEEK_MS;
    const read = await binanceOrdersIn(exchange, market, until - WEEK_MS, until, { trigger: true }, cut);
    for (const algo of read) {
      const placed = String(info(algo).actualOrderId ?? '');
      if (wanted.has(placed)) older.set(placed, algo);
    }
  }
  for (const algo of older.values()) if (!byId.has(String(algo.id))) byId.set(String(algo.id), algo);
  return [...byId.values()];
};

/** An order a triggered Binance USDⓈ-M conditional order placed (its origType the conditional type). */
const triggered = (o: Order): boolean => fromTrigger('binanceusdm', o);
