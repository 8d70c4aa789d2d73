// The private WebSocket stream of a ccxt account (ccxt pro's watchOrders), beside the poll (link.ts).
// The book is replayed from the account's orders (book.ts): an order update the stream pushes is put
// into the listing the last replay read (the same order by id, only when it says more: more filled, or
// no longer open), the holdings moved by the fill it adds, and the book replayed again. The port's
// changes are the difference of two books (changes.ts), so a fill the stream tells first and the
// next poll reads again is told once: the poll's book is the book the stream already made.
//
// - Binance spot: the WebSocket API's userDataStream.subscribe.signature (ws-api/v3), executionReport
//   events; Binance USDⓈ-M: a listenKey (POST /fapi/v1/listenKey, kept alive by ccxt) and the private
//   stream's ORDER_TRADE_UPDATE; Bybit v5: /v5/private, op auth then the `order` topic; OKX v5:
//   /ws/v5/private, op login (the key, its passphrase and a signed timestamp) then the `orders` channel
//   of every instrument type (ccxt's default `ANY`), kept alive by OKX's text ping.
// - The stream's URLs are the exchange's own, moved to CCXT_BASE_URL like the REST ones (link.ts).
// - While the stream is live the poll slows to CCXT_STREAM_POLL_MS (it reconciles: what the stream
//   missed, a field it does not carry); while it is down the poll runs every CCXT_POLL_MS again.
// - A dropped or refused stream is opened again after CCXT_POLL_MS, doubled per failure (at most a
//   minute); once it is open again the account is polled at once, so what filled while it was away
//   becomes changes then (and once: the difference again).
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import type { KnownPosition, OpenPosition, Side } from '../port.js';
import { type ExchangeOrder, movedBy, replayOrders, type ReplayedBook, type Pricing } from './book.js';
import { type Held, seedsOf } from './history.js';
import { describe, type ExchangeClass, MAX_BACKOFF_MS } from './link.js';
import type { PositionStops } from './stops.js';
import type { CcxtLog } from './connection.js';

/** The exchanges whose private order stream this adapter reads (the others are polled only). */
export const STREAMED: ReadonlySet<string> = new Set(['binance', 'binanceusdm', 'bybit', 'okx']);

/** What a replay read of the exchange: the markets followed, what is held of each, and their orders. */
export interface Listing {
  readonly markets: readonly Market[];
  readonly held: ReadonlyMap<string, Held>;
  readonly orders: readonly ExchangeOrder[];
}

/** The book of a listing (pure): its orders replayed from the positions held before the oldest of them. */
export const bookOf = (listing: Listing, pricing: Pricing, anchors: (symbol: string, side: Side) => KnownPosition | undefined): ReplayedBook =>
  replayOrders(listing.orders, pricing, seedsOf(listing.markets, listing.held, listing.orders, anchors));

const EPSILON = 1e-12;
const LISTING_READS = 3;

/**
 * A listing whose holdings and orders agree: what is held is read before and after the orders, and
 * again while a fill fell between (a fill in the orders but not in the holdings would make a phantom
 * position held before the oldest order, and its close a phantom trade).
 */
export const readListing = async (
  markets: readonly Market[],
  readHeld: () => Promise<Map<string, Held>>,
  readOrders: () => Promise<ExchangeOrder[]>,
): Promise<Listing> => {
  let held = await readHeld();
  for (let read = 1; ; read++) {
    const orders = await readOrders();
    const after = await readHeld();
    const same = [...after].every(([id, h]) => Math.abs(h.net - (held.get(id)?.net ?? 0)) <= EPSILON) && after.size === held.size;
    if (same || read === LISTING_READS) return { markets, held: after, orders };
    held = after;
  }
};

/** True when `update` says more about an order than `known`: more of it filled, or it is no longer open. */
export const isNewer = (update: ExchangeOrder, known: ExchangeOrder): boolean =>
  update.filled > known.filled + EPSILON || (Math.abs(update.filled - known.filled) <= EPSILON && known.status === 'open' && update.status !== 'open');

/**
 * The listing with the streamed orders put in (null: nothing new). An order of a market the listing
 * does not follow is in `unfollowed` (the caller follows it and polls).
 */
export const mergeStreamed = (listing: Listing, updates: readonly ExchangeOrder[]): { listing: Listing | null; unfollowed: string[] } => {
  const followed = new Set(listing.markets.map((m) => m.id ?? m.symbol));
  const spot = new Set(listing.markets.filter((m) => m.spot === true).map((m) => m.id ?? m.symbol));
  const orders = [...listing.orders];
  const held = new Map(listing.held);
  const unfollowed: string[] = [];
  let changed = false;
  for (const update of updates) {
    if (!followed.has(update.symbol)) {
      if (!unfollowed.includes(update.symbol)) unfollowed.push(update.symbol);
      continue;
    }
    const at = orders.findIndex((o) => o.id === update.id);
    const known = at >= 0 ? orders[at]! : null;
    if (known && !isNewer(update, known)) continue;
    if (at >= 0) orders[at] = update;
    else orders.push(update);
    const added = update.filled - (known?.filled ?? 0);
    const coins = movedBy(update, spot.has(update.symbol)) - (known ? movedBy(known, spot.has(update.symbol)) : 0);
    const now = held.get(update.symbol);
    if (now && added > EPSILON) held.set(update.symbol, { ...now, net: Math.round((now.net + (update.side === 'buy' ? coins : -coins)) * 1e10) / 1e10 });
    changed = true;
  }
  return { listing: changed ? { markets: listing.markets, held, orders } : null, unfollowed };
};

/**
 * Where the position's own stops are the truth (Bybit), a streamed book's positions keep the ones the
 * last book had, except those a streamed fill opened or changed: theirs are read from the exchange once,
 * at the fill (`read`: one request for their symbols), so a stop loss set on the position at the
 * exchange comes with the fill, not with the next poll. If that read fails they keep what they had (a
 * new one its opening order's), and the next poll reads them.
 */
export const withPositionStops = async (
  book: ReplayedBook,
  previous: ReplayedBook,
  read: (moved: readonly OpenPosition[]) => Promise<ReadonlyMap<string, PositionStops>>,
  onError: (error: unknown) => void,
): Promise<ReplayedBook> => {
  const before = new Map<string, OpenPosition>(previous.positions.map((p) => [p.id, p]));
  const moved = book.positions.filter((p) => before.get(p.id)?.volume !== p.volume);
  let current: ReadonlyMap<string, PositionStops> | null = null;
  if (moved.length > 0) current = await read(moved).catch((error: unknown) => (onError(error), null));
  const positions = book.positions.map((p) => {
    if (current && moved.some((m) => m.symbol === p.symbol)) return { ...p, ...(current.get(p.symbol) ?? { stopLoss: null, takeProfit: null }) };
    const old = before.get(p.id);
    return old ? { ...p, stopLoss: old.stopLoss, takeProfit: old.takeProfit } : p;
  });
  return { ...book, positions };
};

export type StreamState = 'off' | 'connecting' | 'streaming' | 'down';

interface WsClient {
  readonly isConnected?: boolean;
}

/**
 * The watch loop of one account: watchOrders again and again on a ccxt pro client of its own (the
 * REST client's markets and credentials), the orders it answers handed to `onOrders`. A failure
 * (refused key, dropped connection, keep-alive missed) closes the client, runs `onDown` and opens a
 * new one after the backoff; `onOpen` runs each time a client is connected (the account is polled then:
 * what filled before the stream was open, or while it was away).
 */
export class OrderStream {
  private stopped = true;
  private client: Exchange | null = null;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  private running: Promise<void> = Promise.resolve();
  /** Attempts failed in a row (0: open or opening for the first time). */
  failures = 0;
  /** Why the stream last failed, while it is down. */
  lastError: string | null = null;
  private waiting = false;

  constructor(
    private readonly login: string,
    private readonly open: () => Promise<Exchange>,
    private readonly retryMs: number,
    private readonly log: CcxtLog,
    private readonly onOrders: (orders: readonly Order[]) => void,
    private readonly onOpen: () => void,
    private readonly onDown: () => void,
  ) {}

  get state(): StreamState {
    if (this.stopped) return 'off';
    if (this.waiting) return 'down';
    return this.isOpen() ? 'streaming' : 'connecting';
  }

  /** What the stream is doing, for the account's statusMessage. */
  describe(): string {
    switch (this.state) {
      case 'off':
        return 'order stream off';
      case 'streaming':
        return 'order stream live';
      case 'connecting':
        return this.failures === 0 ? 'order stream connecting' : `order stream reconnecting after ${this.failures} failures (${this.lastError})`;
      case 'down':
        return `order stream down after ${this.failures} failures (${this.lastError}); polling meanwhile, reconnecting with backoff`;
    }
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.failures = 0;
    this.lastError = null;
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.client?.close().catch(() => undefined);
    await this.running;
    this.client = null;
  }

  private isOpen(): boolean {
    const clients = (this.client as unknown as { clients?: Record<string, WsClient> } | null)?.clients ?? {};
    return Object.values(clients).some((c) => c.isConnected === true);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.client) {
          const client = await this.open();
          // Stopped while it was being made: nobody else closes it.
          if (this.stopped) return void (await client.close().catch(() => undefined));
          this.client = client;
        }
        void this.whenOpen(this.failures);
        for (;;) {
          const orders = await this.client.watchOrders();
          if (this.stopped) return;
          this.onOrders(orders);
        }
      } catch (error) {
        if (this.stopped) return;
        this.failures += 1;
        this.lastError = describe(error);
        if (this.failures === 1) this.log.warn(`${this.login}: the order stream failed (${this.lastError}); polling meanwhile, reconnecting with backoff`);
        this.onDown();
        const client = this.client;
        this.client = null;
        await client?.close().catch(() => undefined);
        await this.pause(Math.min(this.retryMs * 2 ** (this.failures - 1), MAX_BACKOFF_MS));
      }
    }
  }

  private pause(ms: number): Promise<void> {
    this.waiting = true;
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
      this.timer.unref();
    }).finally(() => {
      this.waiting = false;
      this.wake = null;
    });
  }

  /** Once the client is connected: says so after failures and lets the account be polled at once. */
  private async whenOpen(failures: number): Promise<void> {
    const client = this.client;
    while (!this.stopped && this.client === client && this.failures === failures) {
      if (this.isOpen()) {
        if (failures > 0) this.log.info(`${this.login}: the order stream is open again after ${failures} failures; polling once for what it missed`);
        this.failures = 0;
        this.lastError = null;
        this.onOpen();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
    }
  }
}

/** The ccxt pro client of an exchange, its markets taken from the REST client (nothing asked again). */
/** Options ccxt fills in from the account's own answers (Bybit's isUnifiedEnabled). */
const LEARNED_OPTIONS = ['enableUnifiedMargin', 'enableUnifiedAccount', 'unifiedMarginStatus'] as const;

export const proClientOf = async (exchangeId: string, openExchange: (type: ExchangeClass) => Exchange, rest: Exchange | null): Promise<Exchange> => {
  if (!rest) throw new Error('not connected');
  const ccxt = (await import('ccxt')) as unknown as { pro: Record<string, ExchangeClass | undefined> };
  const type = ccxt.pro[exchangeId];
  if (!type) throw new Error(`ccxt pro has no exchange ${exchangeId}`);
  const client = openExchange(type);
  client.setMarkets(rest.markets);
  // What the REST client already learned of the account (Bybit: unified or not): without it the stream's
  // login would ask the exchange again over REST first.
  for (const key of LEARNED_OPTIONS) if (rest.options[key] !== undefined) client.options[key] = rest.options[key];
  quietFutures(client);
  // ccxt opens a plain ws:// URL (CCXT_BASE_URL http://…: a local fake, a proxy) only through an http agent it loads first.
  await (client as unknown as { loadHttpProxyAgent: () => Promise<unknown> }).loadHttpProxyAgent();
  return client;
};

interface PromiseLike_ {
  catch(onRejected: () => void): unknown;
}
interface WsClientFutures {
  connected?: PromiseLike_;
  future(messageHash: string): PromiseLike_;
  quiet?: true;
}

/**
 * ccxt pro makes futures nobody may await (Binance's "authenticate:signature:spot" flight, a client's
 * `connected`) and rejects them all when a connection fails: each gets a handler here, so a failed
 * stream is the watch loop's error (it backs off) and never an unhandled rejection. Whoever awaits
 * one still gets its error.
 */
const quietFutures = (exchange: Exchange): void => {
  const pro = exchange as unknown as { client: (url: string) => WsClientFutures };
  const made = pro.client.bind(exchange);
  pro.client = (url: string) => {
    const ws = made(url);
    if (ws.quiet) return ws;
    ws.quiet = true;
    ws.connected?.catch(() => undefined);
    const future = ws.future.bind(ws);
    ws.future = (messageHash: string) => {
      const made = future(messageHash);
      made.catch(() => undefined);
      return made;
    };
    return ws;
  };
};
