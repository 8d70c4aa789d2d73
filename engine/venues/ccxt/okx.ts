// OKX's algo orders in the replay (history.ts accountOrders; targets okx and okxswap). An order a
// triggered algo order placed carries that order's algoId (ccxt reads it as the order's id) and OKX's
// `source` (6: a trigger order's, 7: a TP/SL order's), not which leg fired: that is the algo order's
// `actualSide` (sl / tp) in orders-algo-history, read once per algo order (it no longer changes) and
// copied onto the order's info, where orders.ts closeReasonOf reads it, so a close a stop loss or take
// profit made is recorded with its reason, not as manual. A streamed order carrying an algoId is not
// merged as it comes (stops.ts fromTrigger): the connection polls, which reads the reason first.
// On swaps the pending stop orders are OKX `trigger` algo orders (orders-algo-pending, ordType trigger);
// one that triggered is the market order it placed, under the same id.
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import { call } from './orders.js';

type Implicit = Record<string, (params: Record<string, unknown>) => Promise<unknown>>;

const info = (o: Order): Record<string, unknown> => (o.info ?? {}) as Record<string, unknown>;

/** The id of the algo order that placed `o` ('': none). */
export const okxAlgoIdOf = (o: Order): string => String(info(o).algoId ?? '');

/** Per connection (its ccxt client): the leg that fired of each TP/SL algo order seen placing an order ('sl', 'tp'; '': not told), by algoId. */
const firedLegs = new WeakMap<Exchange, Map<string, string>>();

/** The leg that fired of TP/SL algo order `algoId` (orders-algo-history; '' when it is not listed). */
const firedLeg = async (exchange: Exchange, algoId: string): Promise<string> => {
  const answer = (await call(() => (exchange as unknown as Implicit).privateGetTradeOrdersAlgoHistory!({ ordType: 'conditional,oco', algoId }))) as {
    data?: { actualSide?: string }[];
  };
  return String(answer.data?.[0]?.actualSide ?? '');
};

/**
 * The orders of `market` as the replay takes them: those a TP/SL algo order placed with its fired leg
 * in their info (`actualSide`), and on swaps the pending trigger algo orders (stop orders) first.
 */
export const okxOrders = async (exchange: Exchange, market: Market, orders: readonly Order[]): Promise<Order[]> => {
  const legs = firedLegs.get(exchange) ?? new Map<string, string>();
  firedLegs.set(exchange, legs);
  for (const o of orders) {
    const algoId = okxAlgoIdOf(o);
    // A trigger order's (source 6) is a stop order that filled: no leg.
    if (algoId !== '' && !legs.has(algoId) && info(o).source !== '6') legs.set(algoId, await firedLeg(exchange, algoId));
  }
  const read = orders.map((o) => {
    const leg = legs.get(okxAlgoIdOf(o));
    return leg ? Object.assign({}, o, { info: Object.assign({}, info(o), { actualSide: leg }) }) : o;
  });
  if (market.spot) return read;
  const stopOrders = await call(() => exchange.fetchOpenOrders(market.symbol, undefined, undefined, { trigger: true, ordType: 'trigger' }));
  return [...stopOrders, ...read];
};
