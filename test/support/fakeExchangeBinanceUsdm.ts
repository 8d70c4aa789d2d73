// Binance USDⓈ-M futures (/fapi) for the fake exchange (fakeExchange.ts): exchangeInfo with the futures
// filters (PRICE_FILTER, LOT_SIZE, MIN_NOTIONAL), tickers, the v3 account, order (new, query, cancel),
// openOrders, allOrders and userTrades (the fills with their commissions), signed like spot (X-MBX-APIKEY, HMAC-SHA256 hex of the query), with the
// futures error codes (-2019 margin insufficient, -4164 notional too small, -1111 precision).
// Conditional orders (STOP_MARKET, TAKE_PROFIT_MARKET, with a quantity or closePosition) are the Algo
// Service's since December 2025, as ccxt places them: POST/GET/DELETE /fapi/v1/algoOrder, openAlgoOrders
// and allAlgoOrders (7-day windows like allOrders). A triggered one becomes a MARKET order in the order
// book (its origType the algo's type, its id the algo's actualOrderId) and the algo FINISHED with its
// executedQty and avgPrice; a close-all one triggered with no position to close EXPIRES. Like Binance,
// the fake leaves a close-all order open when its position is closed otherwise (its sibling fired).
import type { DialectApi, FakeExchange, FakeMarket, FakeOrder, FakeRequest, Reply } from './fakeExchange.js';
import { isRefusal, num } from './fakeExchange.js';
import { binanceAuth, binancePlaceRequest, binanceStatus, binanceTicker, findBinanceOrder, tradesOf } from './fakeExchangeBinance.js';

const orderJson = (o: FakeOrder): Record<string, unknown> => ({
  orderId: o.orderId,
  symbol: o.symbol,
  status: binanceStatus(o),
  clientOrderId: o.clientOrderId,
  price: num(o.price, 2),
  avgPrice: o.executedQty > 0 ? String(o.cummulativeQuoteQty / o.executedQty) : '0',
  origQty: String(o.origQty),
  executedQty: String(o.executedQty),
  cumQuote: String(o.cummulativeQuoteQty),
  timeInForce: o.type === 'LIMIT' ? 'GTC' : 'GTC',
  type: o.type,
  reduceOnly: o.reduceOnly,
  closePosition: o.closePosition === true,
  side: o.side,
  positionSide: 'BOTH',
  stopPrice: '0',
  workingType: 'CONTRACT_PRICE',
  priceProtect: false,
  origType: o.origType ?? o.type,
  priceMatch: 'NONE',
  selfTradePreventionMode: 'EXPIRE_MAKER',
  goodTillDate: 0,
  time: o.time,
  updateTime: o.updateTime,
});

const WEEK_MS = 7 * 86_400_000;

/** A conditional order of the Algo Service. */
export interface FakeAlgoOrder {
  readonly algoId: number;
  readonly apiKey: string;
  readonly symbol: string;
  readonly clientAlgoId: string;
  readonly side: 'BUY' | 'SELL';
  readonly orderType: 'STOP_MARKET' | 'TAKE_PROFIT_MARKET';
  /** 0 with closePosition. */
  readonly quantity: number;
  readonly closePosition: boolean;
  readonly triggerPrice: number;
  algoStatus: 'NEW' | 'FINISHED' | 'CANCELED' | 'EXPIRED';
  createTime: number;
  updateTime: number;
  actualOrderId: number | null;
  executedQty: number;
  avgPrice: number;
}

const algoJson = (a: FakeAlgoOrder): Record<string, unknown> => ({
  algoId: a.algoId,
  clientAlgoId: a.clientAlgoId,
  algoType: 'CONDITIONAL',
  orderType: a.orderType,
  symbol: a.symbol,
  side: a.side,
  positionSide: 'BOTH',
  timeInForce: 'GTC',
  quantity: String(a.quantity),
  algoStatus: a.algoStatus,
  triggerPrice: String(a.triggerPrice),
  price: '0',
  icebergQuantity: null,
  selfTradePreventionMode: 'EXPIRE_MAKER',
  workingType: 'CONTRACT_PRICE',
  priceMatch: 'NONE',
  closePosition: a.closePosition,
  priceProtect: false,
  reduceOnly: a.closePosition,
  createTime: a.createTime,
  updateTime: a.updateTime,
  triggerTime: a.actualOrderId === null ? 0 : a.updateTime,
  goodTillDate: 0,
  actualOrderId: a.actualOrderId === null ? '' : String(a.actualOrderId),
  executedQty: String(a.executedQty),
  avgPrice: String(a.avgPrice),
});

/** True: the price has reached the trigger (STOP_MARKET buys rising, sells falling; TAKE_PROFIT_MARKET the other way). */
const reached = (a: { side: 'BUY' | 'SELL'; orderType: FakeAlgoOrder['orderType']; triggerPrice: number }, market: FakeMarket): boolean => {
  const price = a.side === 'BUY' ? market.ask : market.bid;
  const rising = (a.orderType === 'STOP_MARKET') === (a.side === 'BUY');
  return rising ? price >= a.triggerPrice : price <= a.triggerPrice;
};

/** The algo orders of `symbol` the price has reached become market orders (setPrice). */
export const triggerAlgoOrders = (exchange: FakeExchange, symbol: string): void => {
  const market = exchange.markets.get(symbol)!;
  for (const algo of exchange.algoOrders) {
    if (algo.symbol !== symbol || algo.algoStatus !== 'NEW' || !reached(algo, market)) continue;
    algo.updateTime = exchange.now();
    const held = exchange.position(algo.apiKey, symbol);
    const closes = Math.sign(held) === (algo.side === 'BUY' ? -1 : 1);
    const quantity = algo.closePosition ? (closes ? Math.abs(held) : 0) : algo.quantity;
    const placed =
      quantity > 0
        ? exchange.place(algo.apiKey, {
            symbol,
            side: algo.side,
            type: 'MARKET',
            quantity,
            reduceOnly: algo.closePosition,
            origType: algo.orderType,
            closePosition: algo.closePosition,
          })
        : null;
    if (!placed || isRefusal(placed)) {
      algo.algoStatus = 'EXPIRED';
      continue;
    }
    Object.assign(algo, {
      algoStatus: 'FINISHED',
      actualOrderId: placed.orderId,
      executedQty: placed.executedQty,
      avgPrice: placed.executedQty > 0 ? placed.cummulativeQuoteQty / placed.executedQty : 0,
    });
  }
};

/** The 7-day window of a history query (allOrders, allAlgoOrders): the last 7 days unless told, never longer. */
const windowOf = (exchange: FakeExchange, params: URLSearchParams): { from: number; to: number } | Reply => {
  const start = params.get('startTime') ? Number(params.get('startTime')) : null;
  const end = params.get('endTime') ? Number(params.get('endTime')) : null;
  const to = end ?? (start !== null ? start + WEEK_MS : exchange.now());
  const from = start ?? to - WEEK_MS;
  if (to - from > WEEK_MS) return { status: 400, json: { code: -1127, msg: 'More than 7 days between startTime and endTime.' } };
  return { from: Math.max(from, exchange.now() - 90 * 86_400_000), to };
};

const algoApi = (exchange: FakeExchange, request: FakeRequest, apiKey: string, params: URLSearchParams): Reply | null => {
  const { method, path } = request;
  const mine = exchange.algoOrders.filter((a) => a.apiKey === apiKey && (!params.get('symbol') || a.symbol === params.get('symbol')));
  if (method === 'POST' && path === '/fapi/v1/algoOrder') {
    const market = exchange.markets.get(params.get('symbol') ?? '');
    const type = params.get('type');
    if (!market) return { status: 400, json: { code: -1121, msg: 'Invalid symbol.' } };
    if (params.get('algoType') !== 'CONDITIONAL' || (type !== 'STOP_MARKET' && type !== 'TAKE_PROFIT_MARKET'))
      return { status: 400, json: { code: -1116, msg: 'Invalid orderType.' } };
    const closePosition = params.get('closePosition') === 'true';
    const quantity = closePosition ? 0 : Number(params.get('quantity'));
    const side = params.get('side') === 'SELL' ? 'SELL' : 'BUY';
    const triggerPrice = Number(params.get('triggerPrice'));
    const clientAlgoId = params.get('clientAlgoId') ?? `algo${exchange.algoOrders.length + 1}`;
    if (mine.some((a) => a.clientAlgoId === clientAlgoId && a.algoStatus === 'NEW'))
      return { status: 400, json: { code: -4116, msg: 'ClientOrderId is duplicated.' } };
    if (!closePosition && !(quantity >= Number(market.minQty)))
      return { status: 400, json: { code: -1111, msg: 'Precision is over the maximum defined for this asset.' } };
    if (!closePosition && quantity * triggerPrice < Number(market.minNotional))
      return { status: 400, json: { code: -4164, msg: `Order's notional must be no smaller than ${market.minNotional} (unless you choose reduce only).` } };
    if (!(triggerPrice > 0) || reached({ side, orderType: type, triggerPrice }, market))
      return { status: 400, json: { code: -2021, msg: 'Order would immediately trigger.' } };
    const now = exchange.now();
    const algo: FakeAlgoOrder = {
      algoId: 700_000 + exchange.algoOrders.length,
      apiKey,
      symbol: market.symbol,
      clientAlgoId,
      side,
      orderType: type,
      quantity,
      closePosition,
      triggerPrice,
      algoStatus: 'NEW',
      createTime: now,
      updateTime: now,
      actualOrderId: null,
      executedQty: 0,
      avgPrice: 0,
    };
    exchange.algoOrders.push(algo);
    return { status: 200, json: algoJson(algo) };
  }
  if ((method === 'GET' || method === 'DELETE') && path === '/fapi/v1/algoOrder') {
    const algo = mine.find((a) => (params.get('algoId') ? String(a.algoId) === params.get('algoId') : a.clientAlgoId === params.get('clientAlgoId')));
    if (!algo) return { status: 400, json: { code: -2013, msg: 'Order does not exist.' } };
    if (method === 'GET') return { status: 200, json: algoJson(algo) };
    if (algo.algoStatus !== 'NEW') return { status: 400, json: { code: -2011, msg: 'Unknown order sent.' } };
    algo.algoStatus = 'CANCELED';
    algo.updateTime = exchange.now();
    return { status: 200, json: { algoId: algo.algoId, clientAlgoId: algo.clientAlgoId, code: '200', msg: 'success' } };
  }
  if (method === 'GET' && path === '/fapi/v1/openAlgoOrders') return { status: 200, json: mine.filter((a) => a.algoStatus === 'NEW').map(algoJson) };
  if (method === 'GET' && path === '/fapi/v1/allAlgoOrders') {
    const window = windowOf(exchange, params);
    if ('status' in window) return window;
    const limit = Math.min(Number(params.get('limit') ?? 500), 1000);
    const list = mine
      .filter((a) => a.createTime >= window.from && a.createTime <= window.to)
      .sort((a, b) => a.createTime - b.createTime || a.algoId - b.algoId);
    return { status: 200, json: list.slice(0, limit).map(algoJson) };
  }
  return null;
};

const decimals = (step: string): number => (step.includes('.') ? step.replace(/0+$/, '').split('.')[1]!.length : 0);

const exchangeInfo = (exchange: FakeExchange): Record<string, unknown> => ({
  timezone: 'UTC',
  serverTime: exchange.now(),
  futuresType: 'U_MARGINED',
  rateLimits: [],
  exchangeFilters: [],
  assets: [{ asset: 'USDT', marginAvailable: true, autoAssetExchange: '-10000' }],
  symbols: [...exchange.markets.values()].map((m) => ({
    symbol: m.symbol,
    pair: m.symbol,
    contractType: 'PERPETUAL',
    deliveryDate: 4133404800000,
    onboardDate: 1569398400000,
    status: 'TRADING',
    maintMarginPercent: '2.5000',
    requiredMarginPercent: '5.0000',
    baseAsset: m.base,
    quoteAsset: m.quote,
    marginAsset: m.quote,
    pricePrecision: decimals(m.tickSize),
    quantityPrecision: decimals(m.stepSize),
    baseAssetPrecision: 8,
    quotePrecision: 8,
    underlyingType: 'COIN',
    underlyingSubType: ['PoW'],
    triggerProtect: '0.0500',
    liquidationFee: '0.012500',
    marketTakeBound: '0.05',
    maxMoveOrderLimit: 10000,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: m.tickSize, maxPrice: '4529764', tickSize: m.tickSize },
      { filterType: 'LOT_SIZE', stepSize: m.stepSize, maxQty: m.maxQty, minQty: m.minQty },
      { filterType: 'MARKET_LOT_SIZE', stepSize: m.stepSize, maxQty: m.maxQty, minQty: m.minQty },
      { filterType: 'MAX_NUM_ORDERS', limit: 200 },
      { filterType: 'MAX_NUM_ALGO_ORDERS', limit: 10 },
      { filterType: 'MIN_NOTIONAL', notional: m.minNotional },
      { filterType: 'PERCENT_PRICE', multiplierUp: '1.0500', multiplierDown: '0.9500', multiplierDecimal: '4' },
    ],
    orderTypes: ['LIMIT', 'MARKET', 'STOP', 'STOP_MARKET', 'TAKE_PROFIT', 'TAKE_PROFIT_MARKET', 'TRAILING_STOP_MARKET'],
    timeInForce: ['GTC', 'IOC', 'FOK', 'GTX', 'GTD'],
  })),
});

const account = (exchange: FakeExchange, apiKey: string): Record<string, unknown> => {
  const wallet = exchange.balance(apiKey, 'USDT');
  const unrealized = exchange.unrealized(apiKey, 'USDT');
  const margin = exchange.locked(apiKey, 'USDT');
  const available = wallet + unrealized - margin;
  return {
    totalInitialMargin: String(margin),
    totalMaintMargin: '0',
    totalWalletBalance: String(wallet),
    totalUnrealizedProfit: String(unrealized),
    totalMarginBalance: String(wallet + unrealized),
    availableBalance: String(available),
    maxWithdrawAmount: String(available),
    assets: [
      {
        asset: 'USDT',
        walletBalance: String(wallet),
        unrealizedProfit: String(unrealized),
        marginBalance: String(wallet + unrealized),
        maintMargin: '0',
        initialMargin: String(margin),
        positionInitialMargin: String(margin),
        openOrderInitialMargin: '0',
        crossWalletBalance: String(wallet),
        crossUnPnl: String(unrealized),
        availableBalance: String(available),
        maxWithdrawAmount: String(available),
        updateTime: exchange.now(),
      },
    ],
    positions: [],
  };
};

export const binanceUsdmApi: DialectApi = (exchange, request): Reply | null => {
  const { method, path, url } = request;
  if (!path.startsWith('/fapi/')) return null;
  if (method === 'GET' && path === '/fapi/v1/ping') return { status: 200, json: {} };
  if (method === 'GET' && path === '/fapi/v1/time') return { status: 200, json: { serverTime: exchange.now() } };
  if (method === 'GET' && path === '/fapi/v1/exchangeInfo') return { status: 200, json: exchangeInfo(exchange) };
  if (method === 'GET' && (path === '/fapi/v1/ticker/24hr' || path === '/fapi/v1/ticker/bookTicker')) {
    const symbol = url.searchParams.get('symbol');
    const tickers = [...exchange.markets.values()].filter((m) => !symbol || m.symbol === symbol).map((m) => binanceTicker(m));
    return { status: 200, json: symbol ? tickers[0] : tickers };
  }
  const auth = binanceAuth(exchange, request);
  if ('status' in auth) return auth;
  const { apiKey, params } = auth;
  if (method === 'GET' && (path === '/fapi/v3/account' || path === '/fapi/v2/account')) return { status: 200, json: account(exchange, apiKey) };
  const algo = algoApi(exchange, request, apiKey, params);
  if (algo) return algo;
  if (method === 'GET' && path === '/fapi/v1/leverageBracket') {
    const brackets = [{ bracket: 1, initialLeverage: 125, notionalCap: 50000, notionalFloor: 0, maintMarginRatio: 0.004, cum: 0 }];
    return { status: 200, json: [...exchange.markets.keys()].map((symbol) => ({ symbol, brackets })) };
  }
  if (method === 'GET' && path === '/fapi/v3/positionRisk') {
    const positions = [...(exchange.accounts.get(apiKey)?.positions ?? [])].filter(([symbol]) => !params.get('symbol') || symbol === params.get('symbol'));
    const json = positions.map(([symbol, p]) => {
      const market = exchange.markets.get(symbol)!;
      return {
        symbol,
        positionSide: 'BOTH',
        positionAmt: String(p.qty),
        entryPrice: String(p.price),
        breakEvenPrice: String(p.price),
        markPrice: String(market.bid),
        unRealizedProfit: String((market.bid - p.price) * p.qty),
        liquidationPrice: '0',
        isolatedMargin: '0',
        notional: String(p.qty * market.bid),
        marginAsset: 'USDT',
        isolatedWallet: '0',
        initialMargin: String((Math.abs(p.qty) * p.price) / 10),
        maintMargin: '0',
        positionInitialMargin: String((Math.abs(p.qty) * p.price) / 10),
        openOrderInitialMargin: '0',
        adl: 2,
        bidNotional: '0',
        askNotional: '0',
        updateTime: p.updatedTime ?? p.createdTime ?? exchange.now(),
      };
    });
    return { status: 200, json };
  }
  if (method === 'POST' && path === '/fapi/v1/order') {
    const fault = exchange.takePlacementFault();
    if (fault.rateLimited) return { status: 429, json: { code: -1003, msg: 'Too many requests; current limit is 2400 request weight per 1 MINUTE.' } };
    const result = exchange.place(apiKey, binancePlaceRequest(params));
    if (isRefusal(result)) {
      const json =
        result.refusal === 'symbol'
          ? { code: -1121, msg: 'Invalid symbol.' }
          : result.refusal === 'duplicate'
            ? { code: -4015, msg: 'Client order id is not valid.' }
            : result.refusal === 'lot'
              ? { code: -1111, msg: 'Precision is over the maximum defined for this asset.' }
              : result.refusal === 'notional'
                ? {
                    code: -4164,
                    msg: `Order's notional must be no smaller than ${exchange.markets.get(params.get('symbol') ?? '')?.minNotional} (unless you choose reduce only).`,
                  }
                : { code: -2019, msg: 'Margin is insufficient.' };
      return { status: 400, json };
    }
    // The futures API answers a new order before it fills (status NEW, executedQty 0), as the real one does.
    const answer = { ...orderJson(result), status: 'NEW', executedQty: '0', cumQuote: '0', avgPrice: '0.00' };
    return { status: 200, json: answer, delayMs: fault.delayMs };
  }
  if ((method === 'GET' || method === 'DELETE') && path === '/fapi/v1/order') {
    const order = findBinanceOrder(exchange, apiKey, params);
    if (!order) return { status: 400, json: { code: -2013, msg: 'Order does not exist.' } };
    if (method === 'DELETE' && !exchange.cancel(order)) return { status: 400, json: { code: -2011, msg: 'Unknown order sent.' } };
    return { status: 200, json: orderJson(order) };
  }
  if (method === 'GET' && path === '/fapi/v1/openOrders') {
    return {
      status: 200,
      json: exchange
        .ordersOf(apiKey, params.get('symbol'))
        .filter((o) => o.status === 'NEW')
        .map(orderJson),
    };
  }
  if (method === 'GET' && path === '/fapi/v1/allOrders') {
    // Binance's window: 7 days at most (default the last 7), within the last 90 days, oldest first, `limit` (500, at most 1000).
    const window = windowOf(exchange, params);
    if ('status' in window) return window;
    const limit = Math.min(Number(params.get('limit') ?? 500), 1000);
    const orders = exchange
      .ordersOf(apiKey, params.get('symbol'))
      .filter((o) => o.time >= window.from && o.time <= window.to)
      .filter((o) => !params.get('orderId') || o.orderId >= Number(params.get('orderId')))
      .sort((a, b) => a.time - b.time || a.orderId - b.orderId)
      .slice(0, limit);
    return { status: 200, json: orders.map(orderJson) };
  }
  if (method === 'GET' && path === '/fapi/v1/userTrades') {
    // Binance's account trade list: `fromId` (that trade and the later ones; not with startTime/endTime), else a
    // window of 7 days at most (default the last 7), 6 months back at most; `orderId` narrows it to one order's
    // fills; oldest first, `limit` (500, at most 1000).
    const fromId = params.get('fromId');
    if (fromId && (params.get('startTime') || params.get('endTime')))
      return { status: 400, json: { code: -4135, msg: 'fromId cannot be sent with startTime or endTime.' } };
    const window = fromId ? { from: exchange.now() - 183 * 86_400_000, to: exchange.now() } : windowOf(exchange, params);
    if ('status' in window) return window;
    const limit = Math.min(Number(params.get('limit') ?? 500), 1000);
    const list = tradesOf(exchange, apiKey, params).filter((t) => (!fromId || t.id >= Number(fromId)) && t.time >= window.from && t.time <= window.to);
    return {
      status: 200,
      json: list.slice(0, limit).map((t) => ({
        buyer: t.side === 'BUY',
        commission: String(t.commission),
        commissionAsset: t.commissionAsset,
        id: t.id,
        maker: false,
        orderId: t.orderId,
        price: String(t.price),
        qty: String(t.qty),
        quoteQty: String(t.qty * t.price),
        realizedPnl: String(t.realizedPnl),
        side: t.side,
        positionSide: 'BOTH',
        symbol: t.symbol,
        time: t.time,
      })),
    };
  }
  return { status: 404, json: { code: -1000, msg: `fake exchange: no ${method} ${path}` } };
};
