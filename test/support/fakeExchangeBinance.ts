// Binance spot (/api/v3) for the fake exchange (fakeExchange.ts): ping, time, exchangeInfo with the spot
// filters (PRICE_FILTER, LOT_SIZE, NOTIONAL), tickers, account, order (new, query, cancel), openOrders and
// allOrders (paged forward by orderId), myTrades (the account's fills with their commissions), signed as Binance does (X-MBX-APIKEY, HMAC-SHA256 hex of the
// query: binanceAuth, shared with USDⓈ-M), and the helpers both Binance dialects share.
import type { DialectApi, FakeExchange, FakeMarket, FakeOrder, FakeRequest, FakeTrade, PlaceRequest, Refusal, Reply } from './fakeExchange.js';
import { hmac, isRefusal, num } from './fakeExchange.js';

/** Binance's signed request check (spot and USDⓈ-M): X-MBX-APIKEY and the query's HMAC-SHA256 hex. */
export const binanceAuth = (exchange: FakeExchange, request: FakeRequest): { apiKey: string; params: URLSearchParams } | Reply => {
  const raw = request.method === 'POST' || request.method === 'PUT' ? request.body || request.url.search.slice(1) : request.url.search.slice(1);
  const params = new URLSearchParams(raw);
  const apiKey = String(request.headers['x-mbx-apikey'] ?? '');
  const account = exchange.accounts.get(apiKey);
  if (!account) return { status: 401, json: { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' } };
  const signed = raw.replace(/&signature=[0-9a-f]+$/, '');
  if (params.get('signature') !== hmac(account.secret, signed)) return { status: 400, json: { code: -1022, msg: 'Signature for this request is not valid.' } };
  return { apiKey, params };
};

/** Binance spot /api/v3. */
export const binanceSpotApi: DialectApi = (exchange, request): Reply | null => {
  if (!request.path.startsWith('/api/v3/')) return null;
  const { method, path, url } = request;
  if (method === 'GET' && path === '/api/v3/ping') return { status: 200, json: {} };
  if (method === 'GET' && path === '/api/v3/time') return { status: 200, json: { serverTime: Date.now() } };
  if (method === 'GET' && path === '/api/v3/exchangeInfo') return { status: 200, json: exchangeInfo(exchange) };
  if (method === 'GET' && (path === '/api/v3/ticker/24hr' || path === '/api/v3/ticker/bookTicker')) {
    const symbol = url.searchParams.get('symbol');
    const tickers = [...exchange.markets.values()].filter((m) => !symbol || m.symbol === symbol).map((m) => binanceTicker(m));
    return { status: 200, json: symbol ? tickers[0] : tickers };
  }
  const auth = binanceAuth(exchange, request);
  if ('status' in auth) return auth;
  const { apiKey, params } = auth;
  const account = exchange.accounts.get(apiKey)!;
  if (method === 'GET' && path === '/api/v3/account') {
    return {
      status: 200,
      json: {
        makerCommission: 10,
        takerCommission: 10,
        canTrade: true,
        canWithdraw: true,
        canDeposit: true,
        updateTime: Date.now(),
        accountType: 'SPOT',
        permissions: ['SPOT'],
        balances: [...account.balances].map(([asset]) => ({ asset, free: num(exchange.free(apiKey, asset)), locked: num(exchange.locked(apiKey, asset)) })),
      },
    };
  }
  if (method === 'POST' && path === '/api/v3/order') {
    const fault = exchange.takePlacementFault();
    if (fault.rateLimited) return { status: 429, json: { code: -1003, msg: 'Too many requests; current limit of IP is 6000 requests per minute.' } };
    const result = exchange.place(apiKey, binancePlaceRequest(params));
    if (isRefusal(result)) return { status: 400, json: binanceRefusal(result) };
    return { status: 200, json: spotOrder(result), delayMs: fault.delayMs };
  }
  if ((method === 'GET' || method === 'DELETE') && path === '/api/v3/order') {
    const order = findBinanceOrder(exchange, apiKey, params);
    if (!order) return { status: 400, json: { code: -2013, msg: 'Order does not exist.' } };
    if (method === 'DELETE' && !exchange.cancel(order)) return { status: 400, json: { code: -2011, msg: 'Unknown order sent.' } };
    return { status: 200, json: spotOrder(order) };
  }
  if (method === 'GET' && path === '/api/v3/openOrders') {
    return {
      status: 200,
      json: exchange
        .ordersOf(apiKey, params.get('symbol'))
        .filter((o) => o.status === 'NEW')
        .map((o) => spotOrder(o)),
    };
  }
  if (method === 'GET' && path === '/api/v3/allOrders') {
    // Binance's page: `limit` (500, at most 1000) orders, oldest first; with `orderId` that one and the later ones, else the most recent.
    const limit = Math.min(Number(params.get('limit') ?? 500), 1000);
    const all = exchange.ordersOf(apiKey, params.get('symbol')).sort((a, b) => a.orderId - b.orderId);
    const orderId = params.get('orderId');
    const page = orderId ? all.filter((o) => o.orderId >= Number(orderId)).slice(0, limit) : all.slice(-limit);
    return { status: 200, json: page.map((o) => spotOrder(o)) };
  }
  if (method === 'GET' && path === '/api/v3/myTrades') {
    // Binance's account trade list: `orderId` (that order's fills), `fromId` (that trade and the later ones),
    // startTime/endTime (24 hours at most), else the most recent; oldest first, `limit` (500, at most 1000).
    const limit = Math.min(Number(params.get('limit') ?? 500), 1000);
    const start = params.get('startTime') ? Number(params.get('startTime')) : null;
    const end = params.get('endTime') ? Number(params.get('endTime')) : null;
    if (start !== null && end !== null && end - start > 86_400_000)
      return { status: 400, json: { code: -1127, msg: 'More than 24 hours between startTime and endTime.' } };
    const fromId = params.get('fromId');
    const list = tradesOf(exchange, apiKey, params).filter(
      (t) => (!fromId || t.id >= Number(fromId)) && (start === null || t.time >= start) && (end === null || t.time <= end),
    );
    const page = fromId || params.get('orderId') || start !== null ? list.slice(0, limit) : list.slice(-limit);
    return { status: 200, json: page.map(spotTrade) };
  }
  return { status: 404, json: { code: -1000, msg: `fake exchange: no ${method} ${path}` } };
};

/** The account's fills of the query's symbol (and order, where `orderId` is given), oldest first. */
export const tradesOf = (exchange: FakeExchange, apiKey: string, params: URLSearchParams): FakeTrade[] =>
  exchange.trades
    .filter((t) => t.apiKey === apiKey && t.symbol === params.get('symbol') && (!params.get('orderId') || String(t.orderId) === params.get('orderId')))
    .sort((a, b) => a.id - b.id);

const spotTrade = (t: FakeTrade): Record<string, unknown> => ({
  symbol: t.symbol,
  id: t.id,
  orderId: t.orderId,
  orderListId: -1,
  price: num(t.price),
  qty: num(t.qty),
  quoteQty: num(t.qty * t.price),
  commission: num(t.commission),
  commissionAsset: t.commissionAsset,
  time: t.time,
  isBuyer: t.side === 'BUY',
  isMaker: false,
  isBestMatch: true,
});

/** Binance's order status (spot and USDⓈ-M): an open order with fills is PARTIALLY_FILLED. */
export const binanceStatus = (o: FakeOrder): string => (o.status === 'NEW' && o.executedQty > 0 ? 'PARTIALLY_FILLED' : o.status);

const spotOrder = (o: FakeOrder): Record<string, unknown> => ({
  symbol: o.symbol,
  orderId: o.orderId,
  orderListId: -1,
  clientOrderId: o.clientOrderId,
  price: num(o.price),
  origQty: num(o.origQty),
  executedQty: num(o.executedQty),
  cummulativeQuoteQty: num(o.cummulativeQuoteQty),
  status: binanceStatus(o),
  timeInForce: 'GTC',
  type: o.type,
  side: o.side,
  stopPrice: '0.00000000',
  time: o.time,
  transactTime: o.time,
  updateTime: o.updateTime,
  workingTime: o.time,
  isWorking: true,
  origQuoteOrderQty: '0.00000000',
  selfTradePreventionMode: 'EXPIRE_MAKER',
});

const exchangeInfo = (exchange: FakeExchange): Record<string, unknown> => ({
  timezone: 'UTC',
  serverTime: Date.now(),
  rateLimits: [],
  exchangeFilters: [],
  symbols: [...exchange.markets.values()].map((m) => ({
    symbol: m.symbol,
    status: 'TRADING',
    baseAsset: m.base,
    baseAssetPrecision: 8,
    quoteAsset: m.quote,
    quotePrecision: 8,
    quoteAssetPrecision: 8,
    baseCommissionPrecision: 8,
    quoteCommissionPrecision: 8,
    orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
    icebergAllowed: true,
    ocoAllowed: true,
    quoteOrderQtyMarketAllowed: true,
    allowTrailingStop: true,
    cancelReplaceAllowed: true,
    isSpotTradingAllowed: true,
    isMarginTradingAllowed: false,
    filters: [
      { filterType: 'PRICE_FILTER', minPrice: m.tickSize, maxPrice: '1000000.00', tickSize: m.tickSize },
      { filterType: 'LOT_SIZE', minQty: m.minQty, maxQty: m.maxQty, stepSize: m.stepSize },
      { filterType: 'NOTIONAL', minNotional: m.minNotional, applyMinToMarket: true, maxNotional: '9000000', applyMaxToMarket: false, avgPriceMins: 5 },
    ],
    permissions: [],
    permissionSets: [['SPOT']],
    defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
    allowedSelfTradePreventionModes: ['EXPIRE_MAKER'],
  })),
});

/** A Binance order request (spot and USDⓈ-M share the parameters). */
export const binancePlaceRequest = (params: URLSearchParams): PlaceRequest => ({
  symbol: params.get('symbol') ?? '',
  side: params.get('side') === 'SELL' ? 'SELL' : 'BUY',
  type: params.get('type') === 'LIMIT' ? 'LIMIT' : 'MARKET',
  quantity: Number(params.get('quantity')),
  ...(params.get('price') ? { price: Number(params.get('price')) } : {}),
  ...(params.get('newClientOrderId') ? { clientOrderId: params.get('newClientOrderId')! } : {}),
  reduceOnly: params.get('reduceOnly') === 'true',
});

export const binanceRefusal = (r: Refusal): { code: number; msg: string } =>
  r.refusal === 'symbol'
    ? { code: -1121, msg: 'Invalid symbol.' }
    : r.refusal === 'duplicate'
      ? { code: -2010, msg: 'Duplicate order sent.' }
      : r.refusal === 'lot'
        ? { code: -1013, msg: 'Filter failure: LOT_SIZE' }
        : r.refusal === 'notional'
          ? { code: -1013, msg: 'Filter failure: NOTIONAL' }
          : { code: -2010, msg: 'Account has insufficient balance for requested action.' };

export const findBinanceOrder = (exchange: FakeExchange, apiKey: string, params: URLSearchParams): FakeOrder | undefined => {
  const orderId = params.get('orderId');
  const clientId = params.get('origClientOrderId');
  return exchange.ordersOf(apiKey, params.get('symbol')).find((o) => (orderId ? String(o.orderId) === orderId : o.clientOrderId === clientId));
};

export const binanceTicker = (m: FakeMarket): Record<string, unknown> => ({
  symbol: m.symbol,
  priceChange: '0',
  priceChangePercent: '0',
  weightedAvgPrice: String(m.bid),
  lastPrice: String(m.bid),
  bidPrice: String(m.bid),
  bidQty: '1',
  askPrice: String(m.ask),
  askQty: '1',
  openPrice: String(m.bid),
  highPrice: String(m.ask),
  lowPrice: String(m.bid),
  volume: '100',
  quoteVolume: String(100 * m.bid),
  openTime: Date.now() - 86_400_000,
  closeTime: Date.now(),
  count: 1,
});
