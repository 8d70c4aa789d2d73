// The built-in simulated venue: a quote-driven dealer (B-book) with MetaTrader semantics
// (../shared/research/venues.md §5). Pure and in memory: time comes from the injected clock, prices
// from the seeded feed, and the whole state exports as a JSON snapshot and restores from one.
//
// Time moves in the feed's one-second steps. Every operation first catches the venue up to the
// clock; catching up walks each second in between and, per account, in this order: swaps at
// rollover, pending-order expiry, pending triggers, SL/TP, stop-out. So the outcome at a time does
// not depend on how often the venue was ticked.
//
// Money is exact: amounts in the account currency are decimals rounded half away from zero to
// cents, computed with decimal.js; volumes are whole numbers of 10^-8 lots. Prices are the doubles
// nearest their decimals, which compare exactly.
import { createHash, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Decimal } from 'decimal.js';
import {
  type AccountInformation,
  type BalanceOperation,
  type CancelReason,
  type ClosedTrade,
  type CloseReason,
  type HistoryEntry,
  isPendingOrderRequest,
  type MarginMode,
  type OpenPosition,
  type OrderRequest,
  type PendingOrder,
  type PendingOrderType,
  type PlaceOrderResult,
  type PositionChanges,
  type Quote,
  type Side,
  sideOf,
  type SymbolInfo,
  type Venue,
  type VenueChange,
  type VenueChangeListener,
  type VenueConnection,
  type VenueCredentials,
  type VenuePosition,
} from '../port.js';
import { approx, commissionFor, exact, Money, money, type Numbers } from './arithmetic.js';
import { type FeedQuote, PriceFeed } from './prices.js';
import type { AccountRecord, OrderRecord, PositionRecord, RecordedRequest, RequestKind, ResultOf, SimulatedVenueJournal, SimulatedVenueSnapshot } from './state.js';
import { defaultSymbols, isMarketOpen, type SimulatedSymbol, swapDaysAt } from './symbols.js';
import {
  checkedMagic,
  checkedPrice,
  checkedText,
  checkedTime,
  checkedVolume,
  checkPendingPrice,
  checkStops,
  fail,
  iso,
  lotsOf,
  optionalStop,
  volumeUnits,
} from './validation.js';

export type { AccountRecord, OrderRecord, PositionRecord, RecordedRequest, SimulatedVenueJournal, SimulatedVenueSnapshot } from './state.js';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

const ACCOUNT_CURRENCY = 'USD';
const DEFAULT_STOP_OUT_LEVEL = 50;
const FIRST_TICKET = 1_000_001;
/** Averaged netting open prices keep this many decimals beyond the symbol's digits. */
const AVERAGE_PRICE_EXTRA_DIGITS = 5;
/** The per-second stop-out screen runs in floats; within this factor of the level it rechecks exactly. */
const STOP_OUT_SCREEN_MARGIN = 1.02;
/** scrypt cost for the venue's password hashes: cheap, since the secret is a simulator's. */
const PASSWORD_HASH_COST = 1024;

export interface OpenAccountRequest {
  readonly login: string;
  readonly password: string;
  /** Initial deposit, in USD. */
  readonly balance: number;
  readonly leverage: number;
  readonly marginMode: MarginMode;
  /** Margin level in percent below which positions are closed; default 50 (venues.md §5.3). */
  readonly stopOutLevel?: number;
}

export interface SimulatedVenueOptions {
  readonly clock: Clock;
  readonly seed: string | number;
  readonly name?: string;
  /** Step 0 of the price paths; default the clock's time, floored to the second. */
  readonly origin?: number;
  readonly symbols?: readonly SimulatedSymbol[];
  /** A change listener threw: the venue carries on; this hears about it. */
  readonly onListenerError?: (error: unknown) => void;
}

export interface RestoreOptions {
  readonly clock: Clock;
  readonly onListenerError?: (error: unknown) => void;
}

/** What margin depends on. */
interface Exposure {
  readonly symbol: string;
  readonly side: Side;
  readonly volume: number;
}

interface Valuation<T> {
  readonly equity: T;
  readonly margin: T;
  readonly floating: T;
  /** Profit plus swap per position id. */
  readonly results: ReadonlyMap<string, T>;
}

// ---------------------------------------------------------------------------------------------
// Triggers

/** Buy limit: ask ≤ price; sell limit: bid ≥ price; buy stop: ask ≥ price; sell stop: bid ≤ price (venues.md §5.4). */
const isTriggered = (type: PendingOrderType, price: number, quote: FeedQuote): boolean => {
  switch (type) {
    case 'buyLimit':
      return quote.ask <= price;
    case 'sellLimit':
      return quote.bid >= price;
    case 'buyStop':
      return quote.ask >= price;
    case 'sellStop':
      return quote.bid <= price;
  }
};

/** A buy closes at the bid, a sell at the ask, so SL/TP watch that side (venues.md §5.4). */
const stopHit = (position: PositionRecord, quote: FeedQuote): CloseReason | null => {
  const { stopLoss, takeProfit } = position;
  if (position.side === 'buy') {
    if (stopLoss !== null && quote.bid <= stopLoss) return 'stopLoss';
    if (takeProfit !== null && quote.bid >= takeProfit) return 'takeProfit';
  } else {
    if (stopLoss !== null && quote.ask >= stopLoss) return 'stopLoss';
    if (takeProfit !== null && quote.ask <= takeProfit) return 'takeProfit';
  }
  return null;
};


const hashPassword = (venue: string, login: string, password: string): string => {
  const salt = createHash('sha256').update(`${venue}\u0000${login}`).digest();
  return scryptSync(password, salt, 32, { N: PASSWORD_HASH_COST }).toString('hex');
};

// ---------------------------------------------------------------------------------------------
// One account's book

interface Session {
  deliver(change: VenueChange): void;
}

/** What an account is opened with and never changes. */
type AccountSettings = Pick<AccountRecord, 'login' | 'passwordHash' | 'currency' | 'leverage' | 'marginMode' | 'stopOutLevel' | 'credit'>;

class Book {
  readonly settings: AccountSettings;
  balance: number;
  sequence: number;
  readonly positions = new Map<string, PositionRecord>();
  readonly orders = new Map<string, OrderRecord>();
  readonly history: HistoryEntry[];
  readonly requests = new Map<string, RecordedRequest>();
  readonly sessions = new Set<Session>();
  /** Every recorded request in order, so the unsaved ones are a tail. */
  readonly requestLog: RecordedRequest[];
  /** Raised by every change; the store has saved up to these marks. */
  version = 0;
  savedVersion = 0;
  savedHistory: number;
  savedRequests: number;

  constructor(record: AccountRecord) {
    const { login, passwordHash, currency, leverage, marginMode, stopOutLevel, credit } = record;
    this.settings = { login, passwordHash, currency, leverage, marginMode, stopOutLevel, credit };
    this.balance = record.balance;
    this.sequence = record.sequence;
    for (const position of record.positions) this.positions.set(position.id, position);
    for (const order of record.orders) this.orders.set(order.id, order);
    this.history = [...record.history];
    this.savedHistory = this.history.length;
    this.requestLog = [...record.requests];
    this.savedRequests = this.requestLog.length;
    for (const request of record.requests) this.requests.set(request.id, request);
  }

  get dirty(): boolean {
    return this.version !== this.savedVersion;
  }

  touch(): void {
    this.version += 1;
  }

  get login(): string {
    return this.settings.login;
  }

  get active(): boolean {
    return this.positions.size > 0 || this.orders.size > 0;
  }

  export(): AccountRecord {
    return {
      ...this.settings,
      balance: this.balance,
      sequence: this.sequence,
      positions: [...this.positions.values()],
      orders: [...this.orders.values()],
      history: [...this.history],
      requests: [...this.requests.values()],
    };
  }

  record(request: RecordedRequest): void {
    this.requests.set(request.id, request);
    this.requestLog.push(request);
    this.touch();
  }
}

/** What a deal does to the one position of its symbol (netting) or to none (hedging). */
type DealPlan =
  | { readonly kind: 'open'; readonly position: PositionRecord }
  | { readonly kind: 'increase'; readonly position: PositionRecord; readonly volume: number; readonly price: number; readonly commission: number }
  | { readonly kind: 'reduce'; readonly target: PositionRecord; readonly volume: number }
  | { readonly kind: 'reverse'; readonly target: PositionRecord; readonly position: PositionRecord };

interface DealRequest {
  readonly ticket: string;
  readonly symbol: string;
  readonly side: Side;
  readonly volume: number;
  readonly price: number;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  readonly clientOrderId: string | null;
}

// ---------------------------------------------------------------------------------------------

export class SimulatedVenue implements Venue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly symbolSpecs = new Map<string, SimulatedSymbol>();
  private readonly feed: PriceFeed;
  private readonly books = new Map<string, Book>();
  private readonly onListenerError: (error: unknown) => void;
  private processedStep: number;
  private nextTicket: number;
  private readonly outbox: { readonly book: Book; readonly change: VenueChange }[] = [];
  private flushing = false;

  private constructor(snapshot: SimulatedVenueSnapshot, clock: Clock, onListenerError?: (error: unknown) => void) {
    this.name = snapshot.name;
    this.clock = clock;
    this.onListenerError = onListenerError ?? (() => undefined);
    for (const symbol of snapshot.symbols) this.symbolSpecs.set(symbol.info.symbol, symbol);
    for (const symbol of snapshot.symbols) {
      for (const currency of [symbol.info.marginCurrency, symbol.info.profitCurrency]) {
        if (currency !== ACCOUNT_CURRENCY && !this.conversionSymbol(currency)) {
          throw new Error(`${symbol.info.symbol}: no symbol converts ${currency} to ${ACCOUNT_CURRENCY}`);
        }
      }
    }
    this.feed = new PriceFeed(snapshot.symbols, snapshot.prices);
    this.processedStep = snapshot.processedStep;
    this.nextTicket = snapshot.nextTicket;
    for (const account of snapshot.accounts) this.books.set(account.login, new Book(account));
  }

  static create(options: SimulatedVenueOptions): SimulatedVenue {
    const symbols = options.symbols ?? defaultSymbols;
    const prices = PriceFeed.create(symbols, options.seed, options.origin ?? options.clock.now()).state();
    const feed = new PriceFeed(symbols, prices);
    const snapshot: SimulatedVenueSnapshot = {
      version: 1,
      name: options.name ?? 'Simulated',
      processedStep: feed.stepAt(options.clock.now()),
      nextTicket: FIRST_TICKET,
      symbols,
      prices,
      accounts: [],
    };
    return new SimulatedVenue(snapshot, options.clock, options.onListenerError);
  }

  /** A venue that continues exactly where `snapshot()` left off. */
  static restore(snapshot: SimulatedVenueSnapshot, options: RestoreOptions): SimulatedVenue {
    if (snapshot.version !== 1) throw new Error(`unknown simulated venue snapshot version ${String(snapshot.version)}`);
    return new SimulatedVenue(snapshot, options.clock, options.onListenerError);
  }

  snapshot(): SimulatedVenueSnapshot {
    return {
      version: 1,
      name: this.name,
      processedStep: this.processedStep,
      nextTicket: this.nextTicket,
      symbols: [...this.symbolSpecs.values()],
      prices: this.feed.state(this.processedStep),
      accounts: [...this.books.values()].map((book) => book.export()),
    };
  }

  /**
   * What changed since the last markSaved, for a store that keeps the venue durable: the clock
   * marks always, and each changed account with its new history entries and requests. Nothing is
   * forgotten until markSaved confirms the write, so a failed save is simply taken again.
   */
  journal(): SimulatedVenueJournal {
    const accounts = [];
    for (const book of this.books.values()) {
      if (!book.dirty) continue;
      const { history: _history, requests: _requests, ...account } = book.export();
      accounts.push({
        account,
        version: book.version,
        historyFrom: book.savedHistory,
        newHistory: book.history.slice(book.savedHistory),
        requestsFrom: book.savedRequests,
        newRequests: book.requestLog.slice(book.savedRequests),
      });
    }
    return { processedStep: this.processedStep, nextTicket: this.nextTicket, prices: this.feed.state(this.processedStep), accounts };
  }

  /** The store wrote `journal`: what it held is no longer new. Changes made since stay pending. */
  markSaved(journal: SimulatedVenueJournal): void {
    for (const entry of journal.accounts) {
      const book = this.books.get(entry.account.login);
      if (!book) continue;
      book.savedVersion = Math.max(book.savedVersion, entry.version);
      book.savedHistory = Math.max(book.savedHistory, entry.historyFrom + entry.newHistory.length);
      book.savedRequests = Math.max(book.savedRequests, entry.requestsFrom + entry.newRequests.length);
    }
  }

  /** The symbol catalogue with its price-path parameters. */
  catalogue(): readonly SimulatedSymbol[] {
    return [...this.symbolSpecs.values()];
  }

  // ------------------------------------------------------------------ the dealer's desk

  /** Opens an account with its initial deposit. Refuses a login already taken. */
  openAccount(request: OpenAccountRequest): void {
    this.transact(() => {
      if (this.books.has(request.login)) fail('[ACCOUNT_EXISTS]', `account ${request.login} already exists`);
      this.catchUp();
      if (!(request.leverage >= 1)) fail('[INVALID_REQUEST]', 'leverage must be at least 1');
      const book = new Book({
        login: request.login,
        passwordHash: hashPassword(this.name, request.login, request.password),
        currency: ACCOUNT_CURRENCY,
        leverage: request.leverage,
        marginMode: request.marginMode,
        stopOutLevel: request.stopOutLevel ?? DEFAULT_STOP_OUT_LEVEL,
        credit: 0,
        balance: 0,
        sequence: 0,
        positions: [],
        orders: [],
        history: [],
        requests: [],
      });
      book.touch();
      this.books.set(request.login, book);
      if (request.balance !== 0) this.balanceOperation(book, request.balance, 'initial deposit');
    });
  }

  hasAccount(login: string): boolean {
    return this.books.has(login);
  }

  /** A deposit (positive) or a withdrawal (negative, at most the free margin). */
  deposit(login: string, amount: number, comment: string | null = null): BalanceOperation {
    return this.transact(() => {
      const book = this.books.get(login) ?? fail('[ACCOUNT_NOT_FOUND]', `no account ${login}`);
      if (!Number.isFinite(amount) || amount === 0) fail('[INVALID_REQUEST]', 'amount must be a non-zero number');
      this.catchUp();
      const { equity, margin } = this.valuation(exact, book, this.now());
      if (amount < 0 && equity.minus(margin).lessThan(-amount)) {
        fail('[NOT_ENOUGH_MONEY]', `withdrawal of ${-amount} exceeds the free margin`);
      }
      return this.balanceOperation(book, amount, comment);
    });
  }

  connection(credentials: VenueCredentials): VenueConnection {
    return this.openConnection(credentials);
  }

  /** Catches up to the clock. */
  tick(): void {
    this.transact(() => this.catchUp());
  }

  /** Processes every second up to `time`: expiry, pending triggers, SL/TP, swaps and stop-out. */
  advanceTo(time: number | string): void {
    const ms = typeof time === 'number' ? time : Date.parse(time);
    if (!Number.isFinite(ms)) throw new Error(`advanceTo needs a time, got ${String(time)}`);
    this.transact(() => this.processUntil(ms));
  }

  /** Fixes a symbol's quote now (a tick): orders and stops react at once. Ask defaults to bid + typical spread. */
  setQuote(symbol: string, quote: { readonly bid: number; readonly ask?: number }): Quote {
    return this.transact(() => {
      this.spec(symbol);
      this.catchUp();
      this.feed.pin(symbol, this.now(), quote.bid, quote.ask);
      this.evaluate(this.now(), false);
      return this.quoteView(symbol, this.now());
    });
  }

  /** Lets a pinned symbol move again along its path, starting from the pinned bid. */
  releaseQuote(symbol: string): void {
    this.transact(() => {
      this.spec(symbol);
      this.catchUp();
      this.feed.release(symbol, this.now());
      this.evaluate(this.now(), false);
    });
  }

  /** Market data, no account needed; `time` defaults to now. */
  quote(symbol: string, time?: number): Quote {
    this.spec(symbol);
    return this.quoteView(symbol, time ?? this.now());
  }

  symbols(): readonly SymbolInfo[] {
    return [...this.symbolSpecs.values()].map((symbol) => symbol.info);
  }

  // ------------------------------------------------------------------ connections

  private openConnection(credentials: VenueCredentials): VenueConnection {
    let connected = false;
    const listeners = new Set<VenueChangeListener>();
    const session: Session = {
      deliver: (change) => {
        for (const listener of [...listeners]) {
          try {
            listener(change);
          } catch (error) {
            this.onListenerError(error);
          }
        }
      },
    };
    const book = (): Book => {
      const found = connected ? this.books.get(credentials.login) : undefined;
      return found ?? fail('[NOT_CONNECTED]', `account ${credentials.login} is not connected`);
    };
    const run = <T>(work: (book: Book) => T): Promise<T> =>
      new Promise((resolve) => {
        resolve(
          this.transact(() => {
            const found = book();
            this.catchUp();
            return work(found);
          }),
        );
      });

    return {
      login: credentials.login,
      // The rule: the login must exist and the password must equal, byte for byte, the one the
      // account was opened with. Either failure is the same [INVALID_CREDENTIALS].
      connect: () =>
        new Promise<void>((resolve) => {
          this.transact(() => {
            const found = this.books.get(credentials.login);
            const given = Buffer.from(hashPassword(this.name, credentials.login, String(credentials.password)), 'hex');
            if (!found || !timingSafeEqual(given, Buffer.from(found.settings.passwordHash, 'hex'))) {
              fail('[INVALID_CREDENTIALS]', `login ${credentials.login} or its password is wrong`);
            }
            this.catchUp();
            connected = true;
            found?.sessions.add(session);
          });
          resolve();
        }),
      disconnect: async () => {
        connected = false;
        this.books.get(credentials.login)?.sessions.delete(session);
      },
      isConnected: () => connected,
      accountInformation: () => run((found) => this.information(found)),
      positions: () =>
        run((found) => {
          const now = this.now();
          return [
            ...[...found.positions.values()].map((position) => this.positionView(position, now)),
            ...[...found.orders.values()].map((order) => this.orderView(order, now)),
          ];
        }),
      history: (from, to) => run((found) => this.historyOf(found, from, to)),
      placeOrder: (request, clientOrderId) => run((found) => this.once(found, 'place', clientOrderId, () => this.place(found, request, clientOrderId))),
      modifyPosition: (id, changes, clientRequestId) =>
        run((found) => this.once(found, 'modify', clientRequestId, () => this.modify(found, id, changes))),
      closePosition: (id, volume, clientRequestId) =>
        run((found) => this.once(found, 'close', clientRequestId, () => this.close(found, id, volume))),
      cancelOrder: (id, clientRequestId) => run((found) => this.once(found, 'cancel', clientRequestId, () => this.cancel(found, id))),
      quote: (symbol) => run(() => this.quote(symbol)),
      symbolInfo: (symbol) => run(() => this.spec(symbol).info),
      symbols: () => run(() => this.symbols()),
      marginRequired: (symbol, side, volume) =>
        run((found) => {
          this.spec(symbol);
          return this.positionMargin(exact, found, { symbol, side, volume }, this.now()).toDecimalPlaces(2).toNumber();
        }),
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
  }

  // ------------------------------------------------------------------ trading

  /**
   * Runs a request at most once per client id: a repeat answers the first result and changes
   * nothing. Without an id (modify, close, cancel allow that) the request simply runs.
   */
  private once<K extends RequestKind>(book: Book, kind: K, id: string | undefined, work: () => ResultOf<K>): ResultOf<K> {
    if (id === undefined && kind !== 'place') return work();
    if (typeof id !== 'string' || id.length === 0) return fail('[INVALID_REQUEST]', 'a client request id must be a non-empty string');
    const earlier = book.requests.get(id);
    if (earlier) {
      if (earlier.kind !== kind) fail('[INVALID_REQUEST]', `client request id ${id} was already used for a ${earlier.kind} request`);
      return earlier.result as ResultOf<K>;
    }
    const result = work();
    book.record({ kind, id, result } as RecordedRequest);
    return result;
  }

  private place(book: Book, request: OrderRequest, clientOrderId: string): PlaceOrderResult {

    const spec = this.spec(request.symbol);
    const { info } = spec;
    const type: unknown = request.orderType;
    if (type !== 'buy' && type !== 'sell' && type !== 'buyLimit' && type !== 'sellLimit' && type !== 'buyStop' && type !== 'sellStop') {
      return fail('[INVALID_REQUEST]', `unknown order type ${String(type)}`);
    }
    const volume = checkedVolume(info, request.volume);
    const stopLoss = optionalStop(info, request.stopLoss, 'stop loss');
    const takeProfit = optionalStop(info, request.takeProfit, 'take profit');
    const comment = checkedText(request.comment, 'comment');
    const magicNumber = checkedMagic(request.magicNumber);
    const now = this.now();
    this.requireOpen(spec, now);
    const quote = this.feed.quoteAt(info.symbol, now);

    let result: PlaceOrderResult;
    if (!isPendingOrderRequest(request)) {
      const side = request.orderType;
      const price = side === 'buy' ? quote.ask : quote.bid;
      checkStops(info, side, side === 'buy' ? quote.bid : quote.ask, stopLoss, takeProfit);
      // The ticket is only taken once the deal passes, so a refusal leaves no trace.
      const ticket = String(this.nextTicket);
      const deal = { ticket, symbol: info.symbol, side, volume, price, stopLoss, takeProfit, comment, magicNumber, clientOrderId };
      const plan = this.planDeal(book, deal, now);
      if (!this.affordable(book, plan, now)) {
        fail('[NOT_ENOUGH_MONEY]', `not enough free margin for ${volume} lots of ${info.symbol}`);
      }
      this.ticket();
      const positionId = this.applyDeal(book, plan, now);
      result = { status: 'filled', orderId: ticket, clientOrderId, positionId, price, volume, time: iso(now) };
    } else {
      const openPrice = checkedPrice(info, request.openPrice, '[INVALID_PRICE]', 'open price');
      checkPendingPrice(info, request.orderType, openPrice, quote);
      checkStops(info, sideOf(request.orderType), openPrice, stopLoss, takeProfit);
      let expiry: string | null = null;
      if (request.expiry !== undefined && request.expiry !== null) {
        const expiryMs = checkedTime(request.expiry, 'expiry', '[INVALID_EXPIRATION]');
        if (expiryMs <= now) fail('[INVALID_EXPIRATION]', `expiry ${request.expiry} is not in the future`);
        expiry = iso(expiryMs);
      }
      const order: OrderRecord = {
        id: this.ticket(),
        symbol: info.symbol,
        orderType: request.orderType,
        volume,
        openPrice,
        openTime: iso(now),
        stopLoss,
        takeProfit,
        expiry,
        comment,
        magicNumber,
        clientOrderId,
      };
      book.orders.set(order.id, order);
      this.emit(book, { type: 'orderPlaced', order: this.orderView(order, now) }, now);
      result = { status: 'placed', orderId: order.id, clientOrderId, openPrice, volume, time: iso(now) };
    }
    return result;
  }

  private modify(book: Book, id: string, changes: PositionChanges): VenuePosition {
    const position = book.positions.get(id);
    if (position) return this.modifyPosition(book, position, changes);
    const order = book.orders.get(id);
    if (order) return this.modifyOrder(book, order, changes);
    return fail('[POSITION_NOT_FOUND]', `no open position or pending order ${id}`);
  }

  private modifyPosition(book: Book, position: PositionRecord, changes: PositionChanges): OpenPosition {
    const spec = this.spec(position.symbol);
    const { info } = spec;
    const now = this.now();
    this.requireOpen(spec, now);
    if (changes.openPrice !== undefined && checkedPrice(info, changes.openPrice, '[INVALID_PRICE]', 'open price') !== position.openPrice) {
      fail('[INVALID_PRICE]', `the open price of open position ${position.id} cannot change`);
    }
    let closeUnits = 0;
    if (changes.volume !== undefined) {
      const volume = checkedVolume(info, changes.volume);
      if (volume > position.volume) fail('[INVALID_VOLUME]', `position ${position.id} has ${position.volume} lots; a volume can only be lowered`);
      closeUnits = volumeUnits(position.volume) - volumeUnits(volume);
      if (closeUnits > 0) checkedVolume(info, lotsOf(closeUnits));
    }
    const stopLoss = changes.stopLoss === undefined ? position.stopLoss : optionalStop(info, changes.stopLoss, 'stop loss');
    const takeProfit = changes.takeProfit === undefined ? position.takeProfit : optionalStop(info, changes.takeProfit, 'take profit');
    const quote = this.feed.quoteAt(info.symbol, now);
    const reference = position.side === 'buy' ? quote.bid : quote.ask;
    // Only a changed stop is checked: one that was valid when set may sit closer to the market now.
    const changedStopLoss = stopLoss !== position.stopLoss ? stopLoss : null;
    const changedTakeProfit = takeProfit !== position.takeProfit ? takeProfit : null;
    checkStops(info, position.side, reference, changedStopLoss, changedTakeProfit);

    if (closeUnits > 0) this.closeVolume(book, position, lotsOf(closeUnits), 'manual', quote, now);
    const current = book.positions.get(position.id) ?? position;
    if (stopLoss === current.stopLoss && takeProfit === current.takeProfit) return this.positionView(current, now);
    const modified: PositionRecord = { ...current, stopLoss, takeProfit };
    book.positions.set(modified.id, modified);
    const view = this.positionView(modified, now);
    this.emit(book, { type: 'positionModified', position: view }, now);
    return view;
  }

  private modifyOrder(book: Book, order: OrderRecord, changes: PositionChanges): PendingOrder {
    const spec = this.spec(order.symbol);
    const { info } = spec;
    const now = this.now();
    this.requireOpen(spec, now);
    const volume = changes.volume === undefined ? order.volume : checkedVolume(info, changes.volume);
    const openPrice = changes.openPrice === undefined ? order.openPrice : checkedPrice(info, changes.openPrice, '[INVALID_PRICE]', 'open price');
    const stopLoss = changes.stopLoss === undefined ? order.stopLoss : optionalStop(info, changes.stopLoss, 'stop loss');
    const takeProfit = changes.takeProfit === undefined ? order.takeProfit : optionalStop(info, changes.takeProfit, 'take profit');
    if (openPrice !== order.openPrice) checkPendingPrice(info, order.orderType, openPrice, this.feed.quoteAt(info.symbol, now));
    checkStops(info, sideOf(order.orderType), openPrice, stopLoss, takeProfit);
    if (volume === order.volume && openPrice === order.openPrice && stopLoss === order.stopLoss && takeProfit === order.takeProfit) {
      return this.orderView(order, now);
    }
    const modified: OrderRecord = { ...order, volume, openPrice, stopLoss, takeProfit };
    book.orders.set(order.id, modified);
    const view = this.orderView(modified, now);
    this.emit(book, { type: 'orderModified', order: view }, now);
    return view;
  }

  private close(book: Book, id: string, volume: number | undefined): ClosedTrade {
    const position = book.positions.get(id) ?? fail('[POSITION_NOT_FOUND]', `no open position ${id}`);
    const spec = this.spec(position.symbol);
    const now = this.now();
    this.requireOpen(spec, now);
    let lots = position.volume;
    if (volume !== undefined) {
      lots = checkedVolume(spec.info, volume);
      if (lots > position.volume) fail('[INVALID_VOLUME]', `position ${id} has only ${position.volume} lots`);
      const remaining = volumeUnits(position.volume) - volumeUnits(lots);
      if (remaining > 0 && remaining < volumeUnits(spec.info.minVolume)) {
        fail('[INVALID_VOLUME]', `closing ${lots} lots would leave less than ${spec.info.minVolume} lots open`);
      }
    }
    return this.closeVolume(book, position, lots, 'manual', this.feed.quoteAt(position.symbol, now), now);
  }

  private cancel(book: Book, id: string): PendingOrder {
    const order = book.orders.get(id) ?? fail('[ORDER_NOT_FOUND]', `no pending order ${id}`);
    return this.cancelOrder(book, order, 'manual', this.now());
  }

  // ------------------------------------------------------------------ deals

  /** Hedging: every deal opens its own position. Netting: it adds to, reduces or reverses the symbol's one position. */
  private planDeal(book: Book, deal: DealRequest, now: number): DealPlan {
    const { info } = this.spec(deal.symbol);
    const fresh = (volume: number): PositionRecord => ({
      id: deal.ticket,
      symbol: deal.symbol,
      side: deal.side,
      volume,
      openPrice: deal.price,
      openTime: iso(now),
      stopLoss: deal.stopLoss,
      takeProfit: deal.takeProfit,
      swap: 0,
      commission: commissionFor(info, volume),
      comment: deal.comment,
      magicNumber: deal.magicNumber,
      clientOrderId: deal.clientOrderId,
    });
    const existing = book.settings.marginMode === 'netting' ? [...book.positions.values()].find((p) => p.symbol === deal.symbol) : undefined;
    if (!existing) return { kind: 'open', position: fresh(deal.volume) };
    const held = volumeUnits(existing.volume);
    const dealt = volumeUnits(deal.volume);
    if (existing.side === deal.side) {
      const volume = new Money(existing.volume).plus(deal.volume);
      const average = new Money(existing.openPrice).times(existing.volume).plus(new Money(deal.price).times(deal.volume)).dividedBy(volume);
      const commission = commissionFor(info, deal.volume);
      const position: PositionRecord = {
        ...existing,
        volume: lotsOf(held + dealt),
        openPrice: average.toDecimalPlaces(info.digits + AVERAGE_PRICE_EXTRA_DIGITS).toNumber(),
        stopLoss: deal.stopLoss ?? existing.stopLoss,
        takeProfit: deal.takeProfit ?? existing.takeProfit,
        commission: money(existing.commission, commission),
      };
      return { kind: 'increase', position, volume: deal.volume, price: deal.price, commission };
    }
    if (dealt <= held) return { kind: 'reduce', target: existing, volume: deal.volume };
    return { kind: 'reverse', target: existing, position: fresh(lotsOf(dealt - held)) };
  }

  /**
   * A deal that raises the used margin needs equity, less its commission, to cover the margin
   * after it. Deals that do not raise it (closing, hedging the larger leg) always pass.
   */
  private affordable(book: Book, plan: DealPlan, now: number): boolean {
    const before = [...book.positions.values()];
    let after: Exposure[];
    let commission = 0;
    switch (plan.kind) {
      case 'open':
        after = [...before, plan.position];
        commission = plan.position.commission;
        break;
      case 'increase':
        after = before.map((p) => (p.id === plan.position.id ? plan.position : p));
        commission = plan.commission;
        break;
      case 'reduce':
        after = before.map((p) => (p.id === plan.target.id ? { ...p, volume: lotsOf(volumeUnits(p.volume) - volumeUnits(plan.volume)) } : p));
        break;
      case 'reverse':
        after = [...before.filter((p) => p.id !== plan.target.id), plan.position];
        commission = plan.position.commission;
        break;
    }
    const { equity, margin } = this.valuation(exact, book, now);
    const marginAfter = this.usedMargin(exact, book, after, now);
    return marginAfter.lessThanOrEqualTo(margin) || equity.plus(commission).greaterThanOrEqualTo(marginAfter);
  }

  /** Returns the id of the position the deal left open on the symbol, or null. */
  private applyDeal(book: Book, plan: DealPlan, now: number): string | null {
    switch (plan.kind) {
      case 'open':
        return this.openPosition(book, plan.position, now);
      case 'increase': {
        book.balance = money(book.balance, plan.commission);
        book.positions.set(plan.position.id, plan.position);
        const position = this.positionView(plan.position, now);
        this.emit(book, { type: 'positionIncreased', position, volume: plan.volume, price: plan.price }, now);
        return plan.position.id;
      }
      case 'reduce': {
        this.closeVolume(book, plan.target, plan.volume, 'manual', this.feed.quoteAt(plan.target.symbol, now), now);
        return book.positions.has(plan.target.id) ? plan.target.id : null;
      }
      case 'reverse':
        this.closeVolume(book, plan.target, plan.target.volume, 'manual', this.feed.quoteAt(plan.target.symbol, now), now);
        return this.openPosition(book, plan.position, now);
    }
  }

  /** Commission is charged in full when volume opens (the round turn), from the balance. */
  private openPosition(book: Book, position: PositionRecord, now: number): string {
    book.balance = money(book.balance, position.commission);
    book.positions.set(position.id, position);
    this.emit(book, { type: 'positionOpened', position: this.positionView(position, now) }, now);
    return position.id;
  }

  /**
   * Closes `lots` of a position at the market's close side. A partial close keeps the id and
   * takes its share of the swap and the commission; the balance receives profit plus swap.
   */
  private closeVolume(book: Book, position: PositionRecord, lots: number, reason: CloseReason, quote: FeedQuote, now: number): ClosedTrade {
    const full = volumeUnits(lots) === volumeUnits(position.volume);
    const share = (amount: number): number =>
      full ? amount : new Money(amount).times(lots).dividedBy(position.volume).toDecimalPlaces(2).toNumber();
    const swap = share(position.swap);
    const commission = share(position.commission);
    const profit = this.profit(exact, { ...position, volume: lots }, quote, now).toNumber();
    const trade: ClosedTrade = {
      kind: 'trade',
      id: this.ticket(),
      positionId: position.id,
      symbol: position.symbol,
      orderType: position.side,
      volume: lots,
      openPrice: position.openPrice,
      openTime: position.openTime,
      closePrice: position.side === 'buy' ? quote.bid : quote.ask,
      closeTime: iso(now),
      profit,
      swap,
      commission,
      reason,
      comment: position.comment,
      magicNumber: position.magicNumber,
      clientOrderId: position.clientOrderId,
    };
    book.balance = money(book.balance, profit, swap);
    book.history.push(trade);
    if (full) {
      book.positions.delete(position.id);
      this.emit(book, { type: 'positionClosed', trade }, now);
    } else {
      const rest: PositionRecord = {
        ...position,
        volume: lotsOf(volumeUnits(position.volume) - volumeUnits(lots)),
        swap: money(position.swap, -swap),
        commission: money(position.commission, -commission),
      };
      book.positions.set(rest.id, rest);
      this.emit(book, { type: 'positionPartiallyClosed', position: this.positionView(rest, now), trade }, now);
    }
    return trade;
  }

  private cancelOrder(book: Book, order: OrderRecord, reason: CancelReason, now: number): PendingOrder {
    book.orders.delete(order.id);
    const view = this.orderView(order, now);
    this.emit(book, { type: 'orderCancelled', order: view, reason }, now);
    return view;
  }

  private balanceOperation(book: Book, amount: number, comment: string | null): BalanceOperation {
    const now = this.now();
    const operation: BalanceOperation = { kind: 'balance', id: this.ticket(), time: iso(now), amount: money(amount), comment };
    book.balance = money(book.balance, operation.amount);
    book.history.push(operation);
    this.emit(book, { type: 'balanceChanged', operation }, now);
    return operation;
  }

  // ------------------------------------------------------------------ time

  private now(): number {
    return Math.max(this.clock.now(), this.feed.timeOfStep(this.processedStep));
  }

  private catchUp(): void {
    this.processUntil(this.clock.now());
  }

  private processUntil(timeMs: number): void {
    const target = this.feed.stepAt(timeMs);
    while (this.processedStep < target) {
      if (!this.anyActive()) {
        this.processedStep = target;
        return;
      }
      const step = this.processedStep + 1;
      this.evaluate(this.feed.timeOfStep(step), true);
      this.processedStep = step;
    }
  }

  private anyActive(): boolean {
    for (const book of this.books.values()) if (book.active) return true;
    return false;
  }

  private evaluate(time: number, withRollover: boolean): void {
    for (const book of this.books.values()) {
      if (!book.active) continue;
      if (withRollover) this.chargeSwaps(book, time);
      for (const order of [...book.orders.values()]) {
        if (order.expiry !== null && Date.parse(order.expiry) <= time) this.cancelOrder(book, order, 'expired', time);
      }
      for (const order of [...book.orders.values()]) {
        const spec = this.spec(order.symbol);
        if (!isMarketOpen(spec.schedule, time)) continue;
        const quote = this.feed.quoteAt(order.symbol, time);
        if (isTriggered(order.orderType, order.openPrice, quote)) this.fill(book, order, quote, time);
      }
      for (const position of [...book.positions.values()]) {
        if (!isMarketOpen(this.spec(position.symbol).schedule, time)) continue;
        const quote = this.feed.quoteAt(position.symbol, time);
        const reason = stopHit(position, quote);
        if (reason) this.closeVolume(book, position, position.volume, reason, quote, time);
      }
      this.stopOut(book, time);
    }
  }

  /** A triggered pending order fills at the market; without the margin it is cancelled (MT5 "no money"). */
  private fill(book: Book, order: OrderRecord, quote: FeedQuote, now: number): void {
    const side = sideOf(order.orderType);
    const price = side === 'buy' ? quote.ask : quote.bid;
    const plan = this.planDeal(
      book,
      {
        ticket: order.id,
        symbol: order.symbol,
        side,
        volume: order.volume,
        price,
        stopLoss: order.stopLoss,
        takeProfit: order.takeProfit,
        comment: order.comment,
        magicNumber: order.magicNumber,
        clientOrderId: order.clientOrderId,
      },
      now,
    );
    if (!this.affordable(book, plan, now)) {
      this.cancelOrder(book, order, 'notEnoughMoney', now);
      return;
    }
    book.orders.delete(order.id);
    this.emit(book, { type: 'orderFilled', order: this.orderView(order, now), price }, now);
    this.applyDeal(book, plan, now);
  }

  /** Swap in points per lot per day, converted to the account currency, added to the position. */
  private chargeSwaps(book: Book, time: number): void {
    for (const position of [...book.positions.values()]) {
      const spec = this.spec(position.symbol);
      const days = swapDaysAt(spec, time);
      if (days === 0) continue;
      const { info } = spec;
      const points = position.side === 'buy' ? info.swapLong : info.swapShort;
      const amount = new Money(points)
        .times(info.point)
        .times(info.contractSize)
        .times(position.volume)
        .times(days)
        .times(this.rate(exact, info.profitCurrency, time))
        .toDecimalPlaces(2)
        .toNumber();
      if (amount !== 0) {
        book.positions.set(position.id, { ...position, swap: money(position.swap, amount) });
        book.touch();
      }
    }
  }

  /**
   * While the margin level is under the stop-out level, close the position with the largest loss
   * first (venues.md §5.3). A float screen keeps the per-second check cheap.
   */
  private stopOut(book: Book, time: number): void {
    if (book.positions.size === 0) return;
    const screen = this.valuation(approx, book, time);
    if (screen.margin <= 0 || screen.equity * 100 >= screen.margin * book.settings.stopOutLevel * STOP_OUT_SCREEN_MARGIN) return;
    for (;;) {
      const { equity, margin, results } = this.valuation(exact, book, time);
      if (margin.isZero() || equity.times(100).greaterThanOrEqualTo(margin.times(book.settings.stopOutLevel))) return;
      let worst: PositionRecord | undefined;
      let worstResult: Decimal | undefined;
      for (const position of book.positions.values()) {
        const result = results.get(position.id);
        if (result && (!worstResult || result.lessThan(worstResult))) {
          worst = position;
          worstResult = result;
        }
      }
      if (!worst) return;
      this.closeVolume(book, worst, worst.volume, 'stopOut', this.feed.quoteAt(worst.symbol, time), time);
    }
  }

  // ------------------------------------------------------------------ money (venues.md §5.3)

  private conversionSymbol(currency: string): { readonly symbol: string; readonly inverse: boolean } | null {
    if (currency === ACCOUNT_CURRENCY) return null;
    if (this.symbolSpecs.has(`${currency}${ACCOUNT_CURRENCY}`)) return { symbol: `${currency}${ACCOUNT_CURRENCY}`, inverse: false };
    if (this.symbolSpecs.has(`${ACCOUNT_CURRENCY}${currency}`)) return { symbol: `${ACCOUNT_CURRENCY}${currency}`, inverse: true };
    return null;
  }

  /** Account-currency value of one unit of `currency`, at the mid of the pair that links them. */
  private rate<T>(n: Numbers<T>, currency: string, time: number): T {
    if (currency === ACCOUNT_CURRENCY) return n.of(1);
    const pair = this.conversionSymbol(currency);
    if (!pair) throw new Error(`no conversion for ${currency}`);
    const quote = this.feed.quoteAt(pair.symbol, time);
    const mid = n.div(n.add(n.of(quote.bid), n.of(quote.ask)), n.of(2));
    return pair.inverse ? n.div(n.of(1), mid) : mid;
  }

  /** (close − open) × contract × lots for a buy, (open − close) × ... for a sell, in the profit currency, converted. */
  private profit<T>(n: Numbers<T>, position: Exposure & { readonly openPrice: number }, quote: FeedQuote, time: number): T {
    const { info } = this.spec(position.symbol);
    const difference =
      position.side === 'buy' ? n.sub(n.of(quote.bid), n.of(position.openPrice)) : n.sub(n.of(position.openPrice), n.of(quote.ask));
    const inProfitCurrency = n.mul(n.mul(difference, n.of(info.contractSize)), n.of(position.volume));
    return n.cents(n.mul(inProfitCurrency, this.rate(n, info.profitCurrency, time)));
  }

  /** One position's margin in the account currency, by the symbol's MQL5 calculation mode. */
  private positionMargin<T>(n: Numbers<T>, book: Book, exposure: Exposure, time: number): T {
    const { info } = this.spec(exposure.symbol);
    const quote = this.feed.quoteAt(exposure.symbol, time);
    const marketPrice = n.of(exposure.side === 'buy' ? quote.ask : quote.bid);
    const nominal = n.mul(n.of(exposure.volume), n.of(info.contractSize));
    const leverage = n.of(book.settings.leverage);
    let margin: T;
    switch (info.marginCalcMode) {
      case 'forex':
        margin = n.div(nominal, leverage);
        break;
      case 'forexNoLeverage':
        margin = nominal;
        break;
      case 'cfd':
        margin = n.mul(nominal, marketPrice);
        break;
      case 'cfdLeverage':
        margin = n.div(n.mul(nominal, marketPrice), leverage);
        break;
    }
    return n.mul(n.mul(margin, n.of(info.marginRate)), this.rate(n, info.marginCurrency, time));
  }

  /** Hedged legs of a symbol need only the margin of the larger leg (MT5's "larger leg" option, venues.md §5.3). */
  private usedMargin<T>(n: Numbers<T>, book: Book, exposures: readonly Exposure[], time: number): T {
    const legs = new Map<string, { buy: T; sell: T }>();
    for (const exposure of exposures) {
      const leg = legs.get(exposure.symbol) ?? { buy: n.of(0), sell: n.of(0) };
      leg[exposure.side] = n.add(leg[exposure.side], this.positionMargin(n, book, exposure, time));
      legs.set(exposure.symbol, leg);
    }
    let total = n.of(0);
    for (const leg of legs.values()) total = n.add(total, n.max(leg.buy, leg.sell));
    return n.cents(total);
  }

  private valuation<T>(n: Numbers<T>, book: Book, time: number): Valuation<T> {
    const results = new Map<string, T>();
    let floating = n.of(0);
    for (const position of book.positions.values()) {
      const result = n.add(this.profit(n, position, this.feed.quoteAt(position.symbol, time), time), n.of(position.swap));
      results.set(position.id, result);
      floating = n.add(floating, result);
    }
    const margin = this.usedMargin(n, book, [...book.positions.values()], time);
    const equity = n.add(n.add(n.of(book.balance), n.of(book.settings.credit)), floating);
    return { equity, margin, floating, results };
  }

  // ------------------------------------------------------------------ views

  private information(book: Book): AccountInformation {
    const now = this.now();
    const { equity, margin, floating } = this.valuation(exact, book, now);
    return {
      login: book.login,
      currency: book.settings.currency,
      leverage: book.settings.leverage,
      marginMode: book.settings.marginMode,
      balance: book.balance,
      credit: book.settings.credit,
      equity: equity.toNumber(),
      margin: margin.toNumber(),
      freeMargin: equity.minus(margin).toNumber(),
      marginLevel: margin.isZero() ? null : equity.dividedBy(margin).times(100).toDecimalPlaces(2).toNumber(),
      stopOutLevel: book.settings.stopOutLevel,
      unrealizedProfit: floating.toNumber(),
      openPositionsCount: book.positions.size,
      pendingOrdersCount: book.orders.size,
      connected: book.sessions.size > 0,
      environment: 'DEMO',
    };
  }

  private positionView(position: PositionRecord, now: number): OpenPosition {
    const quote = this.feed.quoteAt(position.symbol, now);
    return {
      kind: 'position',
      id: position.id,
      symbol: position.symbol,
      orderType: position.side,
      volume: position.volume,
      openPrice: position.openPrice,
      openTime: position.openTime,
      stopLoss: position.stopLoss,
      takeProfit: position.takeProfit,
      currentPrice: position.side === 'buy' ? quote.bid : quote.ask,
      profit: this.profit(exact, position, quote, now).toNumber(),
      swap: position.swap,
      commission: position.commission,
      comment: position.comment,
      magicNumber: position.magicNumber,
      clientOrderId: position.clientOrderId,
    };
  }

  private orderView(order: OrderRecord, now: number): PendingOrder {
    const quote = this.feed.quoteAt(order.symbol, now);
    return {
      kind: 'order',
      id: order.id,
      symbol: order.symbol,
      orderType: order.orderType,
      volume: order.volume,
      openPrice: order.openPrice,
      openTime: order.openTime,
      stopLoss: order.stopLoss,
      takeProfit: order.takeProfit,
      expiry: order.expiry,
      currentPrice: sideOf(order.orderType) === 'buy' ? quote.ask : quote.bid,
      comment: order.comment,
      magicNumber: order.magicNumber,
      clientOrderId: order.clientOrderId,
    };
  }

  private historyOf(book: Book, from: string, to: string): readonly HistoryEntry[] {
    const start = checkedTime(from, 'from', '[INVALID_REQUEST]');
    const end = checkedTime(to, 'to', '[INVALID_REQUEST]');
    return book.history.filter((entry) => {
      const at = Date.parse(entry.kind === 'trade' ? entry.closeTime : entry.time);
      return at >= start && at <= end;
    });
  }

  private quoteView(symbol: string, time: number): Quote {
    const quote = this.feed.quoteAt(symbol, time);
    return { symbol, bid: quote.bid, ask: quote.ask, time: iso(quote.time) };
  }

  // ------------------------------------------------------------------ plumbing

  private spec(symbol: string): SimulatedSymbol {
    return this.symbolSpecs.get(symbol) ?? fail('[SYMBOL_NOT_FOUND]', `no symbol ${String(symbol)}`);
  }

  private requireOpen(spec: SimulatedSymbol, time: number): void {
    if (!isMarketOpen(spec.schedule, time)) fail('[MARKET_CLOSED]', `${spec.info.symbol} is closed at ${iso(time)}`);
  }

  private ticket(): string {
    return String(this.nextTicket++);
  }

  private emit(book: Book, change: DistributiveOmit<VenueChange, 'login' | 'sequence' | 'at'>, at: number): void {
    book.sequence += 1;
    book.touch();
    this.outbox.push({ book, change: { ...change, login: book.login, sequence: book.sequence, at: iso(at) } as VenueChange });
  }

  /**
   * Runs one entry point, then delivers the changes it caused, in order. Delivery waits until the
   * state is consistent, so a listener may call back into the venue (the copy engine does).
   */
  private transact<T>(work: () => T): T {
    try {
      return work();
    } finally {
      this.flush();
    }
  }

  private flush(): void {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (let next = this.outbox.shift(); next; next = this.outbox.shift()) {
        for (const session of [...next.book.sessions]) session.deliver(next.change);
      }
    } finally {
      this.flushing = false;
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;