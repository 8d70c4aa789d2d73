// Lists an exchange answers by time window with a cap per answer (Binance USDⓈ-M's allOrders,
// allAlgoOrders and userTrades: 7 days a query, 1,000 at most an answer): a window that answers the cap
// may hold more, so it is read again in two halves, each halved again while full, whatever order the
// exchange picks its 1,000 by, down to a millisecond (windows are whole milliseconds, both ends in:
// [from, middle] and [middle + 1, to]; items are told apart by id all the same). A millisecond that still answers the cap is read on by id where the list can (`readOn`:
// userTrades' fromId); where it cannot, what it may have left out is told (`cut`: the account's log),
// never passed over in silence. (Binance's order rate limits, 300 orders in 10 s on USDⓈ-M, make 1,000
// orders in one millisecond impossible; one order's fills can be that many.)
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import { call } from './orders.js';

/** The most a window answer holds (the exchanges' maximum `limit`). */
export const WINDOW_CAP = 1000;

/** Told a window [from, to] (ms) whose items could not all be read (the account's log). */
export type Cut = (from: number, to: number) => void;

/** What a windowed read does with a millisecond that answers the cap. */
export interface WindowOverflow<T> {
  /** The items from an id on (oldest first, at most the cap) and an item's time: the millisecond is read on by id until past it. */
  readonly readOn?: { readonly from: (fromId: number) => Promise<T[]>; readonly timeOf: (item: T) => number };
  /** Told the window [from, to] (ms) that may hold more than was read (no `readOn`); without it, an error is thrown. */
  readonly cut?: Cut;
}

/** Reads on by id past a full millisecond [from, to] until an answer is short or passes `to`. */
const readOnById = async <T>(readOn: NonNullable<WindowOverflow<T>['readOn']>, idOf: (item: T) => string, found: Map<string, T>, to: number): Promise<void> => {
  for (;;) {
    const next = Math.max(...[...found.keys()].map(Number)) + 1;
    const items = await readOn.from(next);
    for (const item of items) if (readOn.timeOf(item) <= to) found.set(idOf(item), item);
    if (items.length < WINDOW_CAP || items.some((item) => readOn.timeOf(item) > to)) return;
  }
};

/** Everything `read` lists in [from, to] (ms), windows that answered the cap split until none does. */
export const everyInWindow = async <T>(
  read: (from: number, to: number) => Promise<T[]>,
  idOf: (item: T) => string,
  from: number,
  to: number,
  overflow: WindowOverflow<T> = {},
): Promise<T[]> => {
  const found = new Map<string, T>();
  const walk = async (start: number, end: number): Promise<void> => {
    const items = await read(start, end);
    for (const item of items) found.set(idOf(item), item);
    if (items.length < WINDOW_CAP) return;
    if (end > start) {
      const middle = Math.floor((start + end) / 2);
      await walk(start, middle);
      await walk(middle + 1, end);
      return;
    }
    if (overflow.readOn) {
      const inside = new Map(items.map((item) => [idOf(item), item]));
      await readOnById(overflow.readOn, idOf, inside, end);
      for (const [id, item] of inside) found.set(id, item);
    } else if (overflow.cut) overflow.cut(start, end);
    else throw new Error(`more than ${WINDOW_CAP} items in the window ${new Date(start).toISOString()}–${new Date(end).toISOString()}: some would be left out`);
  };
  await walk(from, to);
  return [...found.values()];
};

const WEEK_MS = 7 * 86_400_000;

/** Oldest first (ties by numeric id: Binance's ids grow with time), as the replay reads a listing. */
const oldestFirst = (orders: Iterable<Order>): Order[] => [...orders].sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0) || Number(a.id) - Number(b.id));

/**
 * Binance USDⓈ-M's orders of `market` created in [from, to] (ms), every one however many the window holds
 * (`params.trigger`: its algo orders, allAlgoOrders; else allOrders), oldest first.
 */
export const binanceOrdersIn = async (
  exchange: Exchange,
  market: Market,
  from: number,
  to: number,
  params: Record<string, unknown> = {},
  cut?: Cut,
): Promise<Order[]> =>
  oldestFirst(
    await everyInWindow(
      (start, end) => call(() => exchange.fetchOrders(market.symbol, undefined, WINDOW_CAP, { ...params, startTime: start, endTime: end })),
      (o) => String(o.id),
      from,
      to,
      cut ? { cut } : {},
    ),
  );

/**
 * Binance USDⓈ-M's recent orders of `market` (the exchange's default window: its last 7 days by its own
 * clock, so nothing just placed is cut off by ours). An answer that holds the cap may leave some out: the
 * week up to the newest listed is then read again by windows.
 */
export const binanceRecentOrders = async (exchange: Exchange, market: Market, params: Record<string, unknown> = {}, cut?: Cut): Promise<Order[]> => {
  const listed = await call(() => exchange.fetchOrders(market.symbol, undefined, WINDOW_CAP, params));
  if (listed.length < WINDOW_CAP) return listed;
  const to = listed.reduce((newest, o) => Math.max(newest, o.timestamp ?? 0), exchange.milliseconds());
  const byId = new Map(listed.map((o) => [String(o.id), o]));
  for (const o of await binanceOrdersIn(exchange, market, to - WEEK_MS, to, params, cut)) byId.set(String(o.id), o);
  return oldestFirst(byId.values());
};
