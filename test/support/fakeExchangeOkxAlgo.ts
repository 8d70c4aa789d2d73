// OKX v5 algo orders for the fake OKX (fakeExchangeOkx.ts): a swap position's stop loss and take profit
// as OKX keeps them, one algo order of `ordType` conditional (one leg) or oco (both legs) on the closing
// side, reduce-only, of a size or of the whole position (closeFraction 1). They come from an opening
// order's `attachAlgoOrds` once it fills, or from /api/v5/trade/order-algo; amend-algos changes a leg's
// trigger ("0" removes one; a leg the order lacks cannot be added), cancel-algos cancels, orders-algo-pending
// and orders-algo-history (state effective / canceled, `actualSide` sl or tp) list them. A price that
// reaches a leg triggers the order: a reduce-only market order of its size (the position's at most) is
// placed, carrying the algo's id as OKX's triggered orders do (ccxt reads that id as the order's), and
// the order turns effective. An algo order outlives a position closed otherwise (as a close-all order
// at Binance does): the adapter cancels leftovers. A stop order is a `trigger` algo order (triggerPx,
// orderPx -1: a market order of `sz` once the last price reaches the trigger from the side it was
// placed on), changed with amend-algos (newTriggerPx, newSz) and read back by algoId or algoClOrdId
// (trade/order-algo). An order a triggered algo order placed carries its algoId and OKX's `source`
// (6: a trigger order's, 7: a TP/SL order's) and its algoClOrdId; orders-algo-history (3 months) and
// trade/order-algo (by id, any age) tell which leg fired (`actualSide`).
// Refusals with OKX's codes: 51277-51280 (a trigger on the wrong side of the last price), 51000 (a
// parameter), 51065 (an algoClOrdId taken), 51603 (no such order).
import type { FakeExchange, FakeOrder, Reply } from './fakeExchange.js';
import { isRefusal } from './fakeExchange.js';

export interface OkxAlgo {
  readonly algoId: string;
  readonly algoClOrdId: string;
  readonly apiKey: string;
  readonly instId: string;
  readonly side: 'buy' | 'sell';
  readonly ordType: 'conditional' | 'oco' | 'trigger';
  /** Contracts; null: the whole position (closeFraction 1). */
  sz: number | null;
  slTriggerPx: number | null;
  tpTriggerPx: number | null;
  /** A trigger order's trigger price (null: a TP/SL order) and whether the price must rise to it (it was above the last price when placed). */
  triggerPx: number | null;
  rising: boolean;
  readonly reduceOnly: boolean;
  state: 'live' | 'effective' | 'canceled';
  actualSide: '' | 'sl' | 'tp';
  /** The order it placed when it triggered. */
  ordId: string;
  cTime: number;
  uTime: number;
}

type Body = Record<string, unknown>;
type Legs = { slTriggerPx?: unknown; tpTriggerPx?: unknown };

const state = new WeakMap<FakeExchange, { algos: OkxAlgo[]; next: number; attached: Map<number, Legs> }>();
/** The algo order whose trigger placed an order. */
const placedBy = new WeakMap<FakeOrder, OkxAlgo>();
/** The algo order placing an order right now (its stream messages are told during the placement), and the index that order takes. */
let placing: { exchange: FakeExchange; index: number; algo: OkxAlgo } | null = null;
const of = (exchange: FakeExchange) => {
  const s = state.get(exchange) ?? { algos: [], next: 700_000, attached: new Map<number, Legs>() };
  state.set(exchange, s);
  return s;
};

/** The algo orders of a fake OKX (a spec's view). */
export const okxAlgos = (exchange: FakeExchange): readonly OkxAlgo[] => of(exchange).algos;

const placerOf = (order: FakeOrder): OkxAlgo | undefined =>
  placedBy.get(order) ?? (placing && placing.exchange.orders[placing.index] === order ? placing.algo : undefined);

/** The id of the algo order whose trigger placed `order` (OKX's algoId on the order), or ''. */
export const algoIdOf = (order: FakeOrder): string => placerOf(order)?.algoId ?? '';

/** The client id of the algo order whose trigger placed `order` (OKX's algoClOrdId on the order), or ''. */
export const algoClOrdIdOf = (order: FakeOrder): string => placerOf(order)?.algoClOrdId ?? '';

/** Moves the algo orders `ms` into the past (FakeExchange.age). */
export const ageOkxAlgos = (exchange: FakeExchange, ms: number): void => {
  for (const algo of of(exchange).algos) {
    algo.cTime -= ms;
    algo.uTime -= ms;
  }
};

/** Algo orders OKX tells nowhere any more, not even by id (a spec's switch). */
const forgotten = new WeakMap<FakeExchange, Set<string>>();
export const forgetOkxAlgo = (exchange: FakeExchange, algoId: string, forget = true): void => {
  const set = forgotten.get(exchange) ?? new Set<string>();
  forgotten.set(exchange, set);
  if (forget) set.add(algoId);
  else set.delete(algoId);
};

/** OKX's `source` of an order: 6 placed by a trigger order, 7 by a TP/SL order (conditional, oco), '' otherwise. */
export const sourceOf = (order: FakeOrder): string => {
  const algo = placerOf(order);
  return algo ? (algo.ordType === 'trigger' ? '6' : '7') : '';
};

const ok = (data: unknown[]): Reply => ({ status: 200, json: { code: '0', msg: '', data } });
const refused = (sCode: string, sMsg: string, algoId = ''): Reply => ({
  status: 200,
  json: { code: '1', msg: 'All operations failed', data: [{ algoId, algoClOrdId: '', sCode, sMsg }] },
});
const level = (value: unknown): number | null => (value === undefined || value === null || value === '' || Number(value) === 0 ? null : Number(value));

export const okxAlgoJson = (a: OkxAlgo): Record<string, unknown> => ({
  actualPx: '',
  actualSide: a.actualSide,
  actualSz: '0',
  algoClOrdId: a.algoClOrdId,
  algoId: a.algoId,
  cTime: String(a.cTime),
  closeFraction: a.sz === null ? '1' : '',
  instId: a.instId,
  instType: 'SWAP',
  lever: '10',
  ordId: a.ordId,
  ordIdList: a.ordId ? [a.ordId] : [],
  ordPx: a.triggerPx === null ? '' : '-1',
  ordType: a.ordType,
  posSide: 'net',
  reduceOnly: String(a.reduceOnly),
  side: a.side,
  slOrdPx: a.slTriggerPx === null ? '' : '-1',
  slTriggerPx: a.slTriggerPx === null ? '' : String(a.slTriggerPx),
  slTriggerPxType: a.slTriggerPx === null ? '' : 'last',
  state: a.state,
  sz: a.sz === null ? '' : String(a.sz),
  tdMode: 'cross',
  tgtCcy: '',
  tpOrdPx: a.tpTriggerPx === null ? '' : '-1',
  tpTriggerPx: a.tpTriggerPx === null ? '' : String(a.tpTriggerPx),
  tpTriggerPxType: a.tpTriggerPx === null ? '' : 'last',
  triggerPx: a.triggerPx === null ? '' : String(a.triggerPx),
  triggerPxType: a.triggerPx === null ? '' : 'last',
  uTime: String(a.uTime),
});

/** Why OKX refuses these legs on the closing `side` at the last price (51277-51280), or null. */
const wrongSide = (exchange: FakeExchange, instId: string, side: 'buy' | 'sell', sl: number | null, tp: number | null): [string, string] | null => {
  const market = exchange.markets.get(instId);
  if (!market) return ['51001', "Instrument ID doesn't exist."];
  const last = market.bid;
  // Closing a long (sell): the stop loss below the last price, the take profit above; closing a short the other way.
  if (side === 'sell' && sl !== null && sl >= last) return ['51280', 'SL trigger price can not be higher than the last price'];
  if (side === 'sell' && tp !== null && tp <= last) return ['51279', 'TP trigger price can not be lower than the last price'];
  if (side === 'buy' && sl !== null && sl <= last) return ['51278', 'SL trigger price can not be lower than the last price'];
  if (side === 'buy' && tp !== null && tp >= last) return ['51277', 'TP trigger price can not be higher than the last price'];
  return null;
};

const newAlgo = (
  exchange: FakeExchange,
  apiKey: string,
  p: { instId: string; side: 'buy' | 'sell'; sz: number | null; sl: number | null; tp: number | null; clOrdId: string; trigger?: number; reduceOnly?: boolean },
) => {
  const s = of(exchange);
  const now = Date.now();
  const algo: OkxAlgo = {
    algoId: String(s.next++),
    algoClOrdId: p.clOrdId,
    apiKey,
    instId: p.instId,
    side: p.side,
    ordType: p.trigger !== undefined ? 'trigger' : p.sl !== null && p.tp !== null ? 'oco' : 'conditional',
    sz: p.sz,
    slTriggerPx: p.sl,
    tpTriggerPx: p.tp,
    triggerPx: p.trigger ?? null,
    rising: p.trigger !== undefined && p.trigger > (exchange.markets.get(p.instId)?.bid ?? 0),
    reduceOnly: p.reduceOnly ?? p.trigger === undefined,
    state: 'live',
    actualSide: '',
    ordId: '',
    cTime: now,
    uTime: now,
  };
  s.algos.push(algo);
  return algo;
};

/** An opening order's attachAlgoOrds (trade/order): kept until the order fills, refused if a leg is on the wrong side. */
export const attachTo = (exchange: FakeExchange, body: Body): [string, string] | null => {
  const legs = (body.attachAlgoOrds as Legs[] | undefined)?.[0];
  if (!legs) return null;
  const closing = body.side === 'buy' ? 'sell' : 'buy';
  return wrongSide(exchange, String(body.instId), closing, level(legs.slTriggerPx), level(legs.tpTriggerPx));
};

/** Remembers the legs of an order just placed; they become an algo order once it fills (attachedFills). */
export const keepAttached = (exchange: FakeExchange, order: FakeOrder, body: Body): void => {
  const legs = (body.attachAlgoOrds as Legs[] | undefined)?.[0];
  if (legs) of(exchange).attached.set(order.orderId, legs);
  attachedFills(exchange);
};

/** Orders with attached legs that filled: their algo order, of the order's size, on the closing side. */
const attachedFills = (exchange: FakeExchange): void => {
  const s = of(exchange);
  for (const [orderId, legs] of s.attached) {
    const order = exchange.orders.find((o) => o.orderId === orderId);
    if (!order || order.status === 'NEW') continue;
    s.attached.delete(orderId);
    if (order.status !== 'FILLED') continue;
    const side = order.side === 'BUY' ? 'sell' : 'buy';
    newAlgo(exchange, order.apiKey, { instId: order.symbol, side, sz: order.origQty, sl: level(legs.slTriggerPx), tp: level(legs.tpTriggerPx), clOrdId: '' });
  }
};

/** After a price move (FakeExchange.setPrice): attached legs of filled orders become algo orders, and live ones the price reaches trigger. */
export const triggerOkxAlgos = (exchange: FakeExchange, instId: string): void => {
  attachedFills(exchange);
  const market = exchange.markets.get(instId);
  if (!market) return;
  for (const algo of of(exchange).algos) {
    if (algo.instId !== instId || algo.state !== 'live') continue;
    if (algo.triggerPx !== null) {
      if (algo.rising ? market.bid >= algo.triggerPx : market.bid <= algo.triggerPx) fire(exchange, algo, algo.sz!, algo.reduceOnly, '');
      continue;
    }
    const exit = algo.side === 'sell' ? market.bid : market.ask;
    const long = algo.side === 'sell';
    const sl = algo.slTriggerPx !== null && (long ? exit <= algo.slTriggerPx : exit >= algo.slTriggerPx);
    const tp = algo.tpTriggerPx !== null && (long ? exit >= algo.tpTriggerPx : exit <= algo.tpTriggerPx);
    if (!sl && !tp) continue;
    const held = exchange.position(algo.apiKey, instId);
    algo.uTime = Date.now();
    // Reduce-only: nothing held on the side it closes, nothing placed (OKX cancels it).
    if (held === 0 || held > 0 !== long) {
      algo.state = 'canceled';
      continue;
    }
    fire(exchange, algo, Math.min(algo.sz ?? Math.abs(held), Math.abs(held)), true, sl ? 'sl' : 'tp');
  }
};

/** A triggered algo order places its market order (carrying its algoId from the first message the stream tells of it) and turns effective. */
const fire = (exchange: FakeExchange, algo: OkxAlgo, quantity: number, reduceOnly: boolean, actualSide: OkxAlgo['actualSide']): void => {
  placing = { exchange, index: exchange.orders.length, algo };
  try {
    const side = algo.side === 'sell' ? 'SELL' : 'BUY';
    const placed = exchange.place(algo.apiKey, { symbol: algo.instId, side, type: 'MARKET', quantity, reduceOnly, clientOrderId: '' });
    if (isRefusal(placed)) return;
    placedBy.set(placed, algo);
    algo.state = 'effective';
    algo.actualSide = actualSide;
    algo.ordId = String(placed.orderId);
  } finally {
    placing = null;
  }
};

/** A stop order (order-algo, ordType trigger): a market order of `sz` once the price reaches triggerPx. */
const placeTrigger = (exchange: FakeExchange, apiKey: string, body: Body): Reply => {
  const trigger = level(body.triggerPx);
  if (trigger === null) return refused('51000', 'Parameter triggerPx error');
  if (String(body.orderPx) !== '-1') return refused('51000', 'Parameter orderPx error: the fake places market trigger orders only');
  const market = exchange.markets.get(String(body.instId));
  if (!market) return refused('51001', "Instrument ID doesn't exist.");
  const sz = Number(body.sz);
  const step = Number(market.stepSize);
  if (!(sz >= Number(market.minQty)) || Math.abs(Math.round(sz / step) * step - sz) > step / 1e6)
    return refused('51121', 'Order count should be the integer multiples of the lot size.');
  const clOrdId = String(body.algoClOrdId ?? '');
  if (clOrdId && of(exchange).algos.some((a) => a.apiKey === apiKey && a.algoClOrdId === clOrdId)) return refused('51065', 'algoClOrdId already exists.');
  const side = body.side === 'buy' ? 'buy' : 'sell';
  const reduceOnly = String(body.reduceOnly) === 'true';
  const algo = newAlgo(exchange, apiKey, { instId: market.symbol, side, sz, sl: null, tp: null, clOrdId, trigger, reduceOnly });
  return ok([{ algoId: algo.algoId, algoClOrdId: algo.algoClOrdId, clOrdId: '', sCode: '0', sMsg: '', tag: '' }]);
};

/** amend-algos of a trigger order: a new trigger price (newTriggerPx) and size (newSz). */
const amendTrigger = (exchange: FakeExchange, algo: OkxAlgo, body: Body): Reply => {
  const trigger = body.newTriggerPx === undefined ? algo.triggerPx : level(body.newTriggerPx);
  if (trigger === null) return refused('51000', 'Parameter newTriggerPx error', algo.algoId);
  const sz = body.newSz === undefined ? algo.sz : Number(body.newSz);
  if (!(Number(sz) > 0)) return refused('51000', 'Parameter newSz error', algo.algoId);
  algo.triggerPx = trigger;
  algo.rising = trigger > (exchange.markets.get(algo.instId)?.bid ?? 0);
  algo.sz = sz;
  algo.uTime = Date.now();
  return ok([{ algoId: algo.algoId, algoClOrdId: algo.algoClOrdId, reqId: '', sCode: '0', sMsg: '' }]);
};

/** The algo endpoints of OKX v5 for an authenticated account, or null for other paths. */
export const okxAlgoApi = (exchange: FakeExchange, apiKey: string, method: string, path: string, q: URLSearchParams, raw: string): Reply | null => {
  const mine = () => of(exchange).algos.filter((a) => a.apiKey === apiKey && !forgotten.get(exchange)?.has(a.algoId));
  if (method === 'POST' && path === '/api/v5/trade/order-algo') {
    const body = JSON.parse(raw || '{}') as Body;
    if (body.tdMode !== 'cross') return refused('51000', 'Parameter tdMode error');
    if (body.ordType === 'trigger') return placeTrigger(exchange, apiKey, body);
    if (body.ordType !== 'conditional' && body.ordType !== 'oco')
      return refused('51000', 'Parameter ordType error: the fake places conditional, oco and trigger only');
    const whole = body.closeFraction === '1';
    if (whole && String(body.reduceOnly) !== 'true') return refused('51000', 'Parameter reduceOnly error');
    const [sl, tp] = [level(body.slTriggerPx), level(body.tpTriggerPx)];
    if (sl === null && tp === null) return refused('51000', 'Parameter slTriggerPx error');
    const side = body.side === 'buy' ? 'buy' : 'sell';
    const wrong = wrongSide(exchange, String(body.instId), side, sl, tp);
    if (wrong) return refused(...wrong);
    const sz = whole ? null : Number(body.sz);
    const clOrdId = String(body.algoClOrdId ?? body.clOrdId ?? '');
    const algo = newAlgo(exchange, apiKey, { instId: String(body.instId), side, sz, sl, tp, clOrdId });
    return ok([{ algoId: algo.algoId, algoClOrdId: algo.algoClOrdId, clOrdId: '', sCode: '0', sMsg: '', tag: '' }]);
  }
  if (method === 'POST' && path === '/api/v5/trade/amend-algos') {
    const body = JSON.parse(raw || '{}') as Body;
    const algo = mine().find((a) => a.algoId === body.algoId && a.state === 'live');
    if (!algo) return refused('51603', 'Order does not exist', String(body.algoId ?? ''));
    if (algo.ordType === 'trigger') return amendTrigger(exchange, algo, body);
    const next = { sl: algo.slTriggerPx, tp: algo.tpTriggerPx };
    for (const [leg, key] of [
      ['sl', 'newSlTriggerPx'],
      ['tp', 'newTpTriggerPx'],
    ] as const) {
      if (body[key] === undefined) continue;
      if (next[leg] === null && level(body[key]) !== null) return refused('51000', `Parameter ${key} error`, algo.algoId);
      next[leg] = level(body[key]);
    }
    if (next.sl === null && next.tp === null) return refused('51000', 'Parameter newSlTriggerPx error', algo.algoId);
    const wrong = wrongSide(exchange, algo.instId, algo.side, next.sl, next.tp);
    if (wrong) return refused(...wrong, algo.algoId);
    algo.slTriggerPx = next.sl;
    algo.tpTriggerPx = next.tp;
    algo.uTime = Date.now();
    return ok([{ algoId: algo.algoId, algoClOrdId: algo.algoClOrdId, reqId: '', sCode: '0', sMsg: '' }]);
  }
  if (method === 'POST' && path === '/api/v5/trade/cancel-algos') {
    const wanted = JSON.parse(raw || '[]') as Body[];
    const data = wanted.map((w) => {
      const algo = mine().find((a) => a.algoId === w.algoId && a.state === 'live');
      if (!algo) return { algoId: String(w.algoId ?? ''), sCode: '51603', sMsg: 'Order does not exist' };
      algo.state = 'canceled';
      algo.uTime = Date.now();
      return { algoId: algo.algoId, sCode: '0', sMsg: '' };
    });
    const failed = data.filter((d) => d.sCode !== '0').length;
    return { status: 200, json: { code: failed === 0 ? '0' : failed === data.length ? '1' : '2', msg: '', data } };
  }
  if (method === 'GET' && path === '/api/v5/trade/order-algo') {
    const algo = mine().find((a) => (q.get('algoId') ? a.algoId === q.get('algoId') : a.algoClOrdId !== '' && a.algoClOrdId === q.get('algoClOrdId')));
    return algo ? ok([okxAlgoJson(algo)]) : refused('51603', 'Order does not exist');
  }
  const pending = path === '/api/v5/trade/orders-algo-pending';
  if (method === 'GET' && (pending || path === '/api/v5/trade/orders-algo-history')) {
    const types = (q.get('ordType') ?? '').split(',');
    // conditional and oco may be asked together; any other type alone.
    if (!(types.every((t) => t === 'conditional' || t === 'oco') || (types.length === 1 && types[0] === 'trigger'))) return ok([]);
    if (!pending && !q.get('state') && !q.get('algoId')) return refused('51000', 'Parameter state error');
    // orders-algo-history keeps 3 months (by creation); trade/order-algo answers by id whatever the age (assumed of OKX).
    const kept = Date.now() - 92 * 86_400_000;
    const list = mine()
      .filter((a) => (pending ? a.state === 'live' : a.state !== 'live' && a.cTime >= kept && (!q.get('state') || a.state === q.get('state'))))
      .filter((a) => types.includes(a.ordType) && (!q.get('instId') || a.instId === q.get('instId')) && (!q.get('algoId') || a.algoId === q.get('algoId')))
      .sort((a, b) => Number(b.algoId) - Number(a.algoId));
    return ok(list.slice(0, 100).map(okxAlgoJson));
  }
  return null;
};
