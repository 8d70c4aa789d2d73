// Bybit v5 (unified trading account, linear perpetuals) for the fake exchange (fakeExchange.ts):
// instruments-info, tickers, the API key and account info ccxt asks before a balance, wallet-balance,
// order create / realtime / history / cancel / amend, signed as Bybit does (X-BAPI-API-KEY, -TIMESTAMP,
// -RECV-WINDOW and X-BAPI-SIGN = HMAC-SHA256 hex of timestamp + key + recvWindow + query or body), with
// Bybit's retCode bodies (10003 invalid key, 10004 bad sign, 10006 too many visits, 110007 not enough
// balance, 10001 qty invalid, 110094 below the minimum order value, 110001 no such order).
import type { DialectApi, FakeExchange, FakeMarket, FakeOrder, Reply } from './fakeExchange.js';
import { hmac, isRefusal } from './fakeExchange.js';

const ok = (result: unknown): Reply => ({ status: 200, json: { retCode: 0, retMsg: 'OK', result, retExtInfo: {}, time: Date.now() } });
const fail = (retCode: number, retMsg: string, status = 200): Reply => ({ status, json: { retCode, retMsg, result: {}, retExtInfo: {}, time: Date.now() } });

/** Bybit's order history answers 7 days a query. */
const WEEK_MS = 7 * 86_400_000;

const STATUS: Readonly<Record<FakeOrder['status'], string>> = { NEW: 'New', FILLED: 'Filled', CANCELED: 'Cancelled' };

export const bybitOrderJson = (o: FakeOrder, market: FakeMarket): Record<string, unknown> => ({
  orderId: `bb-${o.orderId}`,
  orderLinkId: o.clientOrderId,
  blockTradeId: '',
  symbol: o.symbol,
  price: o.type === 'LIMIT' ? String(o.price) : String(o.side === 'BUY' ? market.ask * 1.01 : market.bid * 0.99),
  qty: String(o.origQty),
  side: o.side === 'BUY' ? 'Buy' : 'Sell',
  isLeverage: '',
  positionIdx: 0,
  orderStatus: o.status === 'NEW' && o.triggerPrice !== null ? 'Untriggered' : STATUS[o.status],
  createType: o.stopOrderType === 'StopLoss' ? 'CreateByStopLoss' : o.stopOrderType === 'TakeProfit' ? 'CreateByTakeProfit' : 'CreateByUser',
  cancelType: o.status === 'CANCELED' ? 'CancelByUser' : 'UNKNOWN',
  rejectReason: 'EC_NoError',
  avgPrice: o.executedQty > 0 ? String(o.cummulativeQuoteQty / o.executedQty) : '',
  leavesQty: String(o.status === 'NEW' ? o.origQty - o.executedQty : 0),
  leavesValue: '0',
  cumExecQty: String(o.executedQty),
  cumExecValue: String(o.cummulativeQuoteQty),
  cumExecFee: String(o.fee),
  ...(o.fee > 0 ? { cumFeeDetail: { USDT: String(o.fee) } } : {}),
  timeInForce: o.type === 'LIMIT' ? 'GTC' : 'IOC',
  orderType: o.type === 'LIMIT' ? 'Limit' : 'Market',
  stopOrderType: o.triggerPrice !== null ? 'Stop' : o.stopOrderType,
  orderIv: '',
  marketUnit: '',
  triggerPrice: o.triggerPrice === null ? '' : String(o.triggerPrice),
  takeProfit: o.takeProfit === null ? '' : String(o.takeProfit),
  stopLoss: o.stopLoss === null ? '' : String(o.stopLoss),
  tpTriggerBy: '',
  slTriggerBy: '',
  triggerDirection: o.triggerPrice === null ? 0 : o.side === 'BUY' ? 1 : 2,
  triggerBy: '',
  lastPriceOnCreated: String(market.bid),
  reduceOnly: o.reduceOnly,
  closeOnTrigger: false,
  smpType: 'None',
  smpGroup: 0,
  smpOrderId: '',
  tpslMode: o.stopLoss !== null || o.takeProfit !== null ? 'Full' : '',
  tpLimitPrice: '',
  slLimitPrice: '',
  placeType: '',
  createdTime: String(o.time),
  updatedTime: String(o.updateTime),
});

const instrument = (m: FakeMarket): Record<string, unknown> => ({
  symbol: m.symbol,
  contractType: 'LinearPerpetual',
  status: 'Trading',
  baseCoin: m.base,
  quoteCoin: m.quote,
  launchTime: '1585526400000',
  deliveryTime: '0',
  deliveryFeeRate: '',
  priceScale: String(m.tickSize.includes('.') ? m.tickSize.split('.')[1]!.length : 0),
  leverageFilter: { minLeverage: '1', maxLeverage: '100.00', leverageStep: '0.01' },
  priceFilter: { minPrice: m.tickSize, maxPrice: '1999999.80', tickSize: m.tickSize },
  lotSizeFilter: {
    maxOrderQty: m.maxQty,
    minOrderQty: m.minQty,
    qtyStep: m.stepSize,
    postOnlyMaxOrderQty: m.maxQty,
    maxMktOrderQty: m.maxQty,
    minNotionalValue: m.minNotional,
  },
  unifiedMarginTrade: true,
  fundingInterval: 480,
  settleCoin: m.quote,
  copyTrading: 'both',
  upperFundingRate: '0.005',
  lowerFundingRate: '-0.005',
  isPreListing: false,
  preListingInfo: null,
  riskParameters: { priceLimitRatioX: '0.01', priceLimitRatioY: '0.02' },
  displayName: '',
});

const ticker = (m: FakeMarket): Record<string, unknown> => ({
  symbol: m.symbol,
  lastPrice: String(m.bid),
  indexPrice: String(m.bid),
  markPrice: String(m.bid),
  prevPrice24h: String(m.bid),
  price24hPcnt: '0',
  highPrice24h: String(m.ask),
  lowPrice24h: String(m.bid),
  prevPrice1h: String(m.bid),
  openInterest: '1000',
  openInterestValue: String(1000 * m.bid),
  turnover24h: String(100 * m.bid),
  volume24h: '100',
  fundingRate: '0.0001',
  nextFundingTime: String(Date.now() + 3_600_000),
  predictedDeliveryPrice: '',
  basisRate: '',
  deliveryFeeRate: '',
  deliveryTime: '0',
  ask1Size: '1',
  bid1Price: String(m.bid),
  ask1Price: String(m.ask),
  bid1Size: '1',
  basis: '',
});

const wallet = (exchange: FakeExchange, apiKey: string): Record<string, unknown> => {
  const balance = exchange.balance(apiKey, 'USDT');
  const unrealized = exchange.unrealized(apiKey, 'USDT');
  const margin = exchange.locked(apiKey, 'USDT');
  const equity = balance + unrealized;
  return {
    list: [
      {
        totalEquity: String(equity),
        accountIMRate: '0',
        totalMarginBalance: String(equity),
        totalInitialMargin: String(margin),
        accountType: 'UNIFIED',
        totalAvailableBalance: String(equity - margin),
        accountMMRate: '0',
        totalPerpUPL: String(unrealized),
        totalWalletBalance: String(balance),
        accountLTV: '0',
        totalMaintenanceMargin: '0',
        coin: [
          {
            availableToBorrow: '',
            bonus: '0',
            accruedInterest: '0',
            availableToWithdraw: String(equity - margin),
            totalOrderIM: '0',
            equity: String(equity),
            totalPositionMM: '0',
            usdValue: String(equity),
            unrealisedPnl: String(unrealized),
            collateralSwitch: true,
            spotHedgingQty: '0',
            borrowAmount: '0.000000000000000000',
            totalPositionIM: String(margin),
            walletBalance: String(balance),
            cumRealisedPnl: '0',
            locked: '0',
            marginCollateral: true,
            coin: 'USDT',
          },
        ],
      },
    ],
  };
};

/** Bybit's signature check; the account's key, or a retCode refusal. */
const authenticate = (exchange: FakeExchange, request: { method: string; url: URL; body: string; headers: Record<string, unknown> }): string | Reply => {
  const apiKey = String(request.headers['x-bapi-api-key'] ?? '');
  const account = exchange.accounts.get(apiKey);
  if (!account) return fail(10003, 'API key is invalid.', 401);
  const payload = request.method === 'POST' ? request.body : request.url.search.slice(1);
  const expected = hmac(account.secret, `${String(request.headers['x-bapi-timestamp'])}${apiKey}${String(request.headers['x-bapi-recv-window'])}${payload}`);
  if (request.headers['x-bapi-sign'] !== expected) return fail(10004, 'error sign! origin_string[...]', 401);
  return apiKey;
};

export const bybitApi: DialectApi = (exchange, request): Reply | null => {
  const { method, path, url } = request;
  if (!path.startsWith('/v5/')) return null;
  const q = url.searchParams;
  if (method === 'GET' && path === '/v5/market/time') return ok({ timeSecond: String(Math.floor(Date.now() / 1000)), timeNano: `${Date.now()}000000` });
  if (method === 'GET' && path === '/v5/market/instruments-info') {
    if (q.get('category') !== 'linear') return ok({ category: q.get('category'), list: [], nextPageCursor: '' });
    return ok({ category: 'linear', list: [...exchange.markets.values()].map(instrument), nextPageCursor: '' });
  }
  if (method === 'GET' && path === '/v5/market/tickers') {
    const symbol = q.get('symbol');
    return ok({ category: 'linear', list: [...exchange.markets.values()].filter((m) => !symbol || m.symbol === symbol).map(ticker) });
  }
  const auth = authenticate(exchange, request);
  if (typeof auth !== 'string') return auth;
  const apiKey = auth;
  const body = method === 'POST' ? (JSON.parse(request.body || '{}') as Record<string, string | boolean | undefined>) : {};
  if (method === 'GET' && path === '/v5/user/query-api') {
    return ok({
      id: '1',
      note: 'fake',
      apiKey,
      readOnly: 0,
      secret: '',
      permissions: { ContractTrade: ['Order', 'Position'], Spot: ['SpotTrade'] },
      ips: ['*'],
      type: 1,
      unified: 0,
      uta: 1,
      isMaster: true,
    });
  }
  if (method === 'GET' && path === '/v5/account/info')
    return ok({
      marginMode: 'REGULAR_MARGIN',
      updatedTime: String(Date.now()),
      unifiedMarginStatus: 6,
      dcpStatus: 'OFF',
      timeWindow: 10,
      smpGroup: 0,
      isMasterTrader: false,
      spotHedgingStatus: 'OFF',
    });
  if (method === 'GET' && path === '/v5/account/wallet-balance') return ok(wallet(exchange, apiKey));
  if (method === 'POST' && path === '/v5/order/create') {
    const fault = exchange.takePlacementFault();
    if (fault.rateLimited) return fail(10006, 'Too many visits. Exceeded the API Rate Limit.', 429);
    const type = body.orderType === 'Limit' ? 'LIMIT' : 'MARKET';
    const price = (name: string) => (body[name] !== undefined && body[name] !== '' ? Number(body[name]) : null);
    const trigger = price('triggerPrice');
    // A conditional order's direction must agree with where the trigger stands (1: rises to it, 2: falls to it).
    const market = exchange.markets.get(String(body.symbol ?? ''));
    if (trigger !== null && market && (Number(body.triggerDirection) === 1) !== trigger > market.bid) {
      return fail(110092, 'expect Rising, but trigger_price[...] <= current[...]');
    }
    const result = exchange.place(apiKey, {
      triggerPrice: trigger,
      stopLoss: price('stopLoss'),
      takeProfit: price('takeProfit'),
      symbol: String(body.symbol ?? ''),
      side: body.side === 'Sell' ? 'SELL' : 'BUY',
      type,
      quantity: Number(body.qty),
      ...(type === 'LIMIT' ? { price: Number(body.price) } : {}),
      ...(body.orderLinkId ? { clientOrderId: String(body.orderLinkId) } : {}),
      reduceOnly: body.reduceOnly === true,
    });
    if (isRefusal(result)) {
      const refusals = {
        symbol: [10001, 'params error: symbol invalid'],
        duplicate: [110072, 'OrderLinkedID is duplicate'],
        lot: [10001, 'Qty invalid'],
        notional: [110094, 'Order does not meet minimum order value 5USDT'],
        balance: [110007, 'ab not enough for new order'],
      } as const;
      const [code, message] = refusals[result.refusal];
      return fail(code, message);
    }
    // Bybit answers a placement with the ids only; the fill is read with realtime / history.
    return { ...ok({ orderId: `bb-${result.orderId}`, orderLinkId: result.clientOrderId }), delayMs: fault.delayMs };
  }
  const find = (orderId: unknown, link: unknown) =>
    exchange.ordersOf(apiKey).find((o) => (orderId ? `bb-${o.orderId}` === orderId : link ? o.clientOrderId === link : false));
  if (method === 'POST' && path === '/v5/order/cancel') {
    const order = find(body.orderId, body.orderLinkId);
    if (!order || !exchange.cancel(order)) return fail(110001, 'order not exists or too late to cancel');
    return ok({ orderId: `bb-${order.orderId}`, orderLinkId: order.clientOrderId });
  }
  if (method === 'POST' && path === '/v5/order/amend') {
    const order = find(body.orderId, body.orderLinkId);
    if (!order || order.status !== 'NEW') return fail(110001, 'order not exists or too late to replace');
    if (body.qty !== undefined) order.origQty = Number(body.qty);
    if (body.price !== undefined) order.price = Number(body.price);
    if (body.triggerPrice !== undefined) order.triggerPrice = Number(body.triggerPrice);
    order.updateTime = Date.now();
    return ok({ orderId: `bb-${order.orderId}`, orderLinkId: order.clientOrderId });
  }
  if (method === 'POST' && path === '/v5/position/trading-stop') {
    const position = exchange.accounts.get(apiKey)!.positions.get(String(body.symbol ?? ''));
    if (!position) return fail(10001, 'can not set tp/sl/ts for zero position');
    // "0" removes; an omitted member stays.
    const value = (v: unknown, current: number | null) => (v === undefined ? current : Number(v) === 0 ? null : Number(v));
    position.stopLoss = value(body.stopLoss, position.stopLoss);
    position.takeProfit = value(body.takeProfit, position.takeProfit);
    return ok({});
  }
  if (method === 'GET' && path === '/v5/position/list') {
    const account = exchange.accounts.get(apiKey)!;
    const list = [...account.positions]
      .filter(([symbol]) => !q.get('symbol') || symbol === q.get('symbol'))
      .map(([symbol, p]) => {
        const market = exchange.markets.get(symbol)!;
        return {
          positionIdx: 0,
          riskId: 1,
          riskLimitValue: '2000000',
          symbol,
          side: p.qty > 0 ? 'Buy' : 'Sell',
          size: String(Math.abs(p.qty)),
          avgPrice: String(p.price),
          positionValue: String(Math.abs(p.qty) * p.price),
          tradeMode: 0,
          positionStatus: 'Normal',
          autoAddMargin: 0,
          adlRankIndicator: 2,
          leverage: '10',
          positionBalance: String((Math.abs(p.qty) * p.price) / 10),
          markPrice: String(market.bid),
          liqPrice: '',
          bustPrice: '',
          positionMM: '0',
          positionIM: String((Math.abs(p.qty) * p.price) / 10),
          tpslMode: 'Full',
          takeProfit: p.takeProfit === null ? '' : String(p.takeProfit),
          stopLoss: p.stopLoss === null ? '' : String(p.stopLoss),
          trailingStop: '0',
          unrealisedPnl: String((market.bid - p.price) * p.qty),
          curRealisedPnl: '0',
          cumRealisedPnl: '0',
          seq: 1,
          isReduceOnly: false,
          mmrSysUpdatedTime: '',
          leverageSysUpdatedTime: '',
          createdTime: String(p.createdTime ?? Date.now()),
          updatedTime: String(Date.now()),
        };
      });
    return ok({ category: 'linear', list, nextPageCursor: '' });
  }
  if (method === 'GET' && (path === '/v5/order/realtime' || path === '/v5/order/history')) {
    const open = path === '/v5/order/realtime';
    // The history answers one window of 7 days at most: the last 7 unless startTime or endTime says which
    // (by creation time, up to 2 years back); an order older than the window is not listed.
    const start = q.get('startTime') ? Number(q.get('startTime')) : null;
    const end = q.get('endTime') ? Number(q.get('endTime')) : null;
    if (start !== null && end !== null && end - start > WEEK_MS) return fail(10001, 'The time range between startTime and endTime cannot exceed 7 days.');
    const window = start === null && end === null ? null : { from: start ?? end! - WEEK_MS, to: end ?? start! + WEEK_MS };
    const listed = (o: FakeOrder) =>
      window ? o.time >= Math.max(window.from, Date.now() - 730 * 86_400_000) && o.time <= window.to : o.updateTime >= Date.now() - WEEK_MS;
    let orders = exchange.ordersOf(apiKey, q.get('symbol')).filter((o) => (open ? o.status === 'NEW' : o.status !== 'NEW' && listed(o)));
    if (q.get('orderId')) orders = orders.filter((o) => `bb-${o.orderId}` === q.get('orderId'));
    if (q.get('orderLinkId')) orders = orders.filter((o) => o.clientOrderId === q.get('orderLinkId'));
    // Newest first, 20 a page by default and 50 at most; nextPageCursor (opaque to the client) leads to the next page.
    const limit = Math.min(Number(q.get('limit') ?? 20), 50);
    const from = q.get('cursor') ? Number(Buffer.from(q.get('cursor')!, 'base64url').toString().replace('offset=', '')) : 0;
    const sorted = orders.sort((a, b) => b.time - a.time || b.orderId - a.orderId);
    const list = sorted.slice(from, from + limit).map((o) => bybitOrderJson(o, exchange.markets.get(o.symbol)!));
    const nextPageCursor = from + limit < sorted.length ? Buffer.from(`offset=${from + limit}`).toString('base64url') : '';
    return ok({ category: 'linear', list, nextPageCursor });
  }
  return fail(10001, `fake exchange: no ${method} ${path}`, 404);
};
