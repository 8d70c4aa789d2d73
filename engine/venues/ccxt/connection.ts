// One exchange account through ccxt, as a venue port connection (README "Real venues: crypto exchanges").
// Its seams: link.ts (the ccxt client, the poll and its backoff), book.ts and changes.ts (the book
// replayed from orders and its difference), orders.ts (client ids, look-ups, history), markets.ts (sizes),
// account.ts (account information), stops.ts (stop loss, take profit, stop orders per exchange).
//
// - Login: loginAccountNumber = API key, loginAccountPassword = API secret (OKX: `<secret>:<passphrase>`),
//   loginServer = `live`, `sandbox` (ccxt's setSandboxMode: the exchange's testnet) or `demo` (ccxt's
//   enableDemoTrading: Binance futures, Bybit demo trading). A refused key answers [INVALID_CREDENTIALS].
// - The book: positions, pending limit orders and closed trades are replayed from the account's orders
//   of the symbols it follows (book.ts): those it traded through the service, those of its balances,
//   and those the service's read models know positions in (follow(), at reconciliation); every page
//   of them, checked against what the account holds (history.ts: a position older than the orders
//   the exchange still lists stays open under its known id).
// - Changes: the followed symbols are polled every CCXT_POLL_MS (default 2 s) and after each request
//   of ours; the difference of the replayed book becomes the port's changes. On Binance (spot and
//   USDⓈ-M), Bybit and OKX the private order stream (ccxt pro's watchOrders, stream.ts) tells fills first,
//   into the same book, and the poll slows to CCXT_STREAM_POLL_MS while it is live.
// - Placement: the engine's deterministic id is the client order id (dashes dropped: OKX takes 32
//   letters and digits). Placing first looks the id up at the exchange, so a replayed copy or a retry
//   after a timeout finds the order placed before and places nothing; a network error or timeout after
//   sending looks it up again before answering.
// - Sizing: 1 lot = 1 unit of the market's amount (a coin on spot, a contract on derivatives); the
//   volume step is the exchange's amount precision, the minimum volume the larger of its minimum
//   amount and its minimum notional at the current price, so the copy rules round and skip with
//   their usual reasons. ccxt's rate limiter is on.
import type { Exchange, MarketInterface as Market, Order } from 'ccxt';
import type {
  AccountInformation,
  ClosedTrade,
  HistoryEntry,
  OpenPosition,
  OrderRequest,
  PendingOrder,
  PlaceOrderResult,
  PositionChanges,
  Quote,
  Side,
  SymbolInfo,
  VenueChange,
  VenueChangeListener,
  KnownOrder,
  KnownPosition,
  VenueConnection,
  VenuePosition,
} from '../port.js';
import { isPendingOrderRequest, sideOf, VenueError } from '../port.js';
import { editPending, fromTrigger, type PositionStops, refusal, STOP_SUPPORT } from './stops.js';
import type { ExchangeOrder, ReplayedBook } from './book.js';
import { isTransient, venueErrorOf } from './errors.js';
import { differenceOf } from './changes.js';
import { accountInformationOf, cashOf, round2 } from './account.js';
import { ccxtIdOf, describe, type ExchangeClass, openExchange, PollSchedule } from './link.js';
import { checkedAmount, checkNotional, idOf, symbolInfoOf } from './markets.js';
import { call, exchangeClientOrderId, lookUpOrder, positive, settled } from './orders.js';
import { AccountHistory } from './history.js';
import { bookOf, type Listing, mergeStreamed, OrderStream, proClientOf, STREAMED, withPositionStops } from './stream.js';

export { exchangeClientOrderId } from './orders.js';
export { rebase } from './link.js';

export type CcxtMode = 'live' | 'sandbox' | 'demo';

export interface CcxtSettings {
  /** Every REST and WebSocket URL of the exchange is moved to this origin (a local fake, a proxy); null: the exchange's own. */
  readonly baseUrl: string | null;
  readonly pollMs: number;
  readonly timeoutMs: number;
  /** Read the private order stream where the adapter does (stream.ts); false: poll only. */
  readonly stream: boolean;
  /** The poll's pace while the order stream is live. */
  readonly streamPollMs: number;
}

export interface CcxtLog {
  info(message: string): void;
  warn(message: string): void;
}

/** What a ccxt venue tells its connections. */
export interface CcxtMarketSetup {
  /** The target's name (adapter.ts CCXT_TARGETS): the ccxt exchange id, or ours for one market type of it (okxswap). */
  readonly exchangeId: string;
  /** The ccxt exchange class and REST dialect when it is not `exchangeId` (okxswap: okx); adapter.ts ccxtIdOf. */
  readonly ccxtId?: string;
  /** ccxt `options.fetchMarkets.types` (binance: spot; binanceusdm: linear...). */
  readonly marketTypes: readonly string[];
  /** The account currency: the quote currency whose balance is the account's balance. */
  readonly currency: string;
  /** Orders are looked up by client id through the order lists (Bybit: orderLinkId), not fetchOrder. */
  readonly lookUpByList?: boolean;
  /** Its orders, listed or streamed, carry the fees they paid so far (the commission, book.ts). */
  readonly feesOnOrders?: boolean;
  /** The balance the exchange gives in the account currency is its equity, floating profit included (OKX's eq): the cash balance is read instead (account.ts cashOf). */
  readonly balanceIsEquity?: boolean;
}

const EMPTY_BOOK: ReplayedBook = { positions: [], pending: [], trades: [] };
const LOOKUP_ATTEMPTS = 3;

export class CcxtConnection implements VenueConnection {
  readonly login: string;
  private exchange: Exchange | null = null;
  private connected = false;
  private book: ReplayedBook = EMPTY_BOOK;
  private readonly followed = new Set<string>();
  /** Open positions the service told (follow), by `<market id>/<side>`. */
  private readonly known = new Map<string, KnownPosition>();
  /** Those positions and the pending orders the service told (by `<market id>/order/<id>`): sought in the exchange's history. */
  private readonly sought = new Map<string, KnownOrder>();
  private readonly listeners = new Set<VenueChangeListener>();
  private sequence = 0;
  private readonly polls: PollSchedule;
  /** The private order stream (null: this exchange is polled only). */
  private readonly stream: OrderStream | null;
  /** What the last replay read (the streamed orders are put into it). */
  private listing: Listing | null = null;
  /** disconnect() was called: no more polls. */
  private closed = true;
  /** Refreshes run one at a time. */
  private refreshing: Promise<void> = Promise.resolve();
  private readonly placed = new Map<string, PlaceOrderResult>();
  /** The account's orders and holdings as each replay reads them (history.ts). */
  private readonly orderHistory: AccountHistory;
  /** Markets whose position stops may have outlived their position (stops.ts clearLeftovers). */
  private readonly tidy = new Set<string>();
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
    this.orderHistory = new AccountHistory(ccxtIdOf(setup), setup.feesOnOrders, (message) => log.warn(`${this.login}: ${message}`));
    this.login = `${setup.exchangeId}/${key.length > 8 ? `${key.slice(0, 4)}…${key.slice(-4)}` : key}`;
    this.polls = new PollSchedule(
      this.login,
      settings.pollMs,
      log,
      () => this.refresh(),
      (connected) => {
        if (!this.closed) this.connected = connected;
      },
      () => this.connected,
      () => (this.stream?.state === 'streaming' ? settings.streamPollMs : settings.pollMs),
    );
    this.stream =
      settings.stream && STREAMED.has(ccxtIdOf(setup))
        ? new OrderStream(
            this.login,
            () => proClientOf(ccxtIdOf(setup), (type) => openExchange(type, setup, credentials, settings), this.exchange),
            settings.pollMs,
            log,
            (orders) => this.streamed(orders),
            () => void this.refresh().catch(() => undefined),
            () => this.polls.reschedule(),
          )
        : null;
  }

  get mode(): CcxtMode {
    return this.credentials.mode;
  }

  async connect(): Promise<void> {
    if (this.connected) return;
    const exchange = openExchange(await this.load(), this.setup, this.credentials, this.settings);
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
    this.polls.start();
    this.stream?.start();
  }

  async disconnect(): Promise<void> {
    this.connected = false;
    this.closed = true;
    this.polls.stop();
    await this.stream?.stop();
    await this.refreshing.catch(() => undefined);
    await this.exchange?.close().catch(() => undefined);
    this.exchange = null;
  }

  isConnected(): boolean {
    return this.connected;
  }

  /** What the link is doing, with its last error: AccountDTO.statusMessage. */
  get statusMessage(): string {
    if (this.closed) return 'not connected';
    const { failures, lastError } = this.polls;
    const stream = this.stream
      ? this.stream.describe()
      : `${STREAMED.has(ccxtIdOf(this.setup)) ? 'order stream off' : `no order stream for ${this.setup.exchangeId}`}, polled every ${this.settings.pollMs} ms`;
    if (failures === 0) return `connected; ${stream}`;
    return `${this.connected ? 'connected, but' : 'disconnected:'} ${failures} polls of the exchange failed in a row (${lastError}); trying again with backoff; ${stream}`;
  }

  /** The symbols the service knows positions or orders in: their orders are followed from now on. */
  follow(symbols: readonly string[], known: readonly KnownPosition[] = [], pending: readonly KnownOrder[] = []): void {
    for (const symbol of symbols) if (this.marketOf(symbol, false)) this.followed.add(symbol);
    for (const position of known) {
      const market = this.marketOf(position.symbol, false);
      if (!market) continue;
      this.followed.add(idOf(market));
      this.tidy.add(idOf(market));
      this.known.set(`${idOf(market)}/${position.side}`, position);
      this.sought.set(`${idOf(market)}/${position.side}`, position);
    }
    for (const order of pending) {
      const market = this.marketOf(order.symbol, false);
      if (market) this.sought.set(`${idOf(market)}/order/${order.id}`, order);
    }
  }

  /** The position the service or our last book knows open on a market's side (its id survives the exchange's history). */
  private anchorOf(symbol: string, side: Side): KnownPosition | undefined {
    const mine = this.book.positions.find((p) => p.symbol === symbol && p.orderType === side);
    if (mine) return { id: mine.id, symbol, side, volume: mine.volume, openPrice: mine.openPrice, openTime: mine.openTime };
    return this.known.get(`${symbol}/${side}`);
  }

  async accountInformation(): Promise<AccountInformation> {
    const exchange = this.ready();
    const balance = await this.call(() => exchange.fetchBalance());
    const quote = (balance as unknown as Record<string, { free?: number; used?: number; total?: number }>)[this.setup.currency] ?? {};
    return accountInformationOf({
      login: this.login,
      currency: this.setup.currency,
      spot: this.setup.marketTypes.includes('spot'),
      cash: this.setup.balanceIsEquity ? cashOf(balance.info, this.setup.currency) : undefined,
      live: this.credentials.mode === 'live',
      connected: this.connected,
      quote,
      book: this.book,
      contractSize: (symbol) => this.contractSize(symbol),
    });
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
    const stops = STOP_SUPPORT[this.setup.exchangeId];
    const stopOrder = request.orderType === 'buyStop' || request.orderType === 'sellStop';
    // Where stop orders are kept apart (Binance's Algo Service), a stop order is looked up there.
    const conditional = stopOrder ? stops?.conditional : undefined;
    const attached = { stopLoss: request.stopLoss || null, takeProfit: request.takeProfit || null };
    const side: Side = sideOf(request.orderType);
    const earlier = await this.lookUp(market, clientId, conditional);
    if (earlier) {
      const result = await this.resultOf(earlier, clientOrderId);
      // A replay after the service stopped between the fill and its stops: the missing ones are placed now.
      if (result.status === 'filled') await this.stopsAfterFill(market, side, attached, true);
      return this.remember(clientOrderId, result);
    }
    const refused = refusal(this.setup.exchangeId, request);
    if (refused) throw refused;
    const withStops = attached.stopLoss !== null || attached.takeProfit !== null;
    const amount = checkedAmount(exchange, market, request, this.setup.exchangeId);
    const pendingPrice = isPendingOrderRequest(request) ? Number(exchange.priceToPrecision(market.symbol, request.openPrice)) : undefined;
    const limitPrice = stopOrder ? undefined : pendingPrice;
    const quote = await this.quote(request.symbol);
    const price = pendingPrice ?? (side === 'buy' ? quote.ask : quote.bid);
    const params: Record<string, unknown> = {
      clientOrderId: clientId,
      ...(stops?.attach && withStops ? stops.attach(attached) : {}),
      ...(stops?.stopOrder && stopOrder ? stops.stopOrder(side, pendingPrice!, clientId) : {}),
    };
    checkNotional(market, request, amount, price);
    let order: Order | null = null;
    try {
      order = await exchange.createOrder(market.symbol, limitPrice === undefined ? 'market' : 'limit', side, amount, limitPrice, params);
    } catch (error) {
      if (!isTransient(error)) throw venueErrorOf(error);
      // It may have reached the exchange: look before anyone tries again.
      this.log.warn(`${this.login}: placing ${clientId} failed (${describe(error)}); looking the order up by its client id`);
      for (let attempt = 0; attempt < LOOKUP_ATTEMPTS && !order; attempt++) order = await this.lookUp(market, clientId, conditional).catch(() => null);
      if (!order) throw error;
      this.log.info(`${this.login}: order ${clientId} had reached the exchange (order ${order.id}); not placed again`);
    }
    // Bybit and OKX answer a placement with the ids only, Binance futures with a market order not yet
    // filled: read it back until it says what became of it.
    for (let attempt = 0; attempt < LOOKUP_ATTEMPTS && !settled(order); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      order = (await this.lookUp(market, clientId, conditional)) ?? order;
    }
    const result = await this.resultOf(order, clientOrderId);
    if (result.status === 'filled') await this.stopsAfterFill(market, side, attached, false);
    return this.remember(clientOrderId, result);
  }

  /**
   * Where nothing is attached to the opening order (Binance USDⓈ-M), the stops go on the position it
   * opened once it filled. `replayed` (the order was found placed before): only the levels the position
   * lacks, so a replay places what a stop between the fill and the stops left out, and nothing twice.
   */
  private async stopsAfterFill(market: Market, side: Side, wanted: PositionStops, replayed: boolean): Promise<void> {
    const stops = STOP_SUPPORT[this.setup.exchangeId];
    if (!stops || stops.attach || (wanted.stopLoss === null && wanted.takeProfit === null)) return;
    const position = this.book.positions.find((p) => p.symbol === idOf(market) && p.orderType === side);
    if (!position) return;
    const next = replayed ? { stopLoss: position.stopLoss ?? wanted.stopLoss, takeProfit: position.takeProfit ?? wanted.takeProfit } : wanted;
    if (replayed && next.stopLoss === position.stopLoss && next.takeProfit === position.takeProfit) return;
    if (replayed) this.log.info(`${this.login}: placing the stops of ${position.id} the service had not placed after its fill`);
    await this.call(() => stops.setPositionStops(this.ready(), market, next, side));
    await this.refresh();
  }

  async modifyPosition(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> {
    const exchange = this.ready();
    await this.refresh();
    const stops = STOP_SUPPORT[this.setup.exchangeId];
    const pending = this.book.pending.find((o) => o.id === id);
    if (pending) {
      await editPending(exchange, this.setup.exchangeId, this.marketOf(pending.symbol, true)!, pending, changes);
      await this.refresh();
      return this.book.pending.find((o) => o.id === id) ?? pending;
    }
    const position = this.book.positions.find((p) => p.id === id);
    if (!position) throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    if (changes.openPrice !== undefined) throw new VenueError('[INVALID_REQUEST]', `an open position's price cannot be changed`);
    if (changes.stopLoss !== undefined || changes.takeProfit !== undefined) {
      if (!stops) throw new VenueError('[INVALID_STOPS]', `stop loss and take profit are not placed on ${this.setup.exchangeId} by this adapter`);
      const market = this.marketOf(position.symbol, true)!;
      const next = {
        stopLoss: changes.stopLoss === undefined ? position.stopLoss : changes.stopLoss || null,
        takeProfit: changes.takeProfit === undefined ? position.takeProfit : changes.takeProfit || null,
      };
      await this.call(() => stops.setPositionStops(exchange, market, next, position.orderType));
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
    const stopOrder = order.orderType === 'buyStop' || order.orderType === 'sellStop';
    await this.call(() =>
      exchange.cancelOrder(id, this.marketOf(order.symbol, true)!.symbol, (stopOrder && STOP_SUPPORT[this.setup.exchangeId]?.conditional) || {}),
    );
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
    const markets = [...this.followed].map((id) => this.marketOf(id, false)).filter((m): m is Market => m !== null);
    const readAt = this.clock().getTime();
    this.listing = await this.orderHistory.read(exchange, markets, readAt, this.sought);
    const book = this.bookOf(this.listing);
    // Where stops belong to the position (Bybit), the position's own are the truth, not the opening order's.
    const stops = STOP_SUPPORT[this.setup.exchangeId];
    if (!stops) return book;
    if (stops.clearLeftovers) {
      for (const p of this.book.positions) this.tidy.add(p.symbol);
      // Placed before the market's last close (else a few seconds before the read): not one placed for a position opened since.
      const lastClose = (symbol: string) => Math.max(readAt - 5000, ...book.trades.filter((t) => t.symbol === symbol).map((t) => Date.parse(t.closeTime)));
      const flat = [...this.tidy]
        .filter((s) => !book.positions.some((p) => p.symbol === s))
        .map((s) => ({ market: this.marketOf(s, false)!, before: lastClose(s) }));
      await this.call(() =>
        stops.clearLeftovers!(
          exchange,
          flat.filter((f) => f.market !== null),
        ),
      );
      this.tidy.clear();
    }
    if (book.positions.length === 0) return book;
    const current = await this.call(() => stops.positionStops(exchange, this.openOf(book.positions)));
    const positions = book.positions.map((p) => ({ ...p, ...(current.get(p.symbol) ?? { stopLoss: null, takeProfit: null }) }));
    return { ...book, positions };
  }

  /** The markets and sides of positions, as the stop reads take them (a market no longer listed left out). */
  private openOf(positions: readonly OpenPosition[]): { market: Market; side: Side }[] {
    return positions.map((p) => ({ market: this.marketOf(p.symbol, false)!, side: p.orderType })).filter((o) => o.market !== null);
  }

  private bookOf(listing: Listing): ReplayedBook {
    const pricing = {
      quote: (symbol: string) => this.tickers.quotes.get(symbol),
      contractSize: (symbol: string) => this.contractSize(symbol),
      spot: (symbol: string) => this.marketOf(symbol, false)?.spot === true,
    };
    return bookOf(listing, pricing, (symbol, side) => this.anchorOf(symbol, side));
  }

  /** Orders the stream pushed: into the last listing, its book replayed, the difference told (in turn with the polls). */
  private streamed(orders: readonly Order[]): void {
    const run = this.refreshing.then(async () => {
      const exchange = this.exchange;
      if (!exchange || !this.listing) return;
      const updates: ExchangeOrder[] = [];
      for (const o of orders) {
        const market = o.symbol ? exchange.markets?.[o.symbol] : undefined;
        // An order a triggered conditional order placed is read by the poll, under the conditional order's id.
        if (market && fromTrigger(this.setup.exchangeId, o)) void this.refresh().catch(() => undefined);
        else if (market) updates.push(await this.orderHistory.streamed(exchange, market, o));
      }
      const { listing, unfollowed } = mergeStreamed(this.listing, updates);
      if (unfollowed.length > 0) {
        for (const symbol of unfollowed) this.followed.add(symbol);
        void this.refresh().catch(() => undefined);
      }
      if (!listing) return;
      this.listing = listing;
      const book = this.bookOf(listing);
      const stops = STOP_SUPPORT[this.setup.exchangeId];
      const read = (moved: readonly OpenPosition[]) => this.call(() => stops!.positionStops(exchange, this.openOf(moved)));
      const warn = (error: unknown) => this.log.warn(`${this.login}: the stops of a streamed fill's position were not read (${describe(error)})`);
      const next = stops ? await withPositionStops(book, this.book, read, warn) : book;
      const previous = this.book;
      this.book = next;
      this.emitDifference(previous, next);
    });
    this.refreshing = run.catch((error: unknown) => this.log.warn(`${this.login}: a streamed order update was not applied (${describe(error)})`));
  }

  private emitDifference(previous: ReplayedBook, next: ReplayedBook): void {
    const at = this.clock().toISOString();
    for (const change of differenceOf(previous, next)) {
      const full = { ...change, login: this.login, sequence: ++this.sequence, at } as VenueChange;
      for (const listener of this.listeners) listener(full);
    }
  }

  /** The order placed under a client id, or null. Bybit is asked through its lists filtered by orderLinkId. */
  private lookUp(market: Market, clientId: string, conditional?: Record<string, unknown>): Promise<Order | null> {
    return lookUpOrder(this.ready(), market, clientId, this.setup.lookUpByList === true, conditional);
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
    return symbolInfoOf(market, this.tickers.quotes.get(idOf(market)), this.setup.exchangeId);
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

  private call<T>(work: () => Promise<T>): Promise<T> {
    return call(work);
  }
}
