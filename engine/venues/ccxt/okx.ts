// OKX's algo orders in the replay (history.ts accountOrders; targets okx and okxswap). An order a
// triggered algo order placed carries that order's algoId (ccxt reads it as the order's id), its
// algoClOrdId and OKX's `source` (6: a trigger order's, 7: a TP/SL order's), not which leg fired: that is
// the algo order's `actualSide` (sl / tp) in orders-algo-history, read once per algo order (it no longer
// changes) and copied onto the order's info, where orders.ts closeReasonOf reads it, so a close a stop
// loss or take profit made is recorded with its reason, not as manual. orders-algo-history keeps 3 months:
// a TP/SL order placed before that is asked for by its id (trade/order-algo, the algo order's details); a
// leg neither tells is not kept, so a later read asks again (at most once a minute per algo order: a
// history read then gives the leg once OKX tells it), and the close is `manual` until then: the reason of
// the orders nothing says fired. A streamed order carrying an algoId is not merged as it comes (stops.ts
// fromTrigger): the connection polls, which reads the reason first.
// On swaps the pending stop orders are OKX `trigger` algo orders (orders-algo-pending, ordType trigger);
// one that triggered is the market order it placed, under the same id. A close such a stop order makes is
// `manual`, as at the simulated venue (a pending order's fill that closes a netting position): the
// spec's other reasons are the position's own stop loss and take profit and the broker's stop-out. It
// carries the stop order's client id (OKX's algoClOrdId, which ccxt does not read as one), so the history
// says the service placed it (ByExpert).
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import { venueErrorOf } from './errors.js';
import { call, classOf } from './orders.js';

type Implicit = Record<string, (params: Record<string, unknown>) => Promise<unknown>>;

const info = (o: Order): Record<string, unknown> => (o.info ?? {}) as Record<string, unknown>;

/** The id of the algo order that placed `o` ('': none). */
export const okxAlgoIdOf = (o: Order): string => String(info(o).algoId ?? '');

/** Per connection (its ccxt client): the leg that fired of each TP/SL algo order seen placing an order ('sl', 'tp'), by algoId. */
const firedLegs = new WeakMap<Exchange, Map<string, string>>();
/** Per connection: when the leg of an algo order that no list told was last asked, by algoId. */
const untold = new WeakMap<Exchange, Map<string, number>>();
/** An algo order whose leg no list told is asked again after this long. */
export const UNTOLD_RETRY_MS = 60_000;

type AlgoAnswer = { data?: { actualSide?: string }[] };

/** The leg that fired of TP/SL algo order `algoId` ('': not told): orders-algo-history (3 months), else its details. */
const firedLeg = async (exchange: Exchange, algoId: string): Promise<string> => {
  const api = exchange as unknown as Implicit;
  const listed = (await call(() => api.privateGetTradeOrdersAlgoHistory!({ ordType: 'conditional,oco', algoId }))) as AlgoAnswer;
  const leg = String(listed.data?.[0]?.actualSide ?? '');
  if (leg !== '') return leg;
  try {
    const details = (await api.privateGetTradeOrderAlgo!({ algoId })) as AlgoAnswer;
    return String(details.data?.[0]?.actualSide ?? '');
  } catch (error) {
    // 51603: OKX no longer tells that algo order.
    if (classOf(error, 'OrderNotFound') || /51603/.test(String(error))) return '';
    throw venueErrorOf(error);
  }
};

/** `o` with its fired leg in its info and, placed by an algo order, that order's client id (algoClOrdId) where it has none. */
const withAlgo = (o: Order, leg: string | undefined): Order => {
  const clientId = o.clientOrderId ? undefined : String(info(o).algoClOrdId ?? '') || undefined;
  if (!leg && !clientId) return o;
  return Object.assign({}, o, {
    ...(leg ? { info: Object.assign({}, info(o), { actualSide: leg }) } : {}),
    ...(clientId ? { clientOrderId: clientId } : {}),
  });
};

/**
 * The orders of `market` as the replay takes them: those a TP/SL algo order placed with its fired leg
 * in their info (`actualSide`), those an algo order placed with its client id, and on swaps the pending
 * trigger algo orders (stop orders) first.
 */
export const okxOrders = async (exchange: Exchange, market: Market, orders: readonly Order[]): Promise<Order[]> => {
  const legs = firedLegs.get(exchange) ?? new Map<string, string>();
  firedLegs.set(exchange, legs);
  const asked = untold.get(exchange) ?? new Map<string, number>();
  untold.set(exchange, asked);
  const now = exchange.milliseconds();
  for (const o of orders) {
    const algoId = okxAlgoIdOf(o);
    // A trigger order's (source 6) is a stop order that filled: no leg.
    if (algoId === '' || legs.has(algoId) || info(o).source === '6' || now - (asked.get(algoId) ?? -Infinity) < UNTOLD_RETRY_MS) continue;
    const leg = await firedLeg(exchange, algoId);
    if (leg !== '') {
      legs.set(algoId, leg);
      asked.delete(algoId);
    } else asked.set(algoId, now);
  }
  const read = orders.map((o) => withAlgo(o, legs.get(okxAlgoIdOf(o))));
  if (market.spot) return read;
  const stopOrders = await call(() => exchange.fetchOpenOrders(market.symbol, undefined, undefined, { trigger: true, ordType: 'trigger' }));
  return [...stopOrders.map((o) => withAlgo(o, undefined)), ...read];
};
