// One cTrader account through the Open API's JSON endpoint over WebSocket, as a venue port connection
// (README "cTrader"). The messages are protocol.ts.
//
// - Login: the application authenticates with the operator's client id and secret (CTRADER_CLIENT_ID,
//   CTRADER_CLIENT_SECRET), then the account with its access token (loginAccountPassword, sealed; the
//   reference's `token|refreshToken` form is taken, the refresh token is kept unused). The account is
//   found among the token's accounts (ProtoOAGetAccountListByAccessTokenReq) by loginAccountNumber: its
//   traderLogin (the number cTrader shows) or its ctidTraderAccountId. loginServer picks live or demo.
//   A token, account or environment the endpoint refuses answers [INVALID_CREDENTIALS].
// - One WebSocket per account. A heartbeat (ProtoHeartbeatEvent) goes out every CTRADER_HEARTBEAT_MS;
//   a link silent for three of them is dropped. A dropped link is reopened with backoff (0.5 s doubling
//   to CTRADER_RECONNECT_MAX_MS); meanwhile the account says it is disconnected (`connected: false`,
//   statusMessage, logs). Back, it reads the book again (ProtoOAReconcileReq, the deals since) and tells
//   what changed while it was away, once.
// - The book: open positions and pending orders of ProtoOAReconcileRes, closed trades from the closing
//   deals (ProtoOADeal.closePositionDetail). Every execution event makes the adapter read the book again
//   and tell the difference: the same path live and after a reconnect, so nothing is told twice.
// - Placement: market orders, with the engine's deterministic id as clientOrderId (≤ 50 characters;
//   a longer id is replaced by its digest) and the magic number as label. Placing first looks the id up
//   in the account's orders (ProtoOAOrderListReq), and so does a timeout or a lost link after sending:
//   a replayed copy or a retry finds the order placed before and places nothing.
// - Sizing: volumes are cents of units; one lot is the symbol's lotSize. The volume step and minimum are
//   the symbol's stepVolume and minVolume in lots, so the copy rules round and skip with their usual
//   reasons; a volume off the step or below the minimum is refused [INVALID_VOLUME] before sending.
import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import type {
  AccountInformation,
  ClosedTrade,
  HistoryEntry,
  OpenPosition,
  OrderRequest,
  PendingOrder,
  PendingOrderType,
  PlaceOrderResult,
  PositionChanges,
  Quote,
  Side,
  SymbolInfo,
  VenueChange,
  VenueChangeListener,
  VenueConnection,
  VenueErrorCode,
  VenuePosition,
} from '../port.js';
import { isPendingOrderRequest, VenueError } from '../port.js';
import {
  ACCOUNT_TYPE,
  DEAL_STATUS,
  ERROR_CODES,
  EXECUTION,
  type Frame,
  int,
  type Int64,
  money,
  ORDER_STATUS,
  ORDER_TYPE,
  parseFrame,
  PT,
  type ProtoOAAccountsTokenInvalidatedEvent,
  type ProtoOAAssetListRes,
  type ProtoOAClosePositionReq,
  type ProtoOADeal,
  type ProtoOADealListRes,
  type ProtoOAErrorRes,
  type ProtoOAExecutionEvent,
  type ProtoOAGetAccountListByAccessTokenRes,
  type ProtoOALightSymbol,
  type ProtoOANewOrderReq,
  type ProtoOAOrder,
  type ProtoOAOrderErrorEvent,
  type ProtoOAOrderListRes,
  type ProtoOAPosition,
  type ProtoOAReconcileRes,
  type ProtoOASpotEvent,
  type ProtoOASymbol,
  type ProtoOASymbolByIdRes,
  type ProtoOASymbolsListRes,
  type ProtoOATrader,
  type ProtoOATraderRes,
  spotPrice,
  toCents,
  toLots,
  TRADE_SIDE,
  TRANSIENT_CODES,
} from './protocol.js';

export type CTraderEnvironment = 'live' | 'demo';

export interface CTraderSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The JSON endpoints (wss://live.ctraderapi.com:5036, wss://demo.ctraderapi.com:5036). */
  readonly liveUrl: string;
  readonly demoUrl: string;
  readonly requestTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly reconnectMaxMs: number;
}

export interface CTraderLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface CTraderLogin {
  /** traderLogin or ctidTraderAccountId. */
  readonly login: string;
  readonly accessToken: string;
  readonly environment: CTraderEnvironment;
}

/** How far back a client order id is looked up in the account's orders. */
const LOOKUP_WINDOW_MS = 7 * 24 * 3600_000;
const LOOKUP_ATTEMPTS = 3;
const DAY_MS = 24 * 3600_000;
const WEEK_MS = 7 * DAY_MS;
/** How far back the history (and so a reconciliation) reads closing deals. */
const HISTORY_DAYS = 90;
const FIRST_BACKOFF_MS = 500;

/** A refusal or failure the endpoint answered (ProtoOAErrorRes, ProtoOAOrderErrorEvent, a rejected order). */
export class CTraderFailure extends Error {
  constructor(
    readonly errorCode: string,
    description: string,
  ) {
    super(`${errorCode}${description ? `: ${description}` : ''}`);
    this.name = 'CTraderFailure';
  }
}

/** No answer in time, or the link closed before the answer: the request may or may not have run. */
export class CTraderTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CTraderTimeout';
  }
}

/** True: try again later (after looking up what may have run). */
export const isTransient = (error: unknown): boolean =>
  error instanceof CTraderTimeout || (error instanceof CTraderFailure && (TRANSIENT_CODES.has(error.errorCode) || !ERROR_CODES[error.errorCode]));

/** The VenueError of a refusal; a transient failure comes back as it is. */
export const venueErrorOf = (error: unknown): unknown => {
  if (!(error instanceof CTraderFailure)) return error;
  const code = ERROR_CODES[error.errorCode];
  if (!code || TRANSIENT_CODES.has(error.errorCode)) return error;
  return new VenueError(code as VenueErrorCode, `cTrader refused: ${error.message}`);
};

/** The cTrader clientOrderId of an engine id: the id itself up to 50 characters, else a digest. */
export const ctraderClientOrderId = (id: string): string =>
  id.length <= 50 && /^[\x20-\x7e]+$/.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 40);

interface Waiter {
  readonly accept: (frame: Frame) => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

interface Book {
  readonly positions: ReadonlyMap<string, OpenPosition>;
  readonly pending: ReadonlyMap<string, PendingOrder & { readonly positionId: string | null }>;
  /** Closing deals seen, by deal id. */
  readonly trades: ReadonlyMap<string, ClosedTrade>;
}

const EMPTY_BOOK: Book = { positions: new Map(), pending: new Map(), trades: new Map() };

type ChangeBody = VenueChange extends infer C ? (C extends VenueChange ? Omit<C, 'login' | 'sequence' | 'at'> : never) : never;

const iso = (ms: Int64 | undefined): string => new Date(int(ms)).toISOString();
const round2 = (value: number): number => Math.round(value * 100) / 100;
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const sideOf = (tradeSide: number): Side => (tradeSide === TRADE_SIDE.SELL ? 'sell' : 'buy');

export class CTraderConnection implements VenueConnection {
  readonly login: string;
  /** What the link is doing, for account information and the logs. */
  statusMessage = 'not connected';
  private socket: WebSocket | null = null;
  private connected = false;
  /** disconnect() was called (or connect() never succeeded): no reconnects. */
  private closed = true;
  private ctid: number | null = null;
  private trader: ProtoOATrader | null = null;
  private currency = '';
  private assets = new Map<number, string>();
  private symbolsByName = new Map<string, ProtoOALightSymbol>();
  private symbolNames = new Map<number, string>();
  private details = new Map<number, ProtoOASymbol>();
  private quotes = new Map<number, { bid: number; ask: number; time: string }>();
  private spotWaiters = new Map<number, (() => void)[]>();
  private subscribed = new Set<number>();
  private book: Book = EMPTY_BOOK;
  /** Open times of positions seen, for the trades that close them. */
  private openTimes = new Map<string, { openTime: string; clientOrderId: string | null; magicNumber: number | null; comment: string | null }>();
  /** Deals are read from this time on (ms), less a minute. */
  private dealsFrom = 0;
  private readonly waiters = new Map<string, Waiter>();
  private readonly listeners = new Set<VenueChangeListener>();
  private sequence = 0;
  private messageCounter = 0;
  private syncing: Promise<void> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private lastHeard = 0;
  private readonly placed = new Map<string, PlaceOrderResult>();
  private readonly closes = new Map<string, ClosedTrade>();
  /** The client order ids of positions opened by orders that carried one, by position id. */
  private readonly tags = new Map<string, string>();
  /** The engine's id of each cTrader clientOrderId this connection sent. */
  private readonly engineIds = new Map<string, string>();

  constructor(
    private readonly account: CTraderLogin,
    private readonly settings: CTraderSettings,
    private readonly log: CTraderLog,
    private readonly clock: () => Date,
  ) {
    this.login = account.login;
  }

  get environment(): CTraderEnvironment {
    return this.account.environment;
  }

  // ------------------------------------------------------------------ session

  async connect(): Promise<void> {
    if (this.connected) return;
    this.closed = false;
    try {
      await this.open();
      await this.session(true);
    } catch (error) {
      this.closed = true;
      this.drop();
      this.statusMessage = `not connected: ${describe(error)}`;
      throw venueErrorOf(error);
    }
    this.connected = true;
    this.statusMessage = 'connected';
  }

  async disconnect(): Promise<void> {
    this.closed = true;
    this.connected = false;
    this.statusMessage = 'disconnected';
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    await this.syncing.catch(() => undefined);
    this.drop();
  }

  isConnected(): boolean {
    return this.connected;
  }

  private url(): string {
    return this.account.environment === 'live' ? this.settings.liveUrl : this.settings.demoUrl;
  }

  /** Opens the WebSocket; the handlers below keep it. */
  private open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(this.url(), { handshakeTimeout: this.settings.requestTimeoutMs });
      this.socket = socket;
      let opened = false;
      socket.on('open', () => {
        opened = true;
        this.lastHeard = Date.now();
        this.startHeartbeat();
        resolve();
      });
      socket.on('pong', () => {
        this.lastHeard = Date.now();
      });
      socket.on('message', (data) => {
        this.lastHeard = Date.now();
        const frame = parseFrame(data.toString());
        if (frame) this.onFrame(frame);
      });
      socket.on('error', (error) => {
        if (!opened) reject(new CTraderTimeout(`cannot reach cTrader at ${this.url()}: ${error.message}`));
      });
      socket.on('close', () => {
        if (!opened) reject(new CTraderTimeout(`cTrader at ${this.url()} closed the link`));
        this.onClose(socket);
      });
    });
  }

  /** Authenticates the application and the account, then reads the account, its symbols and its book. */
  private async session(first: boolean): Promise<void> {
    await this.request(PT.APPLICATION_AUTH_REQ, { clientId: this.settings.clientId, clientSecret: this.settings.clientSecret }, PT.APPLICATION_AUTH_RES);
    if (first || this.ctid === null) {
      const list = await this.request<ProtoOAGetAccountListByAccessTokenRes>(
        PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_REQ,
        { accessToken: this.account.accessToken },
        PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_RES,
      );
      const wanted = this.account.login.trim();
      const found = (list.ctidTraderAccount ?? []).find((a) => String(int(a.traderLogin)) === wanted || String(int(a.ctidTraderAccountId)) === wanted);
      if (!found) throw new VenueError('[INVALID_CREDENTIALS]', `the access token gives no access to cTrader account ${wanted}`);
      const live = found.isLive === true;
      if (live !== (this.account.environment === 'live')) {
        throw new VenueError(
          '[INVALID_CREDENTIALS]',
          `cTrader account ${wanted} is a ${live ? 'live' : 'demo'} account: set loginServer to ${live ? 'live' : 'demo'}`,
        );
      }
      if (list.permissionScope === 0) this.log.warn(`cTrader account ${wanted}: the access token has the view scope only; orders will be refused`);
      this.ctid = int(found.ctidTraderAccountId);
    }
    const ctid = this.ctid;
    await this.request(PT.ACCOUNT_AUTH_REQ, { ctidTraderAccountId: ctid, accessToken: this.account.accessToken }, PT.ACCOUNT_AUTH_RES);
    this.trader = (await this.request<ProtoOATraderRes>(PT.TRADER_REQ, { ctidTraderAccountId: ctid }, PT.TRADER_RES)).trader;
    if (first || this.assets.size === 0) {
      const assets = await this.request<ProtoOAAssetListRes>(PT.ASSET_LIST_REQ, { ctidTraderAccountId: ctid }, PT.ASSET_LIST_RES);
      this.assets = new Map((assets.asset ?? []).map((a) => [int(a.assetId), a.name]));
      const symbols = await this.request<ProtoOASymbolsListRes>(PT.SYMBOLS_LIST_REQ, { ctidTraderAccountId: ctid }, PT.SYMBOLS_LIST_RES);
      for (const symbol of symbols.symbol ?? []) {
        if (symbol.enabled === false || !symbol.symbolName) continue;
        const name = symbol.symbolName.replace(/\//g, '');
        this.symbolsByName.set(name, symbol);
        this.symbolNames.set(int(symbol.symbolId), name);
      }
    }
    this.currency = this.assets.get(int(this.trader.depositAssetId)) ?? '';
    if (this.subscribed.size > 0) {
      const ids = [...this.subscribed];
      this.subscribed.clear();
      await this.subscribeSpots(ids);
    }
    if (first) {
      this.dealsFrom = this.clock().getTime();
      this.book = await this.readBook();
    } else {
      await this.sync();
    }
  }

  private onClose(socket: WebSocket): void {
    if (this.socket !== socket) return;
    this.socket = null;
    this.stopHeartbeat();
    for (const [id, waiter] of this.waiters) {
      clearTimeout(waiter.timer);
      this.waiters.delete(id);
      waiter.reject(new CTraderTimeout('the link to cTrader closed before the answer'));
    }
    if (this.closed || !this.connected) return;
    this.connected = false;
    this.statusMessage = 'link to cTrader lost; reconnecting';
    this.log.warn(`cTrader account ${this.login}: the link closed; reconnecting with backoff`);
    this.scheduleReconnect(0);
  }

  private scheduleReconnect(attempt: number): void {
    if (this.closed) return;
    const delay = Math.min(FIRST_BACKOFF_MS * 2 ** attempt, this.settings.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.reconnect(attempt);
    }, delay);
    this.reconnectTimer.unref();
  }

  private async reconnect(attempt: number): Promise<void> {
    if (this.closed) return;
    try {
      await this.open();
      await this.session(false);
      if (this.closed) return this.drop();
      this.connected = true;
      this.statusMessage = 'connected';
      this.log.info(`cTrader account ${this.login}: reconnected after ${attempt + 1} attempt(s); what changed meanwhile was read again`);
    } catch (error) {
      this.drop();
      const refused = error instanceof VenueError || (error instanceof CTraderFailure && ERROR_CODES[error.errorCode] === '[INVALID_CREDENTIALS]');
      this.statusMessage = refused ? `cTrader refuses the login: ${describe(error)}` : `reconnecting: ${describe(error)}`;
      if (attempt === 0 || refused) this.log.warn(`cTrader account ${this.login}: reconnecting failed (${describe(error)}); trying again with backoff`);
      this.scheduleReconnect(attempt + 1);
    }
  }

  /** Closes the socket without a reconnect of its own (the caller decides). */
  private drop(): void {
    const socket = this.socket;
    this.socket = null;
    this.stopHeartbeat();
    if (socket) {
      socket.removeAllListeners('close');
      socket.on('error', () => undefined);
      socket.terminate();
    }
    for (const [id, waiter] of this.waiters) {
      clearTimeout(waiter.timer);
      this.waiters.delete(id);
      waiter.reject(new CTraderTimeout('the link to cTrader closed before the answer'));
    }
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => {
      const socket = this.socket;
      if (!socket) return;
      if (Date.now() - this.lastHeard > 3 * this.settings.heartbeatMs) {
        this.log.warn(`cTrader account ${this.login}: nothing heard for ${3 * this.settings.heartbeatMs} ms; dropping the link`);
        socket.terminate();
        return;
      }
      // The Open API's own heartbeat keeps the session open; a WebSocket ping proves the link answers.
      this.send({ payloadType: PT.HEARTBEAT_EVENT, payload: {} });
      socket.ping();
    }, this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  // ------------------------------------------------------------------ frames

  private send(frame: Frame): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) throw new CTraderTimeout('the link to cTrader is not open');
    socket.send(JSON.stringify(frame));
  }

  /**
   * Sends a request and waits for the frame with its clientMsgId that `accept` takes (answers a value
   * other than undefined). ProtoOAErrorRes, ProtoOAOrderErrorEvent and a rejected order with the id
   * fail it with a CTraderFailure; no answer within CTRADER_REQUEST_TIMEOUT_MS with a CTraderTimeout.
   */
  private exchange<T>(payloadType: number, payload: object, accept: (frame: Frame) => T | undefined): Promise<T> {
    const clientMsgId = `ct-${++this.messageCounter}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(clientMsgId);
        reject(new CTraderTimeout(`no answer from cTrader to ${payloadType} within ${this.settings.requestTimeoutMs} ms`));
      }, this.settings.requestTimeoutMs);
      this.waiters.set(clientMsgId, { accept, resolve: resolve as (value: unknown) => void, reject, timer });
      try {
        this.send({ clientMsgId, payloadType, payload });
      } catch (error) {
        clearTimeout(timer);
        this.waiters.delete(clientMsgId);
        reject(error as Error);
      }
    });
  }

  private request<T>(payloadType: number, payload: object, answerType: number): Promise<T> {
    return this.exchange(payloadType, payload, (frame) => (frame.payloadType === answerType ? ((frame.payload ?? {}) as T) : undefined));
  }

  private onFrame(frame: Frame): void {
    const waiter = frame.clientMsgId ? this.waiters.get(frame.clientMsgId) : undefined;
    if (waiter && frame.clientMsgId) {
      const failure = failureOf(frame);
      const value = failure ? undefined : waiter.accept(frame);
      if (failure || value !== undefined) {
        clearTimeout(waiter.timer);
        this.waiters.delete(frame.clientMsgId);
        if (failure) waiter.reject(failure);
        else waiter.resolve(value);
      }
    }
    switch (frame.payloadType) {
      case PT.SPOT_EVENT:
        return this.onSpot(frame.payload as ProtoOASpotEvent);
      case PT.EXECUTION_EVENT: {
        // The position an order of ours opened carries its client order id from now on.
        const event = frame.payload as ProtoOAExecutionEvent;
        const tag = event.order?.clientOrderId;
        const positionId = event.order?.positionId ?? event.position?.positionId;
        if (tag && positionId !== undefined && !event.order?.closingOrder) this.tags.set(String(int(positionId)), this.engineIds.get(tag) ?? tag);
        // Whoever caused it (us, the user in cTrader, a stop-out): read the book and tell what changed.
        if (this.connected)
          void this.sync().catch((error: unknown) => this.log.warn(`cTrader account ${this.login}: reading the book failed (${describe(error)})`));
        return;
      }
      case PT.ACCOUNTS_TOKEN_INVALIDATED_EVENT: {
        const event = frame.payload as ProtoOAAccountsTokenInvalidatedEvent;
        this.log.warn(`cTrader account ${this.login}: cTrader invalidated the access token (${event.reason ?? 'no reason given'})`);
        this.socket?.terminate();
        return;
      }
      case PT.ACCOUNT_DISCONNECT_EVENT:
      case PT.CLIENT_DISCONNECT_EVENT:
        this.log.warn(`cTrader account ${this.login}: cTrader ended the session (${frame.payloadType}); reconnecting`);
        this.socket?.terminate();
        return;
      default:
        return;
    }
  }

  private onSpot(event: ProtoOASpotEvent): void {
    const id = int(event.symbolId);
    const previous = this.quotes.get(id);
    const bid = event.bid !== undefined ? spotPrice(event.bid) : (previous?.bid ?? 0);
    const ask = event.ask !== undefined ? spotPrice(event.ask) : (previous?.ask ?? 0);
    const time = event.timestamp !== undefined ? iso(event.timestamp) : this.clock().toISOString();
    this.quotes.set(id, { bid, ask, time });
    for (const wake of this.spotWaiters.get(id) ?? []) wake();
    this.spotWaiters.delete(id);
  }

  // ------------------------------------------------------------------ the book

  /** Reads the book again and tells the listeners what changed since the last reading. */
  sync(): Promise<void> {
    const run = this.syncing.then(async () => {
      if (!this.socket) return;
      const next = await this.readBook();
      const previous = this.book;
      this.book = next;
      this.emitDifference(previous, next);
    });
    this.syncing = run.catch(() => undefined);
    return run;
  }

  private async readBook(): Promise<Book> {
    const ctid = this.ready(true);
    const reconciled = await this.request<ProtoOAReconcileRes>(PT.RECONCILE_REQ, { ctidTraderAccountId: ctid }, PT.RECONCILE_RES);
    const now = this.clock().getTime();
    const deals = await this.deals(Math.max(0, this.dealsFrom - 60_000), now + 60_000);
    await this.ensureDetails([
      ...(reconciled.position ?? []).map((p) => int(p.tradeData.symbolId)),
      ...(reconciled.order ?? []).map((o) => int(o.tradeData.symbolId)),
      ...deals.map((d) => int(d.symbolId)),
    ]);
    const positions = new Map<string, OpenPosition>();
    for (const p of reconciled.position ?? []) {
      const position = this.positionOf(p);
      if (position) positions.set(position.id, position);
    }
    const pending = new Map<string, PendingOrder & { positionId: string | null }>();
    for (const o of reconciled.order ?? []) {
      const order = this.orderOf(o);
      if (order) pending.set(order.id, order);
    }
    const trades = new Map(this.book.trades);
    for (const deal of deals) {
      const trade = this.tradeOf(deal);
      if (trade && !trades.has(trade.id)) trades.set(trade.id, trade);
    }
    this.dealsFrom = now;
    return { positions, pending, trades };
  }

  private emitDifference(previous: Book, next: Book): void {
    const at = this.clock().toISOString();
    const emit = (change: ChangeBody) => {
      const full = { ...change, login: this.login, sequence: ++this.sequence, at } as VenueChange;
      for (const listener of this.listeners) listener(full);
    };
    for (const [id, order] of next.pending) if (!previous.pending.has(id)) emit({ type: 'orderPlaced', order: stripOrder(order) });
    const filledOrders = new Set<string>();
    for (const [id, position] of next.positions) {
      const old = previous.positions.get(id);
      if (!old) {
        const filled = [...previous.pending.values()].find((o) => o.positionId === id && !next.pending.has(o.id));
        if (filled) {
          filledOrders.add(filled.id);
          emit({ type: 'orderFilled', order: stripOrder(filled), price: position.openPrice });
        }
        emit({ type: 'positionOpened', position });
      } else if (position.volume > old.volume + 1e-12) {
        emit({ type: 'positionIncreased', position, volume: Number((position.volume - old.volume).toFixed(10)), price: position.openPrice });
      } else if (position.stopLoss !== old.stopLoss || position.takeProfit !== old.takeProfit) {
        emit({ type: 'positionModified', position });
      }
    }
    for (const [id, trade] of next.trades) {
      if (previous.trades.has(id)) continue;
      const remaining = next.positions.get(trade.positionId);
      if (remaining) emit({ type: 'positionPartiallyClosed', position: remaining, trade });
      else emit({ type: 'positionClosed', trade });
    }
    for (const [id, position] of previous.positions) {
      if (next.positions.has(id) || [...next.trades.values()].some((t) => t.positionId === id && !previous.trades.has(t.id))) continue;
      this.log.warn(`cTrader account ${this.login}: position ${id} (${position.symbol}) is gone without a closing deal seen; the next start reconciles it`);
    }
    for (const [id, order] of previous.pending) {
      if (next.pending.has(id) || filledOrders.has(id)) continue;
      emit({ type: 'orderCancelled', order: stripOrder(order), reason: 'manual' });
    }
  }

  /**
   * The deals of a time range (ms), a week per request (the endpoint's widest range) and every page of
   * each; at most the last HISTORY_DAYS days, and nothing before the account was registered.
   */
  private async deals(from: number, to: number): Promise<ProtoOADeal[]> {
    const ctid = this.ready(true);
    const all: ProtoOADeal[] = [];
    const end = Math.min(to, this.clock().getTime() + 60_000);
    const start = Math.max(from, end - HISTORY_DAYS * DAY_MS, int(this.trader?.registrationTimestamp));
    for (let windowEnd = end; windowEnd >= start; windowEnd -= WEEK_MS) {
      const windowStart = Math.max(start, windowEnd - WEEK_MS + 1);
      let upTo = windowEnd;
      for (let page = 0; page < 50; page++) {
        const res = await this.request<ProtoOADealListRes>(
          PT.DEAL_LIST_REQ,
          { ctidTraderAccountId: ctid, fromTimestamp: windowStart, toTimestamp: upTo, maxRows: 1000 },
          PT.DEAL_LIST_RES,
        );
        const deals = res.deal ?? [];
        all.push(...deals);
        if (!res.hasMore || deals.length === 0) break;
        upTo = Math.min(...deals.map((d) => int(d.executionTimestamp))) - 1;
      }
    }
    return all;
  }

  private async ensureDetails(ids: readonly number[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.details.has(id));
    if (missing.length === 0) return;
    const res = await this.request<ProtoOASymbolByIdRes>(
      PT.SYMBOL_BY_ID_REQ,
      { ctidTraderAccountId: this.ready(true), symbolId: missing },
      PT.SYMBOL_BY_ID_RES,
    );
    for (const symbol of res.symbol ?? []) this.details.set(int(symbol.symbolId), symbol);
  }

  private lotSize(symbolId: number): number {
    return int(this.details.get(symbolId)?.lotSize) || 100;
  }

  private positionOf(p: ProtoOAPosition): OpenPosition | null {
    const symbolId = int(p.tradeData.symbolId);
    const symbol = this.symbolNames.get(symbolId);
    if (!symbol) return null;
    const id = String(int(p.positionId));
    const side = sideOf(p.tradeData.tradeSide);
    const volume = toLots(p.tradeData.volume, this.lotSize(symbolId));
    const openPrice = p.price ?? 0;
    const quote = this.quotes.get(symbolId);
    const current = quote ? (side === 'buy' ? quote.bid : quote.ask) : openPrice;
    const contract = this.lotSize(symbolId) / 100;
    const label = p.tradeData.label ?? '';
    const magicNumber = /^\d{1,15}$/.test(label) ? Number(label) : null;
    const comment = p.tradeData.comment ?? null;
    const known = this.openTimes.get(id);
    const clientOrderId = this.tags.get(id) ?? known?.clientOrderId ?? null;
    const openTime = iso(p.tradeData.openTimestamp);
    this.openTimes.set(id, { openTime, clientOrderId, magicNumber, comment });
    return {
      kind: 'position',
      id,
      symbol,
      orderType: side,
      volume,
      openPrice,
      openTime,
      stopLoss: p.stopLoss ?? null,
      takeProfit: p.takeProfit ?? null,
      swap: money(p.swap, p.moneyDigits),
      commission: money(p.commission, p.moneyDigits),
      comment,
      magicNumber,
      clientOrderId,
      currentPrice: current,
      profit: round2((current - openPrice) * volume * contract * (side === 'buy' ? 1 : -1)),
    };
  }

  private orderOf(o: ProtoOAOrder): (PendingOrder & { positionId: string | null }) | null {
    const symbolId = int(o.tradeData.symbolId);
    const symbol = this.symbolNames.get(symbolId);
    if (!symbol || o.orderStatus !== ORDER_STATUS.ACCEPTED) return null;
    const side = sideOf(o.tradeData.tradeSide);
    let type: PendingOrderType;
    if (o.orderType === ORDER_TYPE.LIMIT) type = side === 'buy' ? 'buyLimit' : 'sellLimit';
    else if (o.orderType === ORDER_TYPE.STOP || o.orderType === ORDER_TYPE.STOP_LIMIT) type = side === 'buy' ? 'buyStop' : 'sellStop';
    else return null;
    const openPrice = o.limitPrice ?? o.stopPrice ?? 0;
    const quote = this.quotes.get(symbolId);
    const label = o.tradeData.label ?? '';
    return {
      kind: 'order',
      id: String(int(o.orderId)),
      symbol,
      orderType: type,
      volume: toLots(o.tradeData.volume, this.lotSize(symbolId)),
      openPrice,
      openTime: iso(o.tradeData.openTimestamp),
      stopLoss: o.stopLoss ?? null,
      takeProfit: o.takeProfit ?? null,
      expiry: o.expirationTimestamp !== undefined ? iso(o.expirationTimestamp) : null,
      comment: o.tradeData.comment ?? null,
      magicNumber: /^\d{1,15}$/.test(label) ? Number(label) : null,
      clientOrderId: o.clientOrderId ?? null,
      currentPrice: quote ? (side === 'buy' ? quote.ask : quote.bid) : openPrice,
      positionId: o.positionId !== undefined ? String(int(o.positionId)) : null,
    };
  }

  /** The closed trade of a closing deal; null for a deal that opened or added volume, or did not fill. */
  private tradeOf(deal: ProtoOADeal): ClosedTrade | null {
    const detail = deal.closePositionDetail;
    if (!detail || (deal.dealStatus !== DEAL_STATUS.FILLED && deal.dealStatus !== DEAL_STATUS.PARTIALLY_FILLED)) return null;
    const symbolId = int(deal.symbolId);
    const symbol = this.symbolNames.get(symbolId);
    if (!symbol) return null;
    const positionId = String(int(deal.positionId));
    const known = this.openTimes.get(positionId);
    const digits = detail.moneyDigits ?? deal.moneyDigits;
    return {
      kind: 'trade',
      id: String(int(deal.dealId)),
      positionId,
      symbol,
      // The closing deal is on the other side of the position it closes.
      orderType: deal.tradeSide === TRADE_SIDE.BUY ? 'sell' : 'buy',
      volume: toLots(detail.closedVolume ?? deal.filledVolume, this.lotSize(symbolId)),
      openPrice: detail.entryPrice,
      openTime: known?.openTime ?? iso(deal.executionTimestamp),
      closePrice: deal.executionPrice ?? 0,
      closeTime: iso(deal.executionTimestamp),
      profit: money(detail.grossProfit, digits),
      swap: money(detail.swap, digits),
      commission: money(detail.commission, digits),
      reason: 'manual',
      stopLoss: null,
      takeProfit: null,
      comment: known?.comment ?? null,
      magicNumber: known?.magicNumber ?? null,
      clientOrderId: known?.clientOrderId ?? null,
    };
  }

  // ------------------------------------------------------------------ the port

  async accountInformation(): Promise<AccountInformation> {
    const ctid = this.ready();
    const trader = (await this.guard(() => this.request<ProtoOATraderRes>(PT.TRADER_REQ, { ctidTraderAccountId: ctid }, PT.TRADER_RES))).trader;
    this.trader = trader;
    const balance = money(trader.balance, trader.moneyDigits);
    const open = [...this.book.positions.values()];
    const unrealized = open.reduce((sum, p) => sum + p.profit + p.swap, 0);
    const leverage = (trader.leverageInCents ?? 100) / 100;
    const margin = open.reduce((sum, p) => sum + (p.volume * this.contractOf(p.symbol) * p.openPrice) / leverage, 0);
    const equity = balance + unrealized;
    return {
      login: this.login,
      currency: this.currency,
      leverage,
      marginMode: trader.accountType === ACCOUNT_TYPE.NETTED ? 'netting' : 'hedging',
      balance: round2(balance),
      credit: 0,
      equity: round2(equity),
      margin: round2(margin),
      freeMargin: round2(equity - margin),
      marginLevel: margin > 0 ? round2((equity / margin) * 100) : null,
      stopOutLevel: 0,
      unrealizedProfit: round2(unrealized),
      openPositionsCount: open.length,
      pendingOrdersCount: this.book.pending.size,
      connected: this.connected,
      environment: this.account.environment === 'live' ? 'LIVE' : 'DEMO',
    };
  }

  async positions(): Promise<readonly VenuePosition[]> {
    this.ready();
    await this.guard(() => this.sync());
    return [...this.book.positions.values(), ...[...this.book.pending.values()].map(stripOrder)];
  }

  async history(from: string, to: string): Promise<readonly HistoryEntry[]> {
    this.ready();
    const deals = await this.guard(() => this.deals(Date.parse(from), Date.parse(to)));
    await this.ensureDetails(deals.map((d) => int(d.symbolId)));
    // Deposits and withdrawals (ProtoOACashFlowHistoryListReq) are not read yet: closed trades only.
    return deals
      .map((d) => this.tradeOf(d))
      .filter((t): t is ClosedTrade => t !== null)
      .sort((a, b) => a.closeTime.localeCompare(b.closeTime));
  }

  async placeOrder(request: OrderRequest, clientOrderId: string): Promise<PlaceOrderResult> {
    const ctid = this.ready();
    const known = this.placed.get(clientOrderId);
    if (known) return known;
    const light = this.symbolOf(request.symbol);
    const symbolId = int(light.symbolId);
    const tag = ctraderClientOrderId(clientOrderId);
    this.engineIds.set(tag, clientOrderId);
    const earlier = await this.guard(() => this.findOrder(tag));
    if (earlier) return this.remember(clientOrderId, await this.resultOf(earlier, clientOrderId, null));
    if (isPendingOrderRequest(request)) {
      throw new VenueError('[INVALID_REQUEST]', `${request.orderType} orders are not placed at cTrader by this adapter yet: market orders only`);
    }
    if (request.stopLoss || request.takeProfit) {
      throw new VenueError('[INVALID_STOPS]', 'stop loss and take profit are not placed at cTrader by this adapter yet: copy without them');
    }
    await this.guard(() => this.ensureDetails([symbolId]));
    const volume = this.centsOf(request.symbol, symbolId, request.volume);
    const order: ProtoOANewOrderReq = {
      ctidTraderAccountId: ctid,
      symbolId,
      orderType: ORDER_TYPE.MARKET,
      tradeSide: request.orderType === 'buy' ? TRADE_SIDE.BUY : TRADE_SIDE.SELL,
      volume,
      clientOrderId: tag,
      ...(request.magicNumber !== null && request.magicNumber !== undefined ? { label: String(request.magicNumber) } : {}),
      ...(request.comment ? { comment: request.comment.slice(0, 512) } : {}),
    };
    let filled: ProtoOAExecutionEvent | null = null;
    try {
      filled = await this.exchange<ProtoOAExecutionEvent>(PT.NEW_ORDER_REQ, order, (frame) => filledEvent(frame));
    } catch (error) {
      if (!isTransient(error)) throw venueErrorOf(error);
      // It may have reached cTrader: look before anyone tries again.
      this.log.warn(`cTrader account ${this.login}: placing ${tag} failed (${describe(error)}); looking the order up by its client order id`);
      let found: ProtoOAOrder | null = null;
      for (let attempt = 0; attempt < LOOKUP_ATTEMPTS && !found; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, FIRST_BACKOFF_MS * attempt));
        if (!this.socket) await this.waitConnected(this.settings.requestTimeoutMs);
        found = await this.findOrder(tag).catch(() => null);
      }
      if (!found) throw error;
      this.log.info(`cTrader account ${this.login}: order ${tag} had reached cTrader (order ${int(found.orderId)}); not placed again`);
      return this.remember(clientOrderId, await this.resultOf(found, clientOrderId, null));
    }
    return this.remember(clientOrderId, await this.resultOf(filled.order!, clientOrderId, filled.deal ?? null));
  }

  async modifyPosition(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> {
    this.ready();
    const position = this.book.positions.get(id);
    if (!position) {
      if (this.book.pending.has(id)) throw new VenueError('[INVALID_REQUEST]', 'pending orders are not modified at cTrader by this adapter yet');
      throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    }
    if (changes.stopLoss !== undefined || changes.takeProfit !== undefined || changes.openPrice !== undefined) {
      throw new VenueError('[INVALID_STOPS]', 'stop loss and take profit are not set at cTrader by this adapter yet');
    }
    if (changes.volume !== undefined && changes.volume < position.volume) {
      await this.closePosition(id, Number((position.volume - changes.volume).toFixed(10)), clientRequestId);
    }
    return this.book.positions.get(id) ?? position;
  }

  async closePosition(id: string, volume?: number, clientRequestId?: string): Promise<ClosedTrade> {
    const ctid = this.ready();
    const known = clientRequestId ? this.closes.get(clientRequestId) : undefined;
    if (known) return known;
    let position = this.book.positions.get(id);
    if (!position) {
      await this.guard(() => this.sync());
      position = this.book.positions.get(id);
    }
    if (!position) throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    const symbolId = int(this.symbolOf(position.symbol).symbolId);
    const lots = Math.min(volume ?? position.volume, position.volume);
    const cents = this.centsOf(position.symbol, symbolId, lots, lots === position.volume);
    const tradesBefore = new Set(this.book.trades.keys());
    const close: ProtoOAClosePositionReq = { ctidTraderAccountId: ctid, positionId: Number(id), volume: cents };
    let dealId: string | null = null;
    try {
      const event = await this.exchange<ProtoOAExecutionEvent>(PT.CLOSE_POSITION_REQ, close, (frame) => filledEvent(frame));
      dealId = event.deal ? String(int(event.deal.dealId)) : null;
      await this.sync();
    } catch (error) {
      if (!isTransient(error)) throw venueErrorOf(error);
      this.log.warn(`cTrader account ${this.login}: closing position ${id} failed (${describe(error)}); reading the book before anyone tries again`);
      if (!this.socket) await this.waitConnected(this.settings.requestTimeoutMs);
      await this.sync();
      const done = [...this.book.trades.values()].find((t) => t.positionId === id && !tradesBefore.has(t.id));
      if (!done) throw error;
      this.log.info(`cTrader account ${this.login}: the close of position ${id} had reached cTrader (deal ${done.id}); not sent again`);
      dealId = done.id;
    }
    const trade =
      (dealId ? this.book.trades.get(dealId) : undefined) ?? [...this.book.trades.values()].find((t) => t.positionId === id && !tradesBefore.has(t.id));
    if (!trade) throw new Error(`closing position ${id} at cTrader left no closing deal in the book`);
    if (clientRequestId) this.closes.set(clientRequestId, trade);
    return trade;
  }

  cancelOrder(id: string): Promise<PendingOrder> {
    this.ready();
    if (!this.book.pending.has(id)) return Promise.reject(new VenueError('[ORDER_NOT_FOUND]', `order ${id} is not pending`));
    return Promise.reject(new VenueError('[INVALID_REQUEST]', 'pending orders are not cancelled at cTrader by this adapter yet: cancel it in cTrader'));
  }

  async quote(symbol: string): Promise<Quote> {
    this.ready();
    const id = int(this.symbolOf(symbol).symbolId);
    if (!this.quotes.has(id)) {
      await this.guard(() => this.subscribeSpots([id]));
      if (!this.quotes.has(id)) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new CTraderTimeout(`no price of ${symbol} from cTrader within ${this.settings.requestTimeoutMs} ms`)),
            this.settings.requestTimeoutMs,
          );
          const wake = () => {
            clearTimeout(timer);
            resolve();
          };
          this.spotWaiters.set(id, [...(this.spotWaiters.get(id) ?? []), wake]);
        });
      }
    }
    const quote = this.quotes.get(id)!;
    return { symbol: this.symbolNames.get(id) ?? symbol, bid: quote.bid, ask: quote.ask, time: quote.time };
  }

  async symbolInfo(symbol: string): Promise<SymbolInfo> {
    this.ready();
    const light = this.symbolOf(symbol);
    await this.guard(() => this.ensureDetails([int(light.symbolId)]));
    return this.infoOf(light);
  }

  async symbols(): Promise<readonly SymbolInfo[]> {
    this.ready();
    const all = [...this.symbolsByName.values()];
    await this.guard(() => this.ensureDetails(all.map((s) => int(s.symbolId))));
    return all.filter((s) => this.details.has(int(s.symbolId))).map((s) => this.infoOf(s));
  }

  async marginRequired(symbol: string, side: Side, volume: number): Promise<number> {
    const quote = await this.quote(symbol);
    const leverage = (this.trader?.leverageInCents ?? 100) / 100;
    return round2((volume * this.contractOf(symbol) * (side === 'buy' ? quote.ask : quote.bid)) / leverage);
  }

  subscribe(listener: VenueChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ------------------------------------------------------------------ helpers

  private infoOf(light: ProtoOALightSymbol): SymbolInfo {
    const id = int(light.symbolId);
    const d = this.details.get(id)!;
    const lot = int(d.lotSize) || 100;
    const step = toLots(int(d.stepVolume) || 1, lot);
    const base = this.assets.get(int(light.baseAssetId)) ?? '';
    const quote = this.assets.get(int(light.quoteAssetId)) ?? '';
    return {
      symbol: this.symbolNames.get(id) ?? String(id),
      description: light.description ?? light.symbolName ?? '',
      digits: d.digits,
      point: Number((10 ** -d.digits).toFixed(d.digits)),
      contractSize: lot / 100,
      minVolume: toLots(int(d.minVolume) || int(d.stepVolume) || 1, lot),
      maxVolume: d.maxVolume !== undefined ? toLots(d.maxVolume, lot) : 1e9,
      volumeStep: step,
      stopsLevel: d.slDistance ?? 0,
      marginCalcMode: 'forex',
      marginRate: 1,
      baseCurrency: base,
      marginCurrency: base,
      profitCurrency: quote,
      commissionPerLot: 0,
      swapLong: d.swapLong ?? 0,
      swapShort: d.swapShort ?? 0,
      swapRollover3Days: null,
    };
  }

  private contractOf(symbol: string): number {
    const light = this.symbolsByName.get(symbol);
    return light ? this.lotSize(int(light.symbolId)) / 100 : 1;
  }

  /** Lots as cents of units, checked against the symbol's step, minimum and maximum (nothing is sent otherwise). */
  private centsOf(symbol: string, symbolId: number, lots: number, wholePosition = false): number {
    const d = this.details.get(symbolId);
    const lot = int(d?.lotSize) || 100;
    const cents = toCents(lots, lot);
    const step = int(d?.stepVolume) || 1;
    const min = int(d?.minVolume) || step;
    const max = d?.maxVolume !== undefined ? int(d.maxVolume) : Number.MAX_SAFE_INTEGER;
    if (cents === null || cents <= 0 || (!wholePosition && cents % step !== 0)) {
      throw new VenueError('[INVALID_VOLUME]', `${lots} lots of ${symbol} is not a multiple of its volume step ${toLots(step, lot)} at cTrader`);
    }
    if (!wholePosition && (cents < min || cents > max)) {
      throw new VenueError('[INVALID_VOLUME]', `${lots} lots of ${symbol} is outside cTrader's volume limits ${toLots(min, lot)} to ${toLots(max, lot)}`);
    }
    return cents;
  }

  private symbolOf(symbol: string): ProtoOALightSymbol {
    const light = this.symbolsByName.get(symbol.replace(/\//g, ''));
    if (!light) throw new VenueError('[SYMBOL_NOT_FOUND]', `${symbol} is not traded at cTrader account ${this.login}`);
    return light;
  }

  private async subscribeSpots(ids: readonly number[]): Promise<void> {
    const wanted = ids.filter((id) => !this.subscribed.has(id));
    if (wanted.length === 0) return;
    for (const id of wanted) this.subscribed.add(id);
    try {
      await this.request(PT.SUBSCRIBE_SPOTS_REQ, { ctidTraderAccountId: this.ready(true), symbolId: wanted }, PT.SUBSCRIBE_SPOTS_RES);
    } catch (error) {
      for (const id of wanted) this.subscribed.delete(id);
      throw error;
    }
  }

  /** The order this account placed with client order id `tag` recently (ProtoOAOrderListReq); null: none. */
  private async findOrder(tag: string): Promise<ProtoOAOrder | null> {
    const now = this.clock().getTime();
    const res = await this.request<ProtoOAOrderListRes>(
      PT.ORDER_LIST_REQ,
      { ctidTraderAccountId: this.ready(true), fromTimestamp: now - LOOKUP_WINDOW_MS, toTimestamp: now + 60_000 },
      PT.ORDER_LIST_RES,
    );
    return (res.order ?? []).find((o) => o.clientOrderId === tag && (o.orderStatus === ORDER_STATUS.FILLED || o.orderStatus === ORDER_STATUS.ACCEPTED)) ?? null;
  }

  private async resultOf(order: ProtoOAOrder, clientOrderId: string, deal: ProtoOADeal | null): Promise<PlaceOrderResult> {
    const positionId = order.positionId !== undefined ? String(int(order.positionId)) : null;
    if (positionId) this.tags.set(positionId, clientOrderId);
    await this.sync();
    const symbolId = int(order.tradeData.symbolId);
    const volume = toLots(deal?.filledVolume ?? order.executedVolume ?? order.tradeData.volume, this.lotSize(symbolId));
    return {
      status: 'filled',
      orderId: String(int(order.orderId)),
      clientOrderId,
      positionId,
      price: deal?.executionPrice ?? order.executionPrice ?? 0,
      volume,
      time: iso(deal?.executionTimestamp ?? order.utcLastUpdateTimestamp ?? this.clock().getTime()),
    };
  }

  private remember(clientOrderId: string, result: PlaceOrderResult): PlaceOrderResult {
    this.placed.set(clientOrderId, result);
    return result;
  }

  private waitConnected(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    return new Promise<void>((resolve) => {
      const check = () => {
        if (this.connected || this.closed || Date.now() > until) resolve();
        else setTimeout(check, 50);
      };
      check();
    });
  }

  /** The account's ctid; [NOT_CONNECTED] while the link is down (`during`: while the session is being set up). */
  private ready(during = false): number {
    if ((!this.connected && !during) || this.ctid === null || !this.socket)
      throw new VenueError('[NOT_CONNECTED]', `cTrader account ${this.login} is not connected`);
    return this.ctid;
  }

  /** Runs `work`, a refusal answered as the port's VenueError. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw venueErrorOf(error);
    }
  }
}

/** The failure a frame answers, if it is one. */
const failureOf = (frame: Frame): CTraderFailure | null => {
  if (frame.payloadType === PT.ERROR_RES) {
    const error = frame.payload as ProtoOAErrorRes;
    return new CTraderFailure(error.errorCode, error.description ?? '');
  }
  if (frame.payloadType === PT.ORDER_ERROR_EVENT) {
    const error = frame.payload as ProtoOAOrderErrorEvent;
    return new CTraderFailure(error.errorCode, error.description ?? '');
  }
  if (frame.payloadType === PT.EXECUTION_EVENT) {
    const event = frame.payload as ProtoOAExecutionEvent;
    if (event.executionType === EXECUTION.ORDER_REJECTED) return new CTraderFailure(event.errorCode ?? 'INVALID_REQUEST', 'the order was rejected');
  }
  return null;
};

/** The execution event that says a market order (or a close) filled. */
const filledEvent = (frame: Frame): ProtoOAExecutionEvent | undefined => {
  if (frame.payloadType !== PT.EXECUTION_EVENT) return undefined;
  const event = frame.payload as ProtoOAExecutionEvent;
  return event.executionType === EXECUTION.ORDER_FILLED && event.order ? event : undefined;
};

const stripOrder = (order: PendingOrder & { positionId?: string | null }): PendingOrder => {
  const { positionId: _positionId, ...rest } = order;
  return rest;
};
