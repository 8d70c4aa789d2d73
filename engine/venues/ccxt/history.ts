// What the replay (book.ts) reads of an account: its orders of a market, page by page where the
// exchange pages, and what the account holds now, the truth the orders are checked against.
//
// - Bybit v5 keeps closed orders 7 days (/v5/order/history, 50 a page at most, nextPageCursor) and OKX
//   7 days too (/api/v5/trade/orders-history, 100 a page, `after` the last ordId): every page is read
//   (at most MAX_PAGES). Binance spot's allOrders keeps them all but answers 1,000 at most (500 unless
//   asked): read forward by order id (`orderId`: that one and the later ones), 1,000 a page, from the
//   oldest order that was not final at the last read (ListedOrders: the final ones below it are kept,
//   they no longer change). Binance USDⓈ-M's allOrders lists them in one call (ccxt fetchOrders).
// - Older orders (OlderOrders): while part of what is held is not explained by the listed fills, the
//   windows before the recent 7 days are read one at a time (Binance USDⓈ-M allOrders and allAlgoOrders
//   with startTime/endTime, Bybit's history with startTime/endTime, OKX's orders-history-archive with
//   begin/end), 12 back at most (91 days with the recent one): the position so explained keeps the id
//   of the order that opened it, and the closes read on the way are its trades.
// - What is held: on derivatives the exchange's positions (ccxt fetchPositions: Bybit /v5/position/list,
//   Binance USDⓈ-M /fapi/v3/positionRisk), on spot the coins of the balance. The part not explained by
//   the orders listed, older ones included, was held before the oldest of them: the replay starts from it (a seed), so
//   a position whose opening order the exchange no longer lists stays open under the id the service
//   knows (follow's known positions, else the connection's own last book), and is never reconciled as
//   closed. A derivatives position nobody knows gets an id from what the exchange keeps of it while it
//   stays open: `<market>-<side>-<opened ms>` where the exchange says when it opened (Bybit:
//   createdTime, OKX: cTime), else `<market>-<side>-at<entry price>` (Binance USDⓈ-M: its positions carry only an
//   updateTime, which moves with every margin or funding change; the entry price moves only with a
//   fill that adds to the position, which the replay lists).
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import type { KnownOrder, KnownPosition, Side } from '../port.js';
import { type ExchangeOrder, netFilled, type Seed } from './book.js';
import { idOf } from './markets.js';
import { call, exchangeOrderOf, ordersOf } from './orders.js';
import { algoOrdersOf } from './stops.js';
import { okxOrders } from './okx.js';
import { FEES_FROM_TRADES, TradeFees } from './fees.js';
import { binanceOrdersIn, binanceRecentOrders, type Cut, WINDOW_CAP } from './windows.js';
import { type Listing, readListing } from './stream.js';

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

/** Bybit's closed orders of `market` (/v5/order/history; `window`: startTime and endTime), every page, oldest first. */
const bybitClosed = async (exchange: Exchange, market: Market, window: Record<string, number> = {}): Promise<Order[]> => {
  const api = exchange as unknown as Implicit;
  const done: Order[] = [];
  let cursor = '';
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = (await call(() =>
      api.privateGetV5OrderHistory!({ category: 'linear', symbol: market.id, limit: 50, ...window, ...(cursor ? { cursor } : {}) }),
    )) as {
      result?: { list?: unknown[]; nextPageCursor?: string };
    };
    const list = answer.result?.list ?? [];
    done.push(...exchange.parseOrders(list as Record<string, unknown>[], market));
    cursor = answer.result?.nextPageCursor ?? '';
    if (!cursor || list.length === 0) break;
  }
  return done.reverse();
};

/** OKX's closed orders of `market` (orders-history: 7 days; orders-history-archive: 3 months; `window`: begin and end), every page, oldest first. */
const okxClosed = async (
  exchange: Exchange,
  market: Market,
  list: 'privateGetTradeOrdersHistory' | 'privateGetTradeOrdersHistoryArchive',
  window: Record<string, string> = {},
): Promise<Order[]> => {
  const api = exchange as unknown as Implicit;
  const done: Order[] = [];
  let after = '';
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = (await call(() =>
      api[list]!({ instType: market.spot ? 'SPOT' : 'SWAP', instId: market.id, limit: '100', ...window, ...(after ? { after } : {}) }),
    )) as { data?: { ordId?: string }[] };
    const data = answer.data ?? [];
    done.push(...exchange.parseOrders(data as Record<string, unknown>[], market));
    if (data.length < 100) break;
    after = data[data.length - 1]!.ordId ?? '';
    if (!after) break;
  }
  return done.reverse();
};

/**
 * Every order of `market` the exchange still lists, open ones first, then the others oldest first: Bybit
 * and OKX list newest first, and the replay keeps the listing's order for fills stamped in the same
 * millisecond (a buy and the sell that closes it must not swap).
 */
export const accountOrders = async (exchange: Exchange, market: Market, exchangeId: string, listed: ListedOrders, cut?: Cut): Promise<Order[]> => {
  if (exchangeId === 'binance') return listed.read(exchange, market);
  if (exchangeId === 'bybit') return [...(await call(() => exchange.fetchOpenOrders(market.symbol, undefined, 50))), ...(await bybitClosed(exchange, market))];
  if (exchangeId === 'okx')
    return okxOrders(exchange, market, [
      ...(await call(() => exchange.fetchOpenOrders(market.symbol))),
      ...(await okxClosed(exchange, market, 'privateGetTradeOrdersHistory')),
    ]);
  if (exchangeId === 'binanceusdm') {
    // allOrders answers the last 7 days only: an order resting since before them is openOrders' alone.
    const recent = await binanceRecentOrders(exchange, market, {}, cut);
    const listed = new Set(recent.map((o) => String(o.id)));
    const resting = (await call(() => exchange.fetchOpenOrders(market.symbol))).filter((o) => !listed.has(String(o.id)));
    const orders = [...resting, ...recent];
    return withTriggered(orders, await algoOrdersOf(exchange, market, orders, cut));
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

/** The exchanges whose positions say when they opened (ccxt's timestamp: Bybit's createdTime, OKX's cTime); the others' is a moving update time. */
const OPEN_TIME_KEPT: ReadonlySet<string> = new Set(['bybit', 'okx']);

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
    const listed = netFilled(
      orders.filter((o) => o.symbol === id),
      market.spot === true,
    );
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

/** The window an exchange lists closed orders by (Binance USDⓈ-M's allOrders and allAlgoOrders, Bybit's order history: 7 days a query). */
export const WINDOW_MS = 7 * 86_400_000;
/** Windows of 7 days an account's orders are read in at most: the recent one and 12 back, the 90 days Binance USDⓈ-M and OKX's archive keep. */
export const MAX_WINDOWS = 13;
/** Each window read back reaches this far into the next younger one, so no order falls between two (clocks and reads differ by moments). */
const OVERLAP_MS = 300_000;
/** How long a walk that found nothing to explain what is held rests before it is tried again. */
const REST_MS = 3_600_000;

type WindowRead = (exchange: Exchange, market: Market, from: number, to: number, cut?: Cut) => Promise<Order[]>;

/** What an exchange lists of one window [from, to] (ms, by creation time), by exchange id: those whose recent listing is a window. */
const WINDOWED: Readonly<Record<string, WindowRead>> = {
  binanceusdm: async (exchange, market, from, to, cut) => {
    const orders = await binanceOrdersIn(exchange, market, from, to, {}, cut);
    const conditional = await binanceOrdersIn(exchange, market, from, to, { trigger: true }, cut);
    return withTriggered(orders, conditional);
  },
  bybit: (exchange, market, from, to) => bybitClosed(exchange, market, { startTime: from, endTime: to }),
  okx: (exchange, market, from, to) => okxClosed(exchange, market, 'privateGetTradeOrdersHistoryArchive', { begin: String(from), end: String(to) }),
};

/**
 * Orders older than the window the poll reads, kept per market: read one window back at a time while
 * part of what the account holds is not explained by the fills listed (a position opened before the
 * window), at most MAX_WINDOWS - 1 back; then the windows that time pushed out of the recent one, as they
 * are needed. Only final orders are kept: they no longer change. A position explained so gets the id of
 * the order that opened it, and the older closes read on the way are trades. A walk that found no
 * explanation (a position older than the exchange keeps) is tried again an hour later, not every poll.
 * Exchanges that list everything (Binance spot) or that this adapter does not window are left as read.
 *
 * - A position the service knows open (`known`: follow's, at reconciliation) whose opening order is not
 *   listed is looked for back to the window of its open time, held now or not: one closed more than 7
 *   days ago while nobody listened is then read with its close, a trade under its id, and reconciled as
 *   closed (not "gone without a closing trade"). A trade opened and closed out of the recent window that
 *   the service never knew is not read: nothing held asks for it and the service has nothing to close
 *   (history() answers the closes the exchange still lists, and those the walks read).
 *   A pending order the service knows (`known` holds those too, under `<market id>/order/<id>`) is
 *   sought the same way: one placed over 7 days ago that filled and closed while nobody listened is read
 *   back with its fill and close, not taken for cancelled; so is a limit order that rested over a week.
 * - The forward path: final orders of the last listing that this one no longer lists (they aged out of
 *   the recent window while the connection ran) are kept as they were, with no request and whatever
 *   the exchange's clock says; the windows time pushed out are read too when a walk runs (a restart, a
 *   listing cut at its pages).
 */
export class OlderOrders {
  /** Per market id: the final orders read from `bottom` up to `top` (ms). */
  private readonly kept = new Map<string, { orders: ExchangeOrder[]; bottom: number; top: number; restUntil: number }>();
  /** Per market id: the final orders the last listing had. */
  private readonly lastListed = new Map<string, readonly ExchangeOrder[]>();

  constructor(
    private readonly exchangeId: string,
    private readonly withFees = false,
    private readonly cut?: Cut,
  ) {}

  /**
   * `listing` with the older orders that explain what is held put before its own (`now`: when it was
   * read, ms; `known`: the positions the service knows open, by `<market id>/<side>`).
   */
  async explain(exchange: Exchange, listing: Listing, now: number, known: ReadonlyMap<string, KnownOrder> = new Map()): Promise<Listing> {
    const windowed = WINDOWED[this.exchangeId];
    if (!windowed) return listing;
    const read = async (market: Market, from: number, to: number): Promise<ExchangeOrder[]> =>
      (await windowed(exchange, market, from, to, this.cut)).map((o) => exchangeOrderOf(o, idOf(market), this.withFees)).filter((o) => FINAL.has(o.status));
    const older: ExchangeOrder[] = [];
    const recentFrom = now - WINDOW_MS;
    for (const market of listing.markets) {
      const id = idOf(market);
      const step = market.precision.amount ?? 1e-8;
      const recent = new Set(listing.orders.filter((o) => o.symbol === id).map((o) => o.id));
      const entry = this.kept.get(id) ?? { orders: [], bottom: recentFrom, top: recentFrom, restUntil: 0 };
      const add = (orders: readonly ExchangeOrder[], before: boolean) => {
        const fresh = orders.filter((o) => !entry.orders.some((k) => k.id === o.id));
        entry.orders = before ? [...fresh, ...entry.orders] : [...entry.orders, ...fresh];
      };
      const listed = () => [...listing.orders.filter((o) => o.symbol === id), ...entry.orders.filter((o) => !recent.has(o.id))];
      const unexplained = () => Math.abs(clean((listing.held.get(id)?.net ?? 0) - netFilled(listed(), market.spot === true))) >= step / 2;
      const sought = [...known].filter(([key]) => key.startsWith(`${id}/`)).map(([, p]) => p);
      /** A known position whose opening order is not listed and whose open time is older than what was read. */
      const missing = () => {
        const ids = new Set(listed().map((o) => o.id));
        return sought.some((p) => !ids.has(p.id) && Date.parse(p.openTime) < entry.bottom + OVERLAP_MS);
      };
      const aged = (this.lastListed.get(id) ?? []).filter((o) => !recent.has(o.id));
      this.lastListed.set(
        id,
        listing.orders.filter((o) => o.symbol === id && FINAL.has(o.status)),
      );
      if (aged.length > 0) {
        add(aged, false);
        this.kept.set(id, entry);
      }
      if ((unexplained() || missing()) && now >= entry.restUntil) {
        while (entry.top < recentFrom) {
          const to = Math.min(entry.top + WINDOW_MS, recentFrom + OVERLAP_MS);
          add(await read(market, to - WINDOW_MS, to), false);
          entry.top = Math.min(to, recentFrom);
        }
        while ((unexplained() || missing()) && now - entry.bottom < MAX_WINDOWS * WINDOW_MS) {
          const to = entry.bottom + OVERLAP_MS;
          add(await read(market, to - WINDOW_MS, to), true);
          entry.bottom -= WINDOW_MS;
        }
        if (unexplained()) entry.restUntil = now + REST_MS;
        this.kept.set(id, entry);
      }
      older.push(...entry.orders.filter((o) => !recent.has(o.id)));
    }
    return older.length === 0 ? listing : { ...listing, orders: [...older, ...listing.orders] };
  }
}

/**
 * What each replay reads of an account (connection.ts): its holdings and orders, with the older orders
 * that explain them, and where the orders carry no fees (Binance) the fees of their fills (fees.ts).
 */
export class AccountHistory {
  private readonly listed = new ListedOrders();
  private readonly older: OlderOrders;
  private readonly fees: TradeFees | null;
  /** Tells a window whose orders could not all be read (the account's log). */
  private readonly cut: Cut;

  constructor(
    private readonly exchangeId: string,
    private readonly withFees = false,
    warn: (message: string) => void = () => undefined,
  ) {
    this.cut = (from, to) =>
      warn(
        `more than ${WINDOW_CAP} orders in the millisecond ${new Date(from).toISOString()}–${new Date(to).toISOString()}: those the exchange did not list are left out of the book`,
      );
    this.older = new OlderOrders(exchangeId, withFees, this.cut);
    this.fees = FEES_FROM_TRADES.has(exchangeId) ? new TradeFees(exchangeId) : null;
  }

  /** An order the stream told, as the replay takes it (with its fee, read as the poll reads it). */
  async streamed(exchange: Exchange, market: Market, o: Order): Promise<ExchangeOrder> {
    const order = exchangeOrderOf(o, idOf(market), this.withFees);
    return this.fees ? this.fees.streamed(exchange, market, o, order) : order;
  }

  /** The listing of `markets` (`now`: when the read began, ms; `known`: the positions the service knows open, by `<market id>/<side>`). */
  async read(exchange: Exchange, markets: readonly Market[], now: number, known: ReadonlyMap<string, KnownOrder> = new Map()): Promise<Listing> {
    const listing = await readListing(
      markets,
      () => holdingsOf(exchange, markets, this.exchangeId),
      async () => {
        const orders: ExchangeOrder[] = [];
        for (const market of markets)
          for (const o of await accountOrders(exchange, market, this.exchangeId, this.listed, this.cut))
            orders.push(exchangeOrderOf(o, idOf(market), this.withFees));
        return orders;
      },
    );
    const explained = await this.older.explain(exchange, listing, now, known);
    if (!this.fees) return explained;
    return { ...explained, orders: await this.fees.withFees(exchange, markets, explained.orders, now) };
  }
}
