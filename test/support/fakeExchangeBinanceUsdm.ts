// Binance USDⓈ-M futures (/fapi) for the fake exchange (fakeExchange.ts): exchangeInfo with the futures
// filters (PRICE_FILTER, LOT_SIZE, MIN_NOTIONAL), tickers, the v3 account, order (new, query, cancel),
// openOrders and allOrders, signed like spot (X-MBX-APIKEY, HMAC-SHA256 hex of the query), with the
// futures error codes (-2019 margin insufficient, -4164 notional too small, -1111 precision).
import type { DialectApi, FakeExchange, FakeMarket, FakeOrder, Reply } from './fakeExchange.js';
import { isRefusal, num } from './fakeExchange.js';
import { binanceAuth, binancePlaceRequest, binanceTicker, findBinanceOrder } from './fakeExchangeBinance.js';

const orderJson = (o: FakeOrder): Record<string, unknown> => ({
  orderId: o.orderId,
  symbol: o.symbol,
  status: o.status,
  clientOrderId: o.clientOrderId,
  price: num(o.price, 2),
  avgPrice: o.executedQty > 0 ? String(o.cummulativeQuoteQty / o.executedQty) : '0',
  origQty: String(o.origQty),
  executedQty: String(o.executedQty),
  cumQuote: String(o.cummulativeQuoteQty),
  timeInForce: o.type === 'LIMIT' ? 'GTC' : 'GTC',
  type: o.type,
  reduceOnly: o.reduceOnly,
  closePosition: false,
  side: o.side,
  positionSide: 'BOTH',
  stopPrice: '0',
  workingType: 'CONTRACT_PRICE',
  priceProtect: false,
  origType: o.type,
  priceMatch: 'NONE',
  selfTradePreventionMode: 'EXPIRE_MAKER',
  goodTillDate: 0,
  time: o.time,
  updateTime: o.updateTime,
});

const WEEK_MS = 7 * 86_400_000;

const decimals = (step: string): number => (step.includes('.') ? step.replace(/0+$/, '').split('.')[1]!.length : 0);

const exchangeInfo = (markets: Iterable<FakeMarket>): Record<string, unknown> => ({
  timezone: 'UTC',
  serverTime: Date.now(),
  futuresType: 'U_MARGINED',
  rateLimits: [],
  exchangeFilters: [],
  assets: [{ asset: 'USDT', marginAvailable: true, autoAssetExchange: '-10000' }],
  symbols: [...markets].map((m) => ({
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
        updateTime: Date.now(),
      },
    ],
    positions: [],
  };
};

export const binanceUsdmApi: DialectApi = (exchange, request): Reply | null => {
  const { method, path, url } = request;
  if (!path.startsWith('/fapi/')) return null;
  if (method === 'GET' && path === '/fapi/v1/ping') return { status: 200, json: {} };
  if (method === 'GET' && path === '/fapi/v1/time') return { status: 200, json: { serverTime: Date.now() } };
  if (method === 'GET' && path === '/fapi/v1/exchangeInfo') return { status: 200, json: exchangeInfo(exchange.markets.values()) };
  if (method === 'GET' && (path === '/fapi/v1/ticker/24hr' || path === '/fapi/v1/ticker/bookTicker')) {
    const symbol = url.searchParams.get('symbol');
    const tickers = [...exchange.markets.values()].filter((m) => !symbol || m.symbol === symbol).map((m) => binanceTicker(m));
    return { status: 200, json: symbol ? tickers[0] : tickers };
  }
  const auth = binanceAuth(exchange, request);
  if ('status' in auth) return auth;
  const { apiKey, params } = auth;
  if (method === 'GET' && (path === '/fapi/v3/account' || path === '/fapi/v2/account')) return { status: 200, json: account(exchange, apiKey) };
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
        updateTime: p.updatedTime ?? p.createdTime ?? Date.now(),
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
    const start = params.get('startTime') ? Number(params.get('startTime')) : null;
    const end = params.get('endTime') ? Number(params.get('endTime')) : null;
    const to = end ?? (start !== null ? start + WEEK_MS : Date.now());
    const from = start ?? to - WEEK_MS;
    if (to - from > WEEK_MS) return { status: 400, json: { code: -1127, msg: 'More than 7 days between startTime and endTime.' } };
    const limit = Math.min(Number(params.get('limit') ?? 500), 1000);
    const orders = exchange
      .ordersOf(apiKey, params.get('symbol'))
      .filter((o) => o.time >= from && o.time <= to && o.time >= Date.now() - 90 * 86_400_000)
      .filter((o) => !params.get('orderId') || o.orderId >= Number(params.get('orderId')))
      .sort((a, b) => a.time - b.time || a.orderId - b.orderId)
      .slice(0, limit);
    return { status: 200, json: orders.map(orderJson) };
  }
  return { status: 404, json: { code: -1000, msg: `fake exchange: no ${method} ${path}` } };
};
