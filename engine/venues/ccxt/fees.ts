// Binance's fees (spot and USDⓈ-M): its orders carry none, listed or streamed as orders; its account
// trade lists do (/api/v3/myTrades, /fapi/v1/userTrades: ccxt fetchMyTrades), each fill with its
// commission, and so does each fill the order stream tells (executionReport / ORDER_TRADE_UPDATE `n`,
// `N`, trade id `t`). An order's fee is the sum of its fills' commissions, kept per trade id, so a fill
// read twice (poll and stream, a stream that repeats itself) counts once and stream and poll agree.
//
// - The fills of a market are read forward by trade id (`fromId`, 1,000 a page): one request a poll, a
//   fill is never read twice (it never changes). Spot starts at the first fill (allOrders lists every
//   order too). USDⓈ-M's list answers 7 days a query: it starts with the last 7 days by time window, goes
//   further back (window by window, 6 months at most) when a listed order is older than what was read
//   (the older orders the walk in history.ts finds), and then goes forward by trade id. A window that
//   answers 1,000 is read again in halves (windows.ts), a millisecond that does read on by trade id.
// - A streamed fill takes its commission from the stream. Where the stream missed earlier fills of the
//   order (it opened after them), the trade list is read once for that order before the fill is told.
// - Only the fills the order listing counts are summed (oldest first, up to its filled amount), so a fill
//   that came between the order read and the trade read is charged with the order that lists it.
// - A commission in the quote currency counts as is, one in the base coin at its fill's price; one in a
//   third coin (BNB, with Binance's BNB discount on) is not counted, as on Bybit and OKX. The coins a
//   base-coin commission took are told with the order (`baseFee`): a spot buy adds that much less to
//   what the account holds (book.ts).
import type { Exchange, MarketInterface as Market, Order, Trade } from 'ccxt';
import type { ExchangeOrder } from './book.js';
import { idOf } from './markets.js';
import { call } from './orders.js';
import { everyInWindow } from './windows.js';

/** The exchanges whose fees come from their trade lists. */
export const FEES_FROM_TRADES: ReadonlySet<string> = new Set(['binance', 'binanceusdm']);

/** One fill of an order: its volume, its fee in the account's currency and the coins of it paid in the base coin. */
interface Fill {
  readonly qty: number;
  readonly fee: number;
  readonly base: number;
}

const PAGE = 1000;
const MAX_PAGES = 20;
/** USDⓈ-M's trade list: 7 days a query (less a millisecond), 6 months back. */
const WINDOW_MS = 7 * 86_400_000 - 1;
const KEPT_MS = 180 * 86_400_000;
/** Windows reach this far past an order's placement and past the last window read (clocks differ by moments). */
const MARGIN_MS = 60_000;
const EPSILON = 1e-12;

/** The coins of a fee paid in the market's base coin (Binance spot's buys), else 0. */
const inBase = (market: Market, fee: { cost?: unknown; currency?: unknown } | undefined): number => {
  const cost = Number(fee?.cost);
  return fee?.currency === market.base && Number.isFinite(cost) ? cost : 0;
};

/** A fee in the account's (the market's quote) currency: base coins at the fill's price; another coin is not counted. */
const inQuote = (market: Market, fee: { cost?: unknown; currency?: unknown } | undefined, price: number): number => {
  const cost = Number(fee?.cost);
  if (!Number.isFinite(cost)) return 0;
  if (fee?.currency === market.quote) return cost;
  if (fee?.currency === market.base) return cost * price;
  return 0;
};

export class TradeFees {
  /** Fills by order id, then trade id. */
  private readonly fills = new Map<string, Map<string, Fill>>();
  /**
   * Per market id: the next trade id to read (null: none known yet), and (USDⓈ-M) the span [from, to]
   * (ms) whose fills were read by window.
   */
  private readonly read = new Map<string, { next: number | null; from: number; to: number }>();

  constructor(private readonly exchangeId: string) {}

  /** Reads the fills the orders' fees need (`now`: ms), then answers the orders with their fees. */
  async withFees(exchange: Exchange, markets: readonly Market[], orders: readonly ExchangeOrder[], now: number): Promise<ExchangeOrder[]> {
    for (const market of markets) {
      await this.readForward(exchange, market, now);
      const unknown = orders.filter((o) => o.symbol === idOf(market) && o.filled > 0 && this.known(o.id) < o.filled - EPSILON);
      if (this.exchangeId !== 'binance' && unknown.length > 0)
        await this.readBack(exchange, market, Math.min(...unknown.map((o) => o.timestamp)) - MARGIN_MS, now);
    }
    return orders.map((o) => this.applied(o));
  }

  /** A streamed order with its fee: the stream's own fills, and the trade list where the stream missed some. */
  async streamed(exchange: Exchange, market: Market, streamed: Order, order: ExchangeOrder): Promise<ExchangeOrder> {
    if (!(order.filled > 0)) return order;
    const info = (streamed.info ?? {}) as Record<string, unknown>;
    // Kept without moving the next trade id to read: earlier fills the stream missed are still to be read.
    this.record(market, (streamed as { trades?: Trade[] }).trades ?? [], false);
    if (info.x === 'TRADE' && info.t !== undefined) {
      const price = Number(info.L);
      const fee = { cost: info.n, currency: info.N };
      this.add(order.id, String(info.t), Number(info.l), inQuote(market, fee, price), inBase(market, fee));
    }
    if (this.known(order.id) < order.filled - EPSILON) await this.readForward(exchange, market, exchange.milliseconds());
    return this.applied(order);
  }

  /** The order with the fees of the fills it counts (oldest first, up to its filled amount). */
  private applied(order: ExchangeOrder): ExchangeOrder {
    const fills = this.fills.get(order.id);
    if (!fills || !(order.filled > 0)) return order;
    let qty = 0;
    let fee = 0;
    let base = 0;
    for (const [, fill] of [...fills].sort(([a], [b]) => Number(a) - Number(b))) {
      if (qty + fill.qty > order.filled + EPSILON) break;
      qty += fill.qty;
      fee += fill.fee;
      base += fill.base;
    }
    return { ...order, fee: Math.round(fee * 1e10) / 1e10, ...(base > 0 ? { baseFee: Math.round(base * 1e10) / 1e10 } : {}) };
  }

  private known(orderId: string): number {
    let qty = 0;
    for (const fill of this.fills.get(orderId)?.values() ?? []) qty += fill.qty;
    return qty;
  }

  private add(orderId: string, tradeId: string, qty: number, fee: number, base: number): void {
    if (!Number.isFinite(qty) || !(qty > 0) || tradeId === '' || tradeId === 'undefined') return;
    const fills = this.fills.get(orderId) ?? new Map<string, Fill>();
    this.fills.set(orderId, fills);
    fills.set(tradeId, { qty, fee: Number.isFinite(fee) ? fee : 0, base });
  }

  /** Keeps the fills and (`advance`: a list read, not the stream) moves the market's next trade id past them. */
  private record(market: Market, trades: readonly Trade[], advance = true): void {
    const state = this.stateOf(market, Date.now());
    for (const t of trades) {
      this.add(String(t.order ?? ''), String(t.id), Number(t.amount), inQuote(market, t.fee, Number(t.price)), inBase(market, t.fee));
      const id = Number(t.id);
      if (advance && Number.isFinite(id) && state.next !== null && id >= state.next) state.next = id + 1;
    }
  }

  private stateOf(market: Market, now: number): { next: number | null; from: number; to: number } {
    const state = this.read.get(idOf(market)) ?? { next: this.exchangeId === 'binance' ? 0 : null, from: now - WINDOW_MS, to: now - WINDOW_MS + MARGIN_MS };
    this.read.set(idOf(market), state);
    return state;
  }

  /** The market's new fills: from the next trade id on, page by page (USDⓈ-M before any is known: by window up to now). */
  private async readForward(exchange: Exchange, market: Market, now: number): Promise<void> {
    const state = this.stateOf(market, now);
    if (state.next === null) {
      // Up to this read, not the poll's start: a fill between the two is in the orders the poll listed.
      const to = Math.max(now, exchange.milliseconds());
      const trades = await this.windows(exchange, market, state.to - MARGIN_MS, to);
      state.to = to;
      this.record(market, trades);
      if (trades.length > 0) state.next = Math.max(...trades.map((t) => Number(t.id))) + 1;
      return;
    }
    for (let page = 0; page < MAX_PAGES; page++) {
      const trades = await call(() => exchange.fetchMyTrades(market.symbol, undefined, PAGE, { fromId: state.next }));
      this.record(market, trades);
      if (trades.length < PAGE) break;
    }
  }

  /** USDⓈ-M: the market's fills from `from` (ms) up to the span already read, window by window. */
  private async readBack(exchange: Exchange, market: Market, from: number, now: number): Promise<void> {
    const state = this.stateOf(market, now);
    const start = Math.max(from, now - KEPT_MS);
    if (start >= state.from) return;
    this.record(market, await this.windows(exchange, market, start, state.from + MARGIN_MS));
    state.from = start;
  }

  /** Every fill of the market in [from, to] (ms), in windows of 7 days (each split while it answers 1,000). */
  private async windows(exchange: Exchange, market: Market, from: number, to: number): Promise<Trade[]> {
    const found: Trade[] = [];
    const read = (start: number, end: number) => call(() => exchange.fetchMyTrades(market.symbol, undefined, PAGE, { startTime: start, endTime: end }));
    // One order's fills can crowd a millisecond past 1,000: read on from there by trade id.
    const readOn = {
      from: (fromId: number) => call(() => exchange.fetchMyTrades(market.symbol, undefined, PAGE, { fromId })),
      timeOf: (t: Trade) => t.timestamp ?? 0,
    };
    for (let start = from; start < to; start += WINDOW_MS)
      found.push(...(await everyInWindow(read, (t) => String(t.id), start, Math.min(start + WINDOW_MS, to), { readOn })));
    return found;
  }
}
