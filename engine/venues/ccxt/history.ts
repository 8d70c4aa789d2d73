// What the replay (book.ts) reads of an account: its orders of a market, page by page where the
// exchange pages, and what the account holds now, the truth the orders are checked against.
//
// - Bybit v5 keeps closed orders 7 days (/v5/order/history, 50 a page at most, nextPageCursor) and OKX
//   7 days too (/api/v5/trade/orders-history, 100 a page, `after` the last ordId): every page is read
//   (at most MAX_PAGES). Binance spot's allOrders keeps them all but answers 1,000 at most (500 unless
//   asked): read forward by order id (`orderId`: that one and the later ones), 1,000 a page, from the
//   oldest order that was not final at the last read (ListedOrders: the final ones below it are kept,
//   they no longer change). Binance USDⓈ-M's allOrders lists them in one call (ccxt fetchOrders).
// - What is held: on derivatives the exchange's positions (ccxt fetchPositions: Bybit /v5/position/list,
//   Binance USDⓈ-M /fapi/v3/positionRisk), on spot the coins of the balance. The part not explained by
//   the orders still listed was held before the oldest of them: the replay starts from it (a seed), so
//   a position whose opening order the exchange no longer lists stays open under the id the service
//   knows (follow's known positions, else the connection's own last book), and is never reconciled as
//   closed. A derivatives position nobody knows gets an id from what the exchange keeps of it while it
//   stays open: `<market>-<side>-<opened ms>` where the exchange says when it opened (Bybit:
//   createdTime), else `<market>-<side>-at<entry price>` (Binance USDⓈ-M: its positions carry only an
//   updateTime, which moves with every margin or funding change; the entry price moves only with a
//   fill that adds to the position, which the replay lists).
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import type { KnownPosition, Side } from '../port.js';
import type { ExchangeOrder, Seed } from './book.js';
import { idOf } from './markets.js';
import { call, ordersOf } from './orders.js';
import { algoOrdersOf } from './stops.js';

/** Pages read per list and poll at most (Bybit: 50 orders each, OKX: 100, Binance spot: 1,000). */
export const MAX_PAGES = 20;
/** Binance spot's allOrders page (its maximum). */
export const BINANCE_PAGE = 1000;

const FINAL: ReadonlySet<string> = new Set(['closed', 'canceled', 'expired', 'rejected']);

/**
 * Binance spot's orders of a market already read that can no longer change: every order below `from`
 * (by order id) is final and kept here; the next read starts at `from`.
 */
export class ListedOrders {
  private readonly markets = new Map<string, { kept: Order[]; from: number }>();

  /** Every order of `market`, oldest first: those kept and the pages read from the first one not final. */
  async read(exchange: Exchange, market: Market): Promise<Order[]> {
    const known = this.markets.get(market.symbol) ?? { kept: [], from: 1 };
    const read: Order[] = [];
    let from = known.from;
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await call(() => exchange.fetchOrders(market.symbol, undefined, BINANCE_PAGE, { orderId: from }));
      read.push(...list);
      if (list.length < BINANCE_PAGE) break;
      from = Math.max(...list.map((o) => Number(o.id))) + 1;
    }
    const firstOpen = read.findIndex((o) => !FINAL.has(o.status ?? ''));
    const settled = firstOpen < 0 ? read : read.slice(0, firstOpen);
    const next = firstOpen < 0 ? (read.length > 0 ? Number(read[read.length - 1]!.id) + 1 : known.from) : Number(read[firstOpen]!.id);
    this.markets.set(market.symbol, { kept: [...known.kept, ...settled], from: next });
    return [...known.kept, ...read];
  }
}

type Implicit = Record<string, (params: Record<string, unknown>) => Promise<unknown>>;

/**
 * Every order of `market` the exchange still lists, open ones first, then the others oldest first: Bybit
 * and OKX list newest first, and the replay keeps the listing's order for fills stamped in the same
 * millisecond (a buy and the sell that closes it must not swap).
 */
export const accountOrders = async (exchange: Exchange, market: Market, exchangeId: string, listed: ListedOrders): Promise<Order[]> => {
  const api = exchange as unknown as Implicit;
  if (exchangeId === 'binance') return listed.read(exchange, market);
  if (exchangeId === 'bybit') {
    const open = await call(() => exchange.fetchOpenOrders(market.symbol, undefined, 50));
    const done: Order[] = [];
    let cursor = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = (await call(() => api.privateGetV5OrderHistory!({ category: 'linear', symbol: market.id, limit: 50, ...(cursor ? { cursor } : {}) }))) as {
        result?: { list?: unknown[]; nextPageCursor?: string };
      };
      const list = answer.result?.list ?? [];
      done.push(...exchange.parseOrders(list as Record<string, unknown>[], market));
      cursor = answer.result?.nextPageCursor ?? '';
      if (!cursor || list.length === 0) break;
    }
    return [...open, ...done.reverse()];
  }
  if (exchangeId === 'okx') {
    const open = await call(() => exchange.fetchOpenOrders(market.symbol));
    const done: Order[] = [];
    let after = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = (await call(() =>
        api.privateGetTradeOrdersHistory!({ instType: market.spot ? 'SPOT' : 'SWAP', instId: market.id, limit: '100', ...(after ? { after } : {}) }),
      )) as { data?: { ordId?: string }[] };
      const data = answer.data ?? [];
      done.push(...exchange.parseOrders(data as Record<string, unknown>[], market));
      if (data.length < 100) break;
      after = data[data.length - 1]!.ordId ?? '';
      if (!after) break;
    }
    return [...open, ...done.reverse()];
  }
  if (exchangeId === 'binanceusdm') {
    const orders = await ordersOf(exchange, market);
    return withTriggered(orders, await algoOrdersOf(exchange, market, orders));
  }
  return ordersOf(exchange, market);
};

/**
 * Binance USDⓈ-M's orders with its conditional (algo) orders: a triggered one stands for the market
 * order it placed (its actualOrderId), so a stop order that fills is one order from placement to fill;
 * an open one is a pending stop order, unless it is a close-all order (a position's stop, stops.ts).
 */
export const withTriggered = (orders: readonly Order[], conditional: readonly Order[]): Order[] => {
  const info = (o: Order) => (o.info ?? {}) as Record<string, unknown>;
  const placed = new Set(conditional.map((o) => String(info(o).actualOrderId ?? '')).filter((id) => id !== ''));
  const algos = conditional.filter((o) => !(o.status === 'open' && info(o).closePosition === true));
  return [...orders.filter((o) => !placed.has(String(o.id))), ...algos];
};

/** What an account holds of a market now: net contracts or coins (negative: short), with the exchange's entry price and time where it says. */
export interface Held {
  readonly net: number;
  readonly price: number | null;
  /** The position's last known time (its open time when `opened`). */
  readonly time: number | null;
  /** True: `time` is when the position opened and stays so while it is open (Bybit's createdTime). */
  readonly opened: boolean;
}

/** The exchanges whose positions say when they opened (ccxt's timestamp); the others' is a moving update time. */
const OPEN_TIME_KEPT: ReadonlySet<string> = new Set(['bybit']);

/** The account's holdings of `markets` (derivatives: positions; spot: coins), by market id. */
export const holdingsOf = async (exchange: Exchange, markets: readonly Market[], exchangeId: string): Promise<Map<string, Held>> => {
  const held = new Map<string, Held>();
  const derivatives = markets.filter((m) => !m.spot);
  const spot = markets.filter((m) => m.spot);
  if (derivatives.length > 0) {
    for (const m of derivatives) held.set(idOf(m), { net: 0, price: null, time: null, opened: false });
    // One market a request (Bybit takes one symbol at most).
    const positions = [];
    for (const m of derivatives) positions.push(...(await call(() => exchange.fetchPositions([m.symbol]))));
    for (const p of positions) {
      const market = p.symbol ? exchange.markets?.[p.symbol] : undefined;
      const contracts = Number(p.contracts ?? 0);
      if (!market || !(contracts > 0)) continue;
      const time = p.timestamp ?? null;
      held.set(idOf(market), {
        net: p.side === 'short' ? -contracts : contracts,
        price: p.entryPrice ?? null,
        time,
        opened: time !== null && OPEN_TIME_KEPT.has(exchangeId),
      });
    }
  }
  if (spot.length > 0) {
    const balance = await call(() => exchange.fetchBalance());
    const total = (balance.total ?? {}) as unknown as Record<string, number | undefined>;
    for (const m of spot) held.set(idOf(m), { net: total[m.base] ?? 0, price: null, time: null, opened: false });
  }
  return held;
};

const clean = (value: number): number => Math.round(value * 1e10) / 1e10;

/**
 * The positions held before the oldest listed order, per market id: what is held less the listed
 * fills. On spot only a position the service knows is seeded (coins bought elsewhere are not ours),
 * at most its known volume.
 */
export const seedsOf = (
  markets: readonly Market[],
  held: ReadonlyMap<string, Held>,
  orders: readonly ExchangeOrder[],
  anchors: (symbol: string, side: Side) => KnownPosition | undefined,
): Map<string, Seed> => {
  const seeds = new Map<string, Seed>();
  for (const market of markets) {
    const id = idOf(market);
    const now = held.get(id);
    if (!now) continue;
    const listed = orders.filter((o) => o.symbol === id && o.filled > 0).reduce((sum, o) => sum + (o.side === 'buy' ? o.filled : -o.filled), 0);
    const before = clean(now.net - listed);
    const step = market.precision.amount ?? 1e-8;
    if (Math.abs(before) < step / 2) continue;
    const side: Side = before > 0 ? 'buy' : 'sell';
    const anchor = anchors(id, side);
    if (market.spot && (side === 'sell' || !anchor)) continue;
    const volume = market.spot ? Math.min(before, anchor!.volume) : Math.abs(before);
    const opened = now.time ?? 0;
    seeds.set(id, {
      id: anchor?.id ?? (now.opened ? `${id}-${side}-${opened}` : `${id}-${side}-at${now.price ?? 0}`),
      side,
      volume: clean(volume),
      openPrice: anchor?.openPrice ?? now.price ?? 0,
      openTime: anchor?.openTime ?? new Date(opened).toISOString(),
    });
  }
  return seeds;
};
