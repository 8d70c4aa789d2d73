// One exchange account through ccxt, as a venue port connection (README "Real venues: crypto exchanges").
//
// - Login: loginAccountNumber = API key, loginAccountPassword = API secret (OKX: `<secret>:<passphrase>`),
//   loginServer = `live`, `sandbox` (ccxt's setSandboxMode: the exchange's testnet) or `demo` (ccxt's
//   enableDemoTrading: Binance futures, Bybit demo trading). A refused key answers [INVALID_CREDENTIALS].
// - The book: positions, pending limit orders and closed trades are replayed from the account's orders
//   of the symbols it follows (book.ts): those it traded through the service, those of its balances,
//   and those the service's read models know positions in (follow(), at reconciliation).
// - Changes: the followed symbols are polled every CCXT_POLL_MS (default 2 s) and after each request
//   of ours; the difference of the replayed book becomes the port's changes. ccxt pro's watchOrders is
//   not used yet (polling works the same against every exchange and the local fake).
// - Placement: the engine's deterministic id is the client order id (dashes dropped: OKX takes 32
//   letters and digits). Placing first looks the id up at the exchange, so a replayed copy or a retry
//   after a timeout finds the order placed before and places nothing; a network error or timeout after
//   sending looks it up again before answering.
// - Sizing: 1 lot = 1 unit of the market's amount (a coin on spot, a contract on derivatives); the
//   volume step is the exchange's amount precision, the minimum volume the larger of its minimum
//   amount and its minimum notional at the current price, so the copy rules round and skip with
//   their usual reasons. ccxt's rate limiter is on.
import { createHash } from 'node:crypto';
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import type {
  AccountInformation,
  ClosedTrade,
  HistoryEntry,
  OrderRequest,
  PendingOrder,
  PlaceOrderResult,
  PositionChanges,
  Quote,
  Side,
  SymbolInfo,
  VenueChange,
  VenueChangeListener,
  VenueConnection,
  VenuePosition,
} from '../port.js';
import { type CloseReason, isPendingOrderRequest, sideOf, VenueError } from '../port.js';
import { STOP_SUPPORT } from './stops.js';
import { type ExchangeOrder, replayOrders, type ReplayedBook } from './book.js';
import { isTransient, venueErrorOf } from './errors.js';

export type CcxtMode = 'live' | 'sandbox' | 'demo';

export interface CcxtSettings {
  /** Every REST and WebSocket URL of the exchange is moved to this origin (a local fake, a proxy); null: the exchange's own. */
  readonly baseUrl: string | null;
  readonly pollMs: number;
  readonly timeoutMs: number;
}

export interface CcxtLog {
  info(message: string): void;
  warn(message: string): void;
}

/** What a ccxt venue tells its connections. */
export interface CcxtMarketSetup {
  readonly exchangeId: string;
  /** ccxt `options.fetchMarkets.types` (binance: spot; binanceusdm: linear...). */
  readonly marketTypes: readonly string[];
  /** The account currency: the quote currency whose balance is the account's balance. */
  readonly currency: string;
  /** Orders are looked up by client id through the order lists (Bybit: orderLinkId), not fetchOrder. */
  readonly lookUpByList?: boolean;
}

type ExchangeClass = new (config: Record<string, unknown>) => Exchange;

const EMPTY_BOOK: ReplayedBook = { positions: [], pending: [], trades: [] };
const LOOKUP_ATTEMPTS = 3;
/** Failed polls in a row after which the connection says it is disconnected. */
const DISCONNECTED_AFTER = 3;
const MAX_BACKOFF_MS = 60_000;

/** The exchange client order id of an engine id: its 32 hex digits for a uuid, else a digest of it. */
export const exchangeClientOrderId = (id: string): string =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
    ? id.replace(/-/g, '').toLowerCase()
    : createHash('sha256').update(id).digest('hex').slice(0, 32);

/** Moves every URL of a ccxt `urls` tree to `base` (keeps the paths). */
export const rebase = (tree: unknown, base: string): unknown => {
  if (typeof tree === 'string') {
    const ws = base.replace(/^http/, 'ws');
    return tree.replace(/^https?:\/\/[^/]+/, base).replace(/^wss?:\/\/[^/]+/, ws);
  }
  if (Array.isArray(tree)) return tree.map((t) => rebase(t, base));
  if (tree && typeof tree === 'object') return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, rebase(v, base)]));
  return tree;
};

/** A change as the connection tells it, before it gets its login, sequence and time. */
type ChangeBody = VenueChange extends infer C ? (C extends VenueChange ? Omit<C, 'login' | 'sequence' | 'at'> : never) : never;

const idOf = (market: Market): string => market.id ?? market.symbol;

const positive = (value: number | undefined | null): number | null => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null);
const decimalsOf = (step: number): number => Math.max(0, Math.round(-Math.log10(step)));

export class CcxtConnection implements VenueConnection {
  readonly login: string;
  private exchange: Exchange | null = null;
  private connected = false;
  private book: ReplayedBook = EMPTY_BOOK;
  private readonly followed = new Set<string>();
  private readonly listeners = new Set<VenueChangeListener>();
  private sequence = 0;
  private timer: NodeJS.Timeout | null = null;
  /** disconnect() was called: no more polls. */
  private closed = true;
  /** Polls failed in a row (0: the exchange answers). */
  private failures = 0;
  /** Refreshes run one at a time. */
  private refreshing: Promise<void> = Promise.resolve();
  private readonly placed = new Map<string, PlaceOrderResult>();
  private tickers: { at: number; quotes: Map<string, { bid: number; ask: number }> } = { at: 0, quotes: new Map() };

  constructor(
    private readonly load: () => Promise<ExchangeClass>,
    private readonly setup: CcxtMarketSetup,
    private readonly credentials: { apiKey: string; secret: string; mode: CcxtMode },
    private readonly settings: CcxtSettings,
    private readonly log: CcxtLog,
    private readonly clock: () => Date,
  ) {
    const key = credentials.apiKey;
    this.login = `${setup.exchangeId}/${key.length > 8 ? `${key.slice(0, 4)}…${key.slice(-4)}` : key}`;
  }

  get mode(): CcxtMode {
    return this.credentials.mode;
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    const ExchangeType = await this.load();
    const [secret, passphrase] = this.setup.exchangeId === 'okx' ? splitOnce(this.credentials.secret, ':') : [this.credentials.secret, undefined];
    const exchange = new ExchangeType({
      apiKey: this.credentials.apiKey,
      secret,
      ...(passphrase !== undefined ? { password: passphrase } : {}),
      enableRateLimit: true,
      timeout: this.settings.timeoutMs,
      options: { fetchMarkets: { types: [...this.setup.marketTypes] }, fetchMargins: false, fetchCurrencies: false, adjustForTimeDifference: false },
    });
    exchange.has.fetchCurrencies = false;
    if (this.credentials.mode === 'sandbox') exchange.setSandboxMode(true);
    // Demo trading where ccxt has demo URLs (Binance futures, Bybit); OKX's demo trading is what ccxt
    // calls its sandbox (the x-simulated-trading header).
    const urls = exchange.urls as unknown as Record<string, unknown>;
    if (this.credentials.mode === 'demo') {
      if (urls.demo !== undefined) exchange.enableDemoTrading(true);
      else exchange.setSandboxMode(true);
    }
    if (this.settings.baseUrl) {
      for (const key of ['api', 'test', 'demo'] as const) {
        if (urls[key] !== undefined) urls[key] = rebase(urls[key], this.settings.baseUrl);
      }
    }
    try {
      await exchange.loadMarkets();
      const balance = await exchange.fetchBalance();
      this.exchange = exchange;
      for (const [asset, total] of Object.entries(balance.total ?? {})) {
        if (!positive(total as number) || asset === this.setup.currency) continue;
        const market = this.marketOf(`${asset}/${this.setup.currency}`, false);
        if (market) this.followed.add(idOf(market));
      }
      this.book = await this.replay();
    } catch (error) {
      this.exchange = null;
      throw venueErrorOf(error);
    }
    this.connected = true;
    this.closed = false;
    this.failures = 0;
    this.schedulePoll(this.settings.pollMs);
  }

  async disconnect(): Promise<void> {
    this.connected = false;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.refreshing.catch(() => undefined);
    await this.exchange?.close().catch(() => undefined);
    this.exchange = null;
  }

  isConnected(): boolean {
    return this.connected;
  }

  /** The symbols the service knows positions or orders in: their orders are followed from now on. */
  follow(symbols: readonly string[]): void {
    for (const symbol of symbols) if (this.marketOf(symbol, false)) this.followed.add(symbol);
  }

  async accountInformation(): Promise<AccountInformation> {
    const exchange = this.ready();
    const balance = await this.call(() => exchange.fetchBalance());
    const quote = (balance as unknown as Record<string, { free?: number; used?: number; total?: number }>)[this.setup.currency] ?? {};
    const cash = quote.total ?? 0;
    const spot = this.setup.marketTypes.includes('spot');
    // Spot: the coins bought are worth their bid; derivatives: the margin wallet plus the floating profit.
    const open = this.book.positions;
    const unrealized = open.reduce((sum, p) => sum + p.profit, 0);
    const cost = open.reduce((sum, p) => sum + p.volume * p.openPrice * this.contractSize(p.symbol), 0);
    const balanceFigure = spot ? cash + cost : cash;
    const equity = balanceFigure + unrealized;
    const margin = spot ? 0 : (quote.used ?? 0);
    return {
      login: this.login,
      currency: this.setup.currency,
      leverage: 1,
      marginMode: 'netting',
      balance: round2(balanceFigure),
      credit: 0,
      equity: round2(equity),
      margin: round2(margin),
      freeMargin: round2(quote.free ?? 0),
      marginLevel: margin > 0 ? round2((equity / margin) * 100) : null,
      stopOutLevel: 0,
      unrealizedProfit: round2(unrealized),
      openPositionsCount: open.length,
      pendingOrdersCount: this.book.pending.length,
      connected: this.connected,
      environment: this.credentials.mode === 'live' ? 'LIVE' : 'DEMO',
    };
  }

  async positions(): Promise<readonly VenuePosition[]> {
    this.ready();
    await this.refresh();
    return [...this.book.positions, ...this.book.pending];
  }

  async history(from: string, to: string): Promise<readonly HistoryEntry[]> {
    this.ready();
    await this.refresh();
    // Deposits and withdrawals are not read yet: only closed trades.
    return this.book.trades.filter((t) => t.closeTime >= from && t.closeTime <= to);
  }

  async placeOrder(request: OrderRequest, clientOrderId: string): Promise<PlaceOrderResult> {
    const exchange = this.ready();
    const known = this.placed.get(clientOrderId);
    if (known) return known;
    const market = this.marketOf(request.symbol, true)!;
    const clientId = exchangeClientOrderId(clientOrderId);
    this.followed.add(idOf(market));
    const earlier = await this.lookUp(market, clientId);
    if (earlier) return this.remember(clientOrderId, await this.resultOf(earlier, clientOrderId));
    const stops = STOP_SUPPORT[this.setup.exchangeId];
    const attached = { stopLoss: request.stopLoss || null, takeProfit: request.takeProfit || null };
    if ((attached.stopLoss !== null || attached.takeProfit !== null) && !stops) {
      throw new VenueError(
        '[INVALID_STOPS]',
        `stop loss and take profit are not placed on ${this.setup.exchangeId} by this adapter (Bybit only): copy without them`,
      );
    }
    const stopOrder = request.orderType === 'buyStop' || request.orderType === 'sellStop';
    if (stopOrder && !stops) {
      throw new VenueError(
        '[INVALID_REQUEST]',
        `${request.orderType} orders are not placed on ${this.setup.exchangeId} by this adapter (Bybit only): market and limit orders only`,
      );
    }
    const side: Side = sideOf(request.orderType);
    const amount = amountAt(exchange, market, request.volume);
    if (!(amount > 0) || Math.abs(amount - request.volume) > 1e-12) {
      throw new VenueError(
        '[INVALID_VOLUME]',
        `${request.volume} is not a multiple of ${request.symbol}'s step ${market.precision.amount} at ${this.setup.exchangeId}`,
      );
    }
    const minAmount = positive(market.limits.amount?.min);
    if (minAmount && amount < minAmount - 1e-12) {
      throw new VenueError('[INVALID_VOLUME]', `${amount} ${request.symbol} is below the exchange's minimum amount ${minAmount} at ${this.setup.exchangeId}`);
    }
    const pendingPrice = isPendingOrderRequest(request) ? Number(exchange.priceToPrecision(market.symbol, request.openPrice)) : undefined;
    const limitPrice = stopOrder ? undefined : pendingPrice;
    const quote = await this.quote(request.symbol);
    const price = pendingPrice ?? (side === 'buy' ? quote.ask : quote.bid);
    const params: Record<string, unknown> = {
      clientOrderId: clientId,
      ...(stops && (attached.stopLoss !== null || attached.takeProfit !== null) ? stops.attach(attached) : {}),
      ...(stops && stopOrder ? stops.stopOrder(side, pendingPrice!) : {}),
    };
    const minCost = positive(market.limits.cost?.min);
    if (minCost && amount * price * (market.contractSize ?? 1) < minCost) {
      throw new VenueError('[INVALID_VOLUME]', `${amount} ${request.symbol} is worth less than the exchange's minimum notional ${minCost} ${market.quote}`);
    }
    let order: Order | null = null;
    try {
      order = await exchange.createOrder(market.symbol, limitPrice === undefined ? 'market' : 'limit', side, amount, limitPrice, params);
    } catch (error) {
      if (!isTransient(error)) throw venueErrorOf(error);
      // It may have reached the exchange: look before anyone tries again.
      this.log.warn(`${this.login}: placing ${clientId} failed (${describe(error)}); looking the order up by its client id`);
      for (let attempt = 0; attempt < LOOKUP_ATTEMPTS && !order; attempt++) order = await this.lookUp(market, clientId).catch(() => null);
      if (!order) throw error;
      this.log.info(`${this.login}: order ${clientId} had reached the exchange (order ${order.id}); not placed again`);
    }
    // Bybit and OKX answer a placement with the ids only, Binance futures with a market order not yet
    // filled: read it back until it says what became of it.
    for (let attempt = 0; attempt < LOOKUP_ATTEMPTS && !settled(order); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      order = (await this.lookUp(market, clientId)) ?? order;
    }
    return this.remember(clientOrderId, await this.resultOf(order, clientOrderId));
  }

  async modifyPosition(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> {
    const exchange = this.ready();
    await this.refresh();
    const stops = STOP_SUPPORT[this.setup.exchangeId];
    const stopsChanged = changes.stopLoss !== undefined || changes.takeProfit !== undefined;
    const pending = this.book.pending.find((o) => o.id === id);
    if (pending) {
      if (!stops) {
        throw new VenueError(
          '[INVALID_REQUEST]',
          `pending orders cannot be modified on ${this.setup.exchangeId} by this adapter (Bybit only): cancel and place again`,
        );
      }
      if (stopsChanged)
        throw new VenueError('[INVALID_STOPS]', `a pending order's stop loss and take profit are not changed on ${this.setup.exchangeId} by this adapter`);
      const market = this.marketOf(pending.symbol, true)!;
      const stopOrder = pending.orderType === 'buyStop' || pending.orderType === 'sellStop';
      const amount = changes.volume !== undefined ? amountAt(exchange, market, changes.volume) : undefined;
      if (amount !== undefined && !(amount > 0))
        throw new VenueError('[INVALID_VOLUME]', `${changes.volume} is below ${pending.symbol}'s step at ${this.setup.exchangeId}`);
      const price = changes.openPrice !== undefined ? Number(exchange.priceToPrecision(market.symbol, changes.openPrice)) : undefined;
      await this.call(() =>
        exchange.editOrder(
          id,
          market.symbol,
          stopOrder ? 'market' : 'limit',
          sideOf(pending.orderType),
          amount,
          stopOrder ? undefined : price,
          stopOrder && price !== undefined ? stops.retrigger(price) : {},
        ),
      );
      await this.refresh();
      return this.book.pending.find((o) => o.id === id) ?? pending;
    }
    const position = this.book.positions.find((p) => p.id === id);
    if (!position) throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    if (changes.openPrice !== undefined) throw new VenueError('[INVALID_REQUEST]', `an open position's price cannot be changed`);
    if (stopsChanged) {
      if (!stops) throw new VenueError('[INVALID_STOPS]', `stop loss and take profit are not placed on ${this.setup.exchangeId} by this adapter (Bybit only)`);
      const market = this.marketOf(position.symbol, true)!;
      const next = {
        stopLoss: changes.stopLoss === undefined ? position.stopLoss : changes.stopLoss || null,
        takeProfit: changes.takeProfit === undefined ? position.takeProfit : changes.takeProfit || null,
      };
      await this.call(() => stops.setPositionStops(exchange, market, next));
      await this.refresh();
    }
    if (changes.volume !== undefined && changes.volume < position.volume) await this.closePosition(id, position.volume - changes.volume, clientRequestId);
    return this.book.positions.find((p) => p.id === id) ?? position;
  }

  async closePosition(id: string, volume?: number, clientRequestId?: string): Promise<ClosedTrade> {
    const exchange = this.ready();
    await this.refresh();
    const position = this.book.positions.find((p) => p.id === id);
    if (!position) throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    const amount = Number(exchange.amountToPrecision(this.marketOf(position.symbol, true)!.symbol, Math.min(volume ?? position.volume, position.volume)));
    const requestId = clientRequestId ?? `close/${id}/${amount}/${this.clock().toISOString()}`;
    const placed = await this.placeOrder({ symbol: position.symbol, orderType: position.orderType === 'buy' ? 'sell' : 'buy', volume: amount }, requestId);
    const trade = this.book.trades.find((t) => t.id === placed.orderId);
    if (!trade) throw new Error(`closing order ${placed.orderId} of position ${id} left no trade in the book`);
    return trade;
  }

  async cancelOrder(id: string): Promise<PendingOrder> {
    const exchange = this.ready();
    await this.refresh();
    const order = this.book.pending.find((o) => o.id === id);
    if (!order) throw new VenueError('[ORDER_NOT_FOUND]', `order ${id} is not pending`);
    await this.call(() => exchange.cancelOrder(id, this.marketOf(order.symbol, true)!.symbol));
    await this.refresh();
    return order;
  }

  async quote(symbol: string): Promise<Quote> {
    const exchange = this.ready();
    const market = this.marketOf(symbol, true)!;
    const ticker = await this.call(() => exchange.fetchTicker(market.symbol));
    const bid = ticker.bid ?? ticker.last ?? 0;
    const ask = ticker.ask ?? ticker.last ?? bid;
    this.tickers.quotes.set(idOf(market), { bid, ask });
    return { symbol: idOf(market), bid, ask, time: new Date(ticker.timestamp ?? this.clock().getTime()).toISOString() };
  }

  async symbolInfo(symbol: string): Promise<SymbolInfo> {
    this.ready();
    const market = this.marketOf(symbol, true)!;
    await this.quote(symbol);
    return this.infoOf(market);
  }

  async symbols(): Promise<readonly SymbolInfo[]> {
    const exchange = this.ready();
    const markets = Object.values(exchange.markets ?? {}).filter((m): m is Market => m !== undefined && m.active !== false);
    if (this.clock().getTime() - this.tickers.at > 1000) {
      const tickers = await this.call(() => exchange.fetchTickers(markets.map((m) => m.symbol))).catch(() => ({}));
      for (const t of Object.values(tickers)) {
        const market = t.symbol ? exchange.markets?.[t.symbol] : undefined;
        if (market) this.tickers.quotes.set(idOf(market), { bid: t.bid ?? t.last ?? 0, ask: t.ask ?? t.last ?? 0 });
      }
      this.tickers.at = this.clock().getTime();
    }
    return markets.map((m) => this.infoOf(m));
  }

  async marginRequired(symbol: string, side: Side, volume: number): Promise<number> {
    const quote = await this.quote(symbol);
    return round2(volume * (side === 'buy' ? quote.ask : quote.bid) * this.contractSize(symbol));
  }

  subscribe(listener: VenueChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The poll: every pollMs while the exchange answers. When it does not (network, outage, a key
   * revoked), the next polls back off (pollMs doubled per failure, at most a minute); after
   * DISCONNECTED_AFTER failures in a row the connection says it is disconnected (account information's
   * `connected`, the copy engine's SLAVE_NOT_CONNECTED) until a poll succeeds again. The book is replayed
   * from the exchange's orders each time, so the first poll that succeeds tells every change missed
   * meanwhile, once (the recorder's ids are deterministic).
   */
  private schedulePoll(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.refresh().then(
        () => {
          if (this.failures > 0) this.log.info(`${this.login}: the exchange answers again after ${this.failures} failed polls; connected`);
          this.failures = 0;
          if (!this.closed) this.connected = true;
          this.schedulePoll(this.settings.pollMs);
        },
        (error: unknown) => {
          this.failures += 1;
          if (this.failures === 1) this.log.warn(`${this.login}: polling the exchange failed (${describe(error)}); trying again with backoff`);
          if (this.failures === DISCONNECTED_AFTER && this.connected) {
            this.connected = false;
            this.log.warn(`${this.login}: ${DISCONNECTED_AFTER} polls failed in a row (${describe(error)}); disconnected until the exchange answers again`);
          }
          this.schedulePoll(Math.min(this.settings.pollMs * 2 ** this.failures, MAX_BACKOFF_MS));
        },
      );
    }, delayMs);
    this.timer.unref();
  }

  /** Reads the followed symbols' orders again and tells the listeners what changed. */
  refresh(): Promise<void> {
    const run = this.refreshing.then(async () => {
      if (!this.exchange) return;
      const next = await this.replay();
      const previous = this.book;
      this.book = next;
      this.emitDifference(previous, next);
    });
    this.refreshing = run.catch(() => undefined);
    return run;
  }

  private async replay(): Promise<ReplayedBook> {
    const exchange = this.exchange!;
    const orders: ExchangeOrder[] = [];
    for (const id of this.followed) {
      const market = this.marketOf(id, false);
      if (!market) continue;
      for (const o of await this.ordersOf(exchange, market)) orders.push(exchangeOrderOf(o, idOf(market)));
    }
    const book = replayOrders(orders, {
      quote: (symbol) => this.tickers.quotes.get(symbol),
      contractSize: (symbol) => this.contractSize(symbol),
      spot: (symbol) => this.marketOf(symbol, false)?.spot === true,
    });
    // Where stops belong to the position (Bybit), the position's own are the truth, not the opening order's.
    const stops = STOP_SUPPORT[this.setup.exchangeId];
    if (!stops || book.positions.length === 0) return book;
    const markets = book.positions.map((p) => this.marketOf(p.symbol, false)).filter((m): m is Market => m !== null);
    const current = await this.call(() => stops.positionStops(exchange, markets));
    const positions = book.positions.map((p) => ({ ...p, ...(current.get(p.symbol) ?? { stopLoss: null, takeProfit: null }) }));
    return { ...book, positions };
  }

  private emitDifference(previous: ReplayedBook, next: ReplayedBook): void {
    const at = this.clock().toISOString();
    const emit = (change: ChangeBody) => {
      const full = { ...change, login: this.login, sequence: ++this.sequence, at } as VenueChange;
      for (const listener of this.listeners) listener(full);
    };
    const before = new Map(previous.positions.map((p) => [p.id, p]));
    const pendingBefore = new Map(previous.pending.map((o) => [o.id, o]));
    const tradesBefore = new Set(previous.trades.map((t) => t.id));
    const pendingNow = new Set(next.pending.map((o) => o.id));
    for (const order of next.pending) {
      const old = pendingBefore.get(order.id);
      if (!old) emit({ type: 'orderPlaced', order });
      else if (old.openPrice !== order.openPrice || old.volume !== order.volume) emit({ type: 'orderModified', order });
    }
    for (const position of next.positions) {
      const old = before.get(position.id);
      if (!old) {
        const filled = pendingBefore.get(position.id);
        if (filled) emit({ type: 'orderFilled', order: filled, price: position.openPrice });
        emit({ type: 'positionOpened', position });
      } else if (position.volume > old.volume) emit({ type: 'positionIncreased', position, volume: position.volume - old.volume, price: position.openPrice });
      else if (position.volume === old.volume && (position.stopLoss !== old.stopLoss || position.takeProfit !== old.takeProfit)) {
        emit({ type: 'positionModified', position });
      }
    }
    const openNow = new Map(next.positions.map((p) => [p.id, p]));
    for (const trade of next.trades) {
      if (tradesBefore.has(trade.id)) continue;
      const remaining = openNow.get(trade.positionId);
      if (remaining) emit({ type: 'positionPartiallyClosed', position: remaining, trade });
      else emit({ type: 'positionClosed', trade });
    }
    for (const [id, order] of pendingBefore) {
      if (pendingNow.has(id) || openNow.has(id) || next.trades.some((t) => t.positionId === id)) continue;
      emit({ type: 'orderCancelled', order, reason: 'manual' });
    }
  }

  /**
   * Every order of a market: one call where the exchange lists all of them (Binance's allOrders), else
   * the open ones and the closed and cancelled ones (Bybit's realtime and history, OKX's orders-pending
   * and orders-history: those keep 7 days, so an order older than that leaves the book).
   */
  private async ordersOf(exchange: Exchange, market: Market, params: Record<string, string> = {}): Promise<Order[]> {
    if (exchange.has.fetchOrders === true) return this.call(() => exchange.fetchOrders(market.symbol, undefined, undefined, params));
    const open = await this.call(() => exchange.fetchOpenOrders(market.symbol, undefined, undefined, params));
    const done =
      exchange.has.fetchCanceledAndClosedOrders === true
        ? await this.call(() => exchange.fetchCanceledAndClosedOrders(market.symbol, undefined, undefined, params))
        : await this.call(() => exchange.fetchClosedOrders(market.symbol, undefined, undefined, params));
    return [...open, ...done];
  }

  /** The order placed under a client id, or null. Bybit is asked through its lists filtered by orderLinkId. */
  private async lookUp(market: Market, clientId: string): Promise<Order | null> {
    const exchange = this.ready();
    if (this.setup.lookUpByList) {
      const found = await this.ordersOf(exchange, market, { orderLinkId: clientId });
      return found.find((o) => o.clientOrderId === clientId) ?? null;
    }
    try {
      return await exchange.fetchOrder('', market.symbol, { clientOrderId: clientId });
    } catch (error) {
      if (classOf(error, 'OrderNotFound')) return null;
      throw venueErrorOf(error);
    }
  }

  private async resultOf(order: Order, clientOrderId: string): Promise<PlaceOrderResult> {
    await this.refresh();
    const market = order.symbol ? this.exchange!.markets?.[order.symbol] : undefined;
    const symbol = market ? idOf(market) : (order.symbol ?? '');
    const time = new Date(order.timestamp ?? this.clock().getTime()).toISOString();
    const filled = order.filled ?? 0;
    if ((order.type === 'limit' || positive(order.triggerPrice)) && order.status === 'open' && filled === 0) {
      const openPrice = positive(order.triggerPrice) ?? order.price ?? 0;
      return { status: 'placed', orderId: String(order.id), clientOrderId, openPrice, volume: order.amount ?? 0, time };
    }
    const position = this.book.positions.find((p) => p.symbol === symbol) ?? null;
    return {
      status: 'filled',
      orderId: String(order.id),
      clientOrderId,
      positionId: position?.id ?? null,
      price: order.average ?? order.price ?? 0,
      volume: filled,
      time,
    };
  }

  private remember(clientOrderId: string, result: PlaceOrderResult): PlaceOrderResult {
    this.placed.set(clientOrderId, result);
    return result;
  }

  private infoOf(market: Market): SymbolInfo {
    const step = positive(market.precision.amount) ?? 1e-8;
    const tick = positive(market.precision.price) ?? 1e-8;
    const minAmount = positive(market.limits.amount?.min) ?? step;
    const minCost = positive(market.limits.cost?.min);
    const quote = this.tickers.quotes.get(idOf(market));
    const size = market.contractSize ?? 1;
    // The minimum notional at the current price, rounded up to the step: below it the exchange refuses.
    const byCost = minCost && quote && quote.ask > 0 ? Math.ceil(minCost / (quote.ask * size) / step - 1e-9) * step : 0;
    const digits = decimalsOf(step);
    return {
      symbol: idOf(market),
      description: `${market.base}/${market.quote}${market.spot ? '' : ` ${market.type}`} at ${this.setup.exchangeId}`,
      digits: decimalsOf(tick),
      point: tick,
      contractSize: size,
      minVolume: Number(Math.max(minAmount, byCost).toFixed(digits)),
      maxVolume: positive(market.limits.amount?.max) ?? 1e9,
      volumeStep: step,
      stopsLevel: 0,
      marginCalcMode: market.spot ? 'forexNoLeverage' : 'cfdLeverage',
      marginRate: 1,
      baseCurrency: market.base,
      marginCurrency: market.quote,
      profitCurrency: market.quote,
      commissionPerLot: 0,
      swapLong: 0,
      swapShort: 0,
      swapRollover3Days: null,
    };
  }

  private contractSize(symbol: string): number {
    return this.marketOf(symbol, false)?.contractSize ?? 1;
  }

  /** The market of a venue symbol (the exchange's id, BTCUSDT) or a ccxt symbol (BTC/USDT). */
  private marketOf(symbol: string, required: boolean): Market | null {
    const exchange = this.exchange;
    if (!exchange) return null;
    const markets = exchange.markets ?? {};
    const market = markets[symbol] ?? Object.values(markets).find((m) => m?.id === symbol) ?? null;
    if (!market && required) throw new VenueError('[SYMBOL_NOT_FOUND]', `${symbol} is not traded at ${this.setup.exchangeId}`);
    return market ?? null;
  }

  private ready(): Exchange {
    if (!this.connected || !this.exchange) throw new VenueError('[NOT_CONNECTED]', `${this.login} is not connected`);
    return this.exchange;
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw venueErrorOf(error);
    }
  }
}

const exchangeOrderOf = (o: Order, symbol: string): ExchangeOrder => ({
  id: String(o.id),
  clientOrderId: o.clientOrderId ?? null,
  symbol,
  side: o.side === 'sell' ? 'sell' : 'buy',
  type: o.type ?? 'market',
  status: o.status ?? 'closed',
  amount: o.amount ?? 0,
  filled: o.filled ?? 0,
  average: o.average ?? (o.filled && o.cost ? o.cost / o.filled : (o.price ?? null)),
  price: o.type === 'limit' ? (o.price ?? null) : null,
  timestamp: o.timestamp ?? 0,
  lastTradeTimestamp: o.lastTradeTimestamp ?? o.lastUpdateTimestamp ?? o.timestamp ?? 0,
  stopLoss: positive(o.stopLossPrice),
  takeProfit: positive(o.takeProfitPrice),
  triggerPrice: positive(o.triggerPrice),
  closeReason: closeReasonOf(o),
});

/** What closed a position when its closing order says so (Bybit's createType); else manual. */
const closeReasonOf = (o: Order): CloseReason => {
  const createType = (o.info as Record<string, unknown> | undefined)?.createType;
  return createType === 'CreateByStopLoss' ? 'stopLoss' : createType === 'CreateByTakeProfit' ? 'takeProfit' : 'manual';
};

/** `volume` cut to the market's amount precision; 0 when nothing is left (ccxt throws below one step). */
const amountAt = (exchange: Exchange, market: Market, volume: number): number => {
  try {
    return Number(exchange.amountToPrecision(market.symbol, volume));
  } catch {
    return 0;
  }
};

/** True: the order says whether and how it filled (a market order is not left open unless it waits for its trigger). */
const settled = (order: Order): boolean =>
  order.status !== undefined &&
  order.filled !== undefined &&
  order.type !== undefined &&
  !(order.type === 'market' && order.status === 'open' && !positive(order.triggerPrice));

const classOf = (error: unknown, name: string): boolean => {
  for (let proto: unknown = error === null || typeof error !== 'object' ? null : Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === name) return true;
  }
  return false;
};

const splitOnce = (value: string, separator: string): [string, string | undefined] => {
  const at = value.indexOf(separator);
  return at < 0 ? [value, undefined] : [value.slice(0, at), value.slice(at + separator.length)];
};

const round2 = (value: number): number => Math.round(value * 100) / 100;
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
