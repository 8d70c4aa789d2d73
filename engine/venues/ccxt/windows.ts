// Lists an exchange answers by time window with a cap per answer (Binance USDⓈ-M's allOrders,
// allAlgoOrders and userTrades: 7 days a query, 1,000 at most an answer): a window that answers the cap
// may hold more, so it is read again in two halves, each halved again while full, whatever order the
// exchange picks its 1,000 by. Items are told apart by id (a half's edge belongs to both).
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import { call } from './orders.js';

/** The most a window answer holds (the exchanges' maximum `limit`). */
export const WINDOW_CAP = 1000;
/** Halvings at most (1,000 × 2^16 items in one window). */
const MAX_DEPTH = 16;

/** Everything `read` lists in [from, to] (ms), windows that answered the cap split until none does. */
export const everyInWindow = async <T>(read: (from: number, to: number) => Promise<T[]>, idOf: (item: T) => string, from: number, to: number): Promise<T[]> => {
  const found = new Map<string, T>();
  const walk = async (start: number, end: number, depth: number): Promise<void> => {
    const items = await read(start, end);
    for (const item of items) found.set(idOf(item), item);
    if (items.length < WINDOW_CAP || end - start < 2 || depth >= MAX_DEPTH) return;
    const middle = Math.floor((start + end) / 2);
    await walk(start, middle, depth + 1);
    await walk(middle, end, depth + 1);
  };
  await walk(from, to, 0);
  return [...found.values()];
};

const WEEK_MS = 7 * 86_400_000;

/** Oldest first (ties by numeric id: Binance's ids grow with time), as the replay reads a listing. */
const oldestFirst = (orders: Iterable<Order>): Order[] => [...orders].sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0) || Number(a.id) - Number(b.id));

/**
 * Binance USDⓈ-M's orders of `market` created in [from, to] (ms), every one however many the window holds
 * (`params.trigger`: its algo orders, allAlgoOrders; else allOrders), oldest first.
 */
export const binanceOrdersIn = async (exchange: Exchange, market: Market, from: number, to: number, params: Record<string, unknown> = {}): Promise<Order[]> =>
  oldestFirst(
    await everyInWindow(
      (start, end) => call(() => exchange.fetchOrders(market.symbol, undefined, WINDOW_CAP, { ...params, startTime: start, endTime: end })),
      (o) => String(o.id),
      from,
      to,
    ),
  );

/**
 * Binance USDⓈ-M's recent orders of `market` (the exchange's default window: its last 7 days by its own
 * clock, so nothing just placed is cut off by ours). An answer that holds the cap may leave some out: the
 * week up to the newest listed is then read again by windows.
 */
export const binanceRecentOrders = async (exchange: Exchange, market: Market, params: Record<string, unknown> = {}): Promise<Order[]> => {
  const listed = await call(() => exchange.fetchOrders(market.symbol, undefined, WINDOW_CAP, params));
  if (listed.length < WINDOW_CAP) return listed;
  const to = listed.reduce((newest, o) => Math.max(newest, o.timestamp ?? 0), exchange.milliseconds());
  const byId = new Map(listed.map((o) => [String(o.id), o]));
  for (const o of await binanceOrdersIn(exchange, market, to - WEEK_MS, to, params)) byId.set(String(o.id), o);
  return oldestFirst(byId.values());
};
