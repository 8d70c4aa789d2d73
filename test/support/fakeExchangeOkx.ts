// OKX v5 for the fake exchange (fakeExchange.ts): spot (tdMode cash) and USDT-margined swaps (tdMode
// cross, net position mode; one contract is ctVal coins: BTC-USDT-SWAP 0.01 BTC). Public instruments and
// tickers (by instType), account balance (eq includes the swaps' floating profit, as OKX's does) and
// positions, trade order (place, query by ordId or clOrdId), orders-pending, orders-history,
// cancel-order and amend-order (a live limit order's newPx and newSz), signed as OKX does (OK-ACCESS-KEY, -PASSPHRASE, -TIMESTAMP and
// OK-ACCESS-SIGN = base64 HMAC-SHA256 of timestamp + method + path?query + body), with OKX's code/sCode
// bodies (50111 invalid key, 50113 invalid sign, 50105 wrong passphrase, 50011 too many requests,
// 51008 insufficient balance, 51020 below the minimum size, 51121 not a lot multiple, 51603 no such order,
// 51503 / 51509 / 51510 an amendment of an order gone, cancelled or filled).
import type { DialectApi, FakeExchange, FakeMarket, FakeOrder, FakePosition, Reply } from './fakeExchange.js';
import { hmac, isRefusal, LEVERAGE, sizeOf } from './fakeExchange.js';
import { algoClOrdIdOf, algoIdOf, attachTo, keepAttached, okxAlgoApi, sourceOf } from './fakeExchangeOkxAlgo.js';

const ok = (data: unknown[]): Reply => ({ status: 200, json: { code: '0', msg: '', data } });
const fail = (code: string, msg: string, status = 200): Reply => ({ status, json: { code, msg, data: [] } });

/** A swap's instrument id ends in -SWAP (BTC-USDT-SWAP); the others are spot. */
const isSwap = (instId: string): boolean => instId.endsWith('-SWAP');
const instTypeOf = (instId: string): string => (isSwap(instId) ? 'SWAP' : 'SPOT');

const STATE: Readonly<Record<FakeOrder['status'], string>> = { NEW: 'live', FILLED: 'filled', CANCELED: 'canceled' };

export const okxOrderJson = (o: FakeOrder): Record<string, unknown> => ({
  accFillSz: String(o.executedQty),
  // Placed by a triggered algo order (fakeExchangeOkxAlgo.ts): its client id and id.
  algoClOrdId: algoClOrdIdOf(o),
  algoId: algoIdOf(o),
  attachAlgoClOrdId: '',
  attachAlgoOrds: [],
  avgPx: o.executedQty > 0 ? String(o.cummulativeQuoteQty / o.executedQty) : '',
  cTime: String(o.time),
  cancelSource: o.status === 'CANCELED' ? '1' : '',
  cancelSourceReason: '',
  category: 'normal',
  ccy: '',
  // An order an algo order placed has no client id of its own (the algo order's is algoClOrdId).
  clOrdId: algoIdOf(o) ? '' : o.clientOrderId,
  // OKX's fee is negative when charged, in the coin received: a spot buy's in the base coin.
  fee: o.baseFee ? String(-o.baseFee) : o.fee > 0 ? String(-o.fee) : '0',
  feeCcy: o.baseFee ? o.symbol.split('-')[0] : 'USDT',
  fillPx: o.executedQty > 0 ? String(o.cummulativeQuoteQty / o.executedQty) : '',
  fillSz: String(o.executedQty),
  fillTime: o.executedQty > 0 ? String(o.updateTime) : '',
  instId: o.symbol,
  instType: instTypeOf(o.symbol),
  isTpLimit: 'false',
  lever: '',
  linkedAlgoOrd: { algoId: '' },
  ordId: String(o.orderId),
  ordType: o.type === 'LIMIT' ? 'limit' : 'market',
  pnl: '0',
  posSide: 'net',
  px: o.type === 'LIMIT' ? String(o.price) : '',
  pxType: '',
  pxUsd: '',
  pxVol: '',
  quickMgnType: '',
  rebate: '0',
  rebateCcy: 'USDT',
  reduceOnly: String(o.reduceOnly),
  side: o.side === 'BUY' ? 'buy' : 'sell',
  slOrdPx: '',
  slTriggerPx: '',
  slTriggerPxType: '',
  // Placed by a triggered algo order: 6 a trigger order's, 7 a TP/SL order's.
  source: sourceOf(o),
  state: STATE[o.status],
  stpId: '',
  stpMode: 'cancel_maker',
  sz: String(o.origQty),
  tag: '',
  tdMode: isSwap(o.symbol) ? 'cross' : 'cash',
  tgtCcy: o.type === 'MARKET' && !isSwap(o.symbol) ? 'base_ccy' : '',
  tpOrdPx: '',
  tpTriggerPx: '',
  tpTriggerPxType: '',
  tradeId: o.executedQty > 0 ? String(o.orderId * 10) : '',
  uTime: String(o.updateTime),
});

const instrument = (m: FakeMarket): Record<string, unknown> => {
  const swap = isSwap(m.symbol);
  return {
    alias: '',
    auctionEndTime: '',
    baseCcy: swap ? '' : m.base,
    category: '1',
    ctMult: swap ? '1' : '',
    ctType: swap ? 'linear' : '',
    ctVal: swap ? String(sizeOf(m)) : '',
    ctValCcy: swap ? m.base : '',
    expTime: '',
    instFamily: swap ? `${m.base}-${m.quote}` : '',
    instId: m.symbol,
    instType: instTypeOf(m.symbol),
    lever: swap ? '100' : '10',
    listTime: '1606468572000',
    lotSz: m.stepSize,
    maxIcebergSz: '9999999999.0000000000000000',
    maxLmtAmt: '1000000',
    maxLmtSz: m.maxQty,
    maxMktAmt: '1000000',
    maxMktSz: '1000000',
    maxStopSz: '1000000',
    maxTriggerSz: '9999999999.0000000000000000',
    maxTwapSz: '9999999999.0000000000000000',
    minSz: m.minQty,
    optType: '',
    quoteCcy: swap ? '' : m.quote,
    ruleType: 'normal',
    settleCcy: swap ? m.quote : '',
    state: 'live',
    stk: '',
    tickSz: m.tickSize,
    tradeQuoteCcyList: swap ? [] : [m.quote],
    uly: swap ? `${m.base}-${m.quote}` : '',
  };
};

const ticker = (m: FakeMarket): Record<string, unknown> => ({
  instType: instTypeOf(m.symbol),
  instId: m.symbol,
  last: String(m.bid),
  lastSz: '0.1',
  askPx: String(m.ask),
  askSz: '1',
  bidPx: String(m.bid),
  bidSz: '1',
  open24h: String(m.bid),
  high24h: String(m.ask),
  low24h: String(m.bid),
  volCcy24h: String(100 * m.bid),
  vol24h: '100',
  ts: String(Date.now()),
  sodUtc0: String(m.bid),
  sodUtc8: String(m.bid),
});

const balance = (exchange: FakeExchange, apiKey: string): Record<string, unknown> => {
  const account = exchange.accounts.get(apiKey)!;
  const details = [...account.balances].map(([ccy, cash]) => {
    const frozen = exchange.locked(apiKey, ccy);
    // Cross margin: the swaps' floating profit is part of the equity (eq) and of what is available.
    const upl = exchange.unrealized(apiKey, ccy);
    return {
      availBal: String(cash - frozen),
      availEq: String(cash + upl - frozen),
      borrowFroz: '',
      cashBal: String(cash),
      ccy,
      crossLiab: '',
      disEq: String(cash),
      eq: String(cash + upl),
      eqUsd: String(cash + upl),
      fixedBal: '0',
      frozenBal: String(frozen),
      imr: '',
      interest: '',
      isoEq: '0',
      isoLiab: '',
      isoUpl: '0',
      liab: '',
      maxLoan: '',
      mgnRatio: '',
      mmr: '',
      notionalLever: '0',
      ordFrozen: String(frozen),
      rewardBal: '0',
      spotInUseAmt: '',
      spotIsoBal: '0',
      stgyEq: '0',
      twap: '0',
      uTime: String(Date.now()),
      upl: String(upl),
      uplLiab: '',
    };
  });
  return {
    adjEq: '',
    borrowFroz: '',
    details,
    imr: '',
    isoEq: '0',
    mgnRatio: '',
    mmr: '',
    notionalUsd: '',
    ordFroz: '',
    totalEq: '0',
    uTime: String(Date.now()),
    upl: '0',
  };
};

/** A net-mode cross position of /api/v5/account/positions (pos signed: negative is short; cTime stays while it is open). */
const positionJson = (exchange: FakeExchange, instId: string, p: FakePosition): Record<string, unknown> => {
  const market = exchange.markets.get(instId)!;
  const mark = p.qty > 0 ? market.bid : market.ask;
  const notional = Math.abs(p.qty) * mark * sizeOf(market);
  return {
    adl: '1',
    availPos: '',
    avgPx: String(p.price),
    cTime: String(p.createdTime ?? Date.now()),
    ccy: market.quote,
    closeOrderAlgo: [],
    imr: String(notional / LEVERAGE),
    instId,
    instType: 'SWAP',
    last: String(mark),
    lever: String(LEVERAGE),
    liqPx: '',
    margin: '',
    markPx: String(mark),
    mgnMode: 'cross',
    mgnRatio: '',
    mmr: '0',
    notionalUsd: String(notional),
    pos: String(p.qty),
    posCcy: '',
    posId: `${instId}-${p.createdTime ?? 0}`,
    posSide: 'net',
    realizedPnl: '0',
    uTime: String(p.updatedTime ?? Date.now()),
    upl: String((mark - p.price) * p.qty * sizeOf(market)),
    uplRatio: '0',
  };
};

/** One order of a placement (trade/order or trade/batch-orders): its answer entry, sCode '0' when placed. */
const placeOne = (exchange: FakeExchange, apiKey: string, body: Record<string, string | undefined>): Record<string, string> => {
  const type = body.ordType === 'limit' ? 'LIMIT' : 'MARKET';
  const entry = (sCode: string, sMsg: string, ordId = '') => ({ clOrdId: body.clOrdId ?? '', ordId, sCode, sMsg, tag: body.tag ?? '', ts: String(Date.now()) });
  const swap = isSwap(body.instId ?? '');
  // Spot trades in cash mode; swaps in cross or isolated margin (the fake keeps one cross position per instrument).
  if (swap ? body.tdMode !== 'cross' && body.tdMode !== 'isolated' : body.tdMode !== 'cash') return entry('51000', 'Parameter tdMode error');
  if (!swap && type === 'MARKET' && body.side === 'buy' && body.tgtCcy !== 'base_ccy')
    return entry('51000', 'Parameter tgtCcy error: the fake takes base_ccy sizes only');
  const wrong = attachTo(exchange, body);
  if (wrong) return entry(...wrong);
  const result = exchange.place(apiKey, {
    symbol: body.instId ?? '',
    side: body.side === 'sell' ? 'SELL' : 'BUY',
    type,
    quantity: Number(body.sz),
    reduceOnly: String(body.reduceOnly) === 'true',
    ...(type === 'LIMIT' ? { price: Number(body.px) } : {}),
    ...(body.clOrdId ? { clientOrderId: body.clOrdId } : {}),
  });
  if (!isRefusal(result)) {
    keepAttached(exchange, result, body);
    return entry('0', 'Order placed', String(result.orderId));
  }
  const below = Number(body.sz) < Number(exchange.markets.get(body.instId ?? '')?.minQty);
  const refusals = {
    symbol: ['51001', "Instrument ID doesn't exist."],
    duplicate: ['51016', 'Duplicated client order ID'],
    lot: below
      ? ['51020', 'Order amount should be greater than the min available amount.']
      : ['51121', 'Order count should be the integer multiples of the lot size.'],
    notional: ['51020', 'Order amount should be greater than the min available amount.'],
    balance: ['51008', 'Order failed. Insufficient USDT balance in account.'],
  } as const;
  const [sCode, sMsg] = refusals[result.refusal];
  return entry(sCode, sMsg);
};

/** amend-order: a live limit order's price (newPx) and size (newSz, what it filled included); one the new price crosses fills. */
const amend = (exchange: FakeExchange, order: FakeOrder | undefined, body: Record<string, string | undefined>): Reply => {
  const answer = (sCode: string, sMsg: string): Reply => ({
    status: 200,
    json: {
      code: sCode === '0' ? '0' : '1',
      msg: '',
      data: [{ clOrdId: order?.clientOrderId ?? '', ordId: String(order?.orderId ?? body.ordId ?? ''), reqId: '', sCode, sMsg }],
    },
  });
  if (!order) return answer('51503', 'Order modification failed as the order does not exist.');
  if (order.status === 'CANCELED') return answer('51509', 'Modification failed as the order has been canceled.');
  if (order.status === 'FILLED') return answer('51510', 'Modification failed as the order has been completed.');
  if (order.type !== 'LIMIT') return answer('51506', 'Order modification unavailable for the order type.');
  const market = exchange.markets.get(order.symbol)!;
  const step = Number(market.stepSize);
  const sz = body.newSz === undefined ? order.origQty : Number(body.newSz);
  if (!(sz >= Number(market.minQty)) || Math.abs(Math.round(sz / step) * step - sz) > step / 1e6)
    return answer('51121', 'Order count should be the integer multiples of the lot size.');
  order.origQty = sz;
  if (body.newPx !== undefined) order.price = Number(body.newPx);
  order.updateTime = Date.now();
  exchange.streams.tell(order, null);
  // A price that now crosses the book fills it, as a move of the market would.
  exchange.setPrice(order.symbol, market.bid, market.ask);
  return answer('0', '');
};

/** OKX's signature check; the account's key, or a code refusal. */
const authenticate = (exchange: FakeExchange, request: { method: string; url: URL; body: string; headers: Record<string, unknown> }): string | Reply => {
  const apiKey = String(request.headers['ok-access-key'] ?? '');
  const account = exchange.accounts.get(apiKey);
  if (!account) return fail('50111', 'Invalid OK-ACCESS-KEY', 401);
  const prehash = `${String(request.headers['ok-access-timestamp'])}${request.method}${request.url.pathname}${request.url.search}${request.body}`;
  if (request.headers['ok-access-sign'] !== hmac(account.secret, prehash, 'base64')) return fail('50113', 'Invalid Sign', 401);
  if (request.headers['ok-access-passphrase'] !== account.passphrase) return fail('50105', 'OK-ACCESS-PASSPHRASE incorrect', 401);
  return apiKey;
};

export const okxApi: DialectApi = (exchange, request): Reply | null => {
  const { method, path, url } = request;
  if (!path.startsWith('/api/v5/')) return null;
  const q = url.searchParams;
  if (method === 'GET' && path === '/api/v5/public/time') return ok([{ ts: String(Date.now()) }]);
  const ofType = () => [...exchange.markets.values()].filter((m) => instTypeOf(m.symbol) === q.get('instType'));
  if (method === 'GET' && path === '/api/v5/public/instruments') return ok(ofType().map(instrument));
  if (method === 'GET' && path === '/api/v5/market/ticker') return ok([...exchange.markets.values()].filter((m) => m.symbol === q.get('instId')).map(ticker));
  if (method === 'GET' && path === '/api/v5/market/tickers') return ok(ofType().map(ticker));
  const auth = authenticate(exchange, request);
  if (typeof auth !== 'string') return auth;
  const apiKey = auth;
  const algo = okxAlgoApi(exchange, apiKey, method, path, q, request.body);
  if (algo) return algo;
  const body = method === 'POST' ? (JSON.parse(request.body || '{}') as Record<string, string | undefined>) : {};
  if (method === 'GET' && path === '/api/v5/account/balance') return ok([balance(exchange, apiKey)]);
  if (method === 'GET' && path === '/api/v5/account/positions') {
    const wanted = q.get('instId')?.split(',') ?? null;
    const held = [...exchange.accounts.get(apiKey)!.positions].filter(([instId]) => isSwap(instId) && (!wanted || wanted.includes(instId)));
    return ok(held.map(([instId, p]) => positionJson(exchange, instId, p)));
  }
  if (method === 'POST' && (path === '/api/v5/trade/order' || path === '/api/v5/trade/batch-orders')) {
    const fault = exchange.takePlacementFault();
    if (fault.rateLimited) return fail('50011', 'Too Many Requests', 429);
    const requests = (path === '/api/v5/trade/batch-orders' ? JSON.parse(request.body) : [body]) as Record<string, string | undefined>[];
    const data = requests.map((one) => placeOne(exchange, apiKey, one));
    const failed = data.filter((d) => d.sCode !== '0').length;
    const code = failed === 0 ? '0' : failed === data.length ? '1' : '2';
    return { status: 200, json: { code, msg: failed === 0 ? '' : 'All operations failed', data, inTime: '', outTime: '' }, delayMs: fault.delayMs };
  }
  const find = (ordId: string | null | undefined, clOrdId: string | null | undefined) =>
    exchange.ordersOf(apiKey).find((o) => (ordId ? String(o.orderId) === ordId : clOrdId ? o.clientOrderId === clOrdId : false));
  if (method === 'GET' && path === '/api/v5/trade/order') {
    const order = find(q.get('ordId'), q.get('clOrdId'));
    if (!order) return fail('51603', 'Order does not exist');
    return ok([okxOrderJson(order)]);
  }
  if (method === 'POST' && path === '/api/v5/trade/cancel-order') {
    const order = find(body.ordId, body.clOrdId);
    if (!order)
      return {
        status: 200,
        json: {
          code: '1',
          msg: 'All operations failed',
          data: [
            {
              clOrdId: '',
              ordId: body.ordId ?? '',
              sCode: '51400',
              sMsg: 'Order cancellation failed as the order has been filled, canceled or does not exist.',
            },
          ],
        },
      };
    if (!exchange.cancel(order))
      return {
        status: 200,
        json: {
          code: '1',
          msg: 'All operations failed',
          data: [{ clOrdId: order.clientOrderId, ordId: String(order.orderId), sCode: '51401', sMsg: 'Order has been canceled already.' }],
        },
      };
    return ok([{ clOrdId: order.clientOrderId, ordId: String(order.orderId), sCode: '0', sMsg: '', ts: String(Date.now()) }]);
  }
  if (method === 'POST' && path === '/api/v5/trade/amend-order') return amend(exchange, find(body.ordId, body.clOrdId), body);
  const lists = ['/api/v5/trade/orders-pending', '/api/v5/trade/orders-history', '/api/v5/trade/orders-history-archive'];
  if (method === 'GET' && lists.includes(path)) {
    const open = path === '/api/v5/trade/orders-pending';
    // Closed and cancelled orders: orders-history keeps 7 days, orders-history-archive 3 months; begin/end filter by creation time.
    const kept = Date.now() - (path.endsWith('archive') ? 92 : 7) * 86_400_000;
    const [begin, end] = [Number(q.get('begin') ?? 0), Number(q.get('end') ?? Infinity)];
    const orders = exchange
      .ordersOf(apiKey, q.get('instId'))
      .filter((o) => (open ? o.status === 'NEW' : o.status !== 'NEW' && o.updateTime >= kept && o.time >= begin && o.time <= end))
      .filter((o) => !q.get('state') || STATE[o.status] === q.get('state'))
      // Newest first, 100 a page at most; `after` an ordId: the orders older than it.
      .sort((a, b) => b.time - a.time || b.orderId - a.orderId);
    const after = q.get('after') ? orders.findIndex((o) => String(o.orderId) === q.get('after')) : -1;
    return ok(orders.slice(after + 1, after + 1 + Math.min(Number(q.get('limit') ?? 100), 100)).map(okxOrderJson));
  }
  return fail('50000', `fake exchange: no ${method} ${path}`, 404);
};
