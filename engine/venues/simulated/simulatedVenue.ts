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
//
// This class holds the venue's state and its entry points; the rules sit beside it, one concern a
// file: state.ts (the records), market.ts (symbols and prices), arithmetic.ts and valuation.ts
// (money), validation.ts, book.ts (one account), desk.ts (what the rules act through), deals.ts,
// trading.ts, catchUp.ts (each second), views.ts and connection.ts.
import type {
  BalanceOperation,
  HistoryEntry,
  MarginMode,
  OrderRequest,
  Quote,
  SymbolInfo,
  Venue,
  VenueChange,
  VenueConnection,
  VenueCredentials,
} from '../port.js';
import { exact } from './arithmetic.js';
import { Book, REQUESTS_KEPT } from './book.js';
import { evaluate } from './catchUp.js';
import { type ConnectionHost, hashPassword, openConnection } from './connection.js';
import { balanceOperation } from './deals.js';
import type { BookChange, Desk } from './desk.js';
import { DEFAULT_ACCOUNT_CURRENCY, Market } from './market.js';
import { PriceFeed } from './prices.js';
import type { SimulatedVenueJournal, SimulatedVenueSnapshot } from './state.js';
import { defaultSymbols, type SimulatedSymbol } from './symbols.js';
import { placeFromTerminal, type TerminalTradeResult } from './trading.js';
import { fail, iso } from './validation.js';
import { valuation } from './valuation.js';
import { quoteView } from './views.js';

export type { TerminalTradeResult } from './trading.js';
export type { AccountRecord, OrderRecord, PositionRecord, RecordedRequest, SimulatedVenueJournal, SimulatedVenueSnapshot } from './state.js';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

const DEFAULT_STOP_OUT_LEVEL = 50;
const FIRST_TICKET = 1_000_001;

export interface OpenAccountRequest {
  readonly login: string;
  readonly password: string;
  /** Initial deposit, in the account currency. */
  readonly balance: number;
  /** The account currency: one of accountCurrencies(); default USD. Fixed for the account's life. */
  readonly currency?: string;
  readonly leverage: number;
  readonly marginMode: MarginMode;
  /** Margin level in percent below which positions are closed; default 50 (venues.md §5.3). */
  readonly stopOutLevel?: number;
}

/** What a new account is opened with, besides its login and password. */
export type DemoTerms = Omit<OpenAccountRequest, 'login' | 'password'>;

export interface SimulatedVenueOptions {
  readonly clock: Clock;
  readonly seed: string | number;
  readonly name?: string;
  /** Step 0 of the price paths; default the clock's time, floored to the second. */
  readonly origin?: number;
  readonly symbols?: readonly SimulatedSymbol[];
  /** A change listener threw: the venue carries on; this hears about it. */
  readonly onListenerError?: (error: unknown) => void;
  /** How many of an account's last requests a repeat is answered from (default book.ts REQUESTS_KEPT). */
  readonly requestsKept?: number;
  readonly history?: KeptHistory;
}

export interface RestoreOptions {
  readonly clock: Clock;
  readonly onListenerError?: (error: unknown) => void;
  readonly requestsKept?: number;
  readonly history?: KeptHistory;
}

/**
 * A venue with a store keeps only the last `kept` saved history entries of each account in memory
 * (book.ts HISTORY_KEPT) and reads the older ones with `older` (the entries of a login whose seq is
 * below `before`, in order) when a history request reaches back to them. Without it every entry stays.
 */
export interface KeptHistory {
  readonly kept: number;
  readonly older: (login: string, before: number) => Promise<readonly HistoryEntry[]>;
}

export class SimulatedVenue implements Venue {
  readonly name: string;
  private readonly clock: Clock;
  private readonly market: Market;
  private readonly books = new Map<string, Book>();
  /** The books changed since their last save (Book.touch adds, markSaved takes out): what a journal writes. */
  private readonly changed = new Set<Book>();
  private readonly onListenerError: (error: unknown) => void;
  private processedStep: number;
  private nextTicket: number;
  private readonly outbox: { readonly book: Book; readonly change: VenueChange }[] = [];
  private flushing = false;
  /** What the rules act through: the market, the time, the ticket counter and the outbox. */
  private readonly desk: Desk;
  private readonly host: ConnectionHost;

  private readonly requestsKept: number;
  private readonly historyKept: number;

  private constructor(snapshot: SimulatedVenueSnapshot, options: RestoreOptions) {
    const { clock, onListenerError, requestsKept = REQUESTS_KEPT, history } = options;
    if (!(Number.isInteger(requestsKept) && requestsKept >= 1)) throw new Error(`requestsKept must be a positive integer, got ${String(requestsKept)}`);
    if (history && !(Number.isInteger(history.kept) && history.kept >= 1))
      throw new Error(`history.kept must be a positive integer, got ${String(history.kept)}`);
    this.historyKept = history?.kept ?? Number.POSITIVE_INFINITY;
    this.name = snapshot.name;
    this.clock = clock;
    this.requestsKept = requestsKept;
    this.onListenerError = onListenerError ?? (() => undefined);
    this.market = new Market(snapshot.symbols, snapshot.prices);
    this.processedStep = snapshot.processedStep;
    this.nextTicket = snapshot.nextTicket;
    for (const account of snapshot.accounts) this.books.set(account.login, new Book(account, this.changed, requestsKept, this.historyKept));
    this.desk = {
      market: this.market,
      now: () => this.now(),
      ticket: () => String(this.nextTicket++),
      peekTicket: () => String(this.nextTicket),
      emit: (book, change, at) => this.emit(book, change, at),
    };
    this.host = {
      name: this.name,
      desk: this.desk,
      account: (login) => this.books.get(login),
      open: (login, passwordHash, terms) => this.openBook(login, passwordHash, terms),
      transact: (work) => this.transact(work),
      catchUp: () => this.catchUp(),
      onListenerError: (error) => this.onListenerError(error),
      olderHistory: history?.older ?? null,
    };
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
    return new SimulatedVenue(snapshot, options);
  }

  /** A venue that continues exactly where `snapshot()` left off. */
  static restore(snapshot: SimulatedVenueSnapshot, options: RestoreOptions): SimulatedVenue {
    if (snapshot.version !== 1) throw new Error(`unknown simulated venue snapshot version ${String(snapshot.version)}`);
    return new SimulatedVenue(snapshot, options);
  }

  snapshot(): SimulatedVenueSnapshot {
    return {
      version: 1,
      name: this.name,
      processedStep: this.processedStep,
      nextTicket: this.nextTicket,
      symbols: this.market.catalogue(),
      prices: this.market.feed.state(this.processedStep),
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
    for (const book of this.changed) {
      if (!book.dirty) {
        this.changed.delete(book);
        continue;
      }
      // Requests forgotten before they were saved (a store down for a long time) are never written.
      const requestsFrom = Math.max(book.savedRequests, book.requestsKeptFrom);
      accounts.push({
        account: book.state(),
        version: book.version,
        historyFrom: book.savedHistory,
        newHistory: book.history.slice(book.savedHistory - book.historyKeptFrom),
        requestsFrom,
        newRequests: book.requestLog.slice(requestsFrom - book.requestsKeptFrom),
        forgetRequestsBefore: book.requestsKeptFrom > book.savedKeptFrom ? book.requestsKeptFrom : null,
      });
    }
    return { processedStep: this.processedStep, nextTicket: this.nextTicket, prices: this.market.feed.state(this.processedStep), accounts };
  }

  /** The store wrote `journal`: what it held is no longer new. Changes made since stay pending. */
  markSaved(journal: SimulatedVenueJournal): void {
    for (const entry of journal.accounts) {
      const book = this.books.get(entry.account.login);
      if (!book) continue;
      book.savedVersion = Math.max(book.savedVersion, entry.version);
      book.savedHistory = Math.max(book.savedHistory, entry.historyFrom + entry.newHistory.length);
      book.savedRequests = Math.max(book.savedRequests, entry.requestsFrom + entry.newRequests.length);
      book.savedKeptFrom = Math.max(book.savedKeptFrom, entry.forgetRequestsBefore ?? 0);
      book.forgetHistory();
      if (!book.dirty) this.changed.delete(book);
    }
  }

  /** The symbol catalogue with its price-path parameters. */
  catalogue(): readonly SimulatedSymbol[] {
    return this.market.catalogue();
  }

  // ------------------------------------------------------------------ the dealer's desk

  /** Opens an account with its initial deposit. Refuses a login already taken. */
  openAccount(request: OpenAccountRequest): void {
    this.transact(() => {
      if (this.books.has(request.login)) fail('[ACCOUNT_EXISTS]', `account ${request.login} already exists`);
      this.catchUp();
      const { login, password, ...terms } = request;
      this.openBook(login, hashPassword(this.name, login, password), terms);
    });
  }

  /** A new account's book with its initial deposit, inside an entry point caught up to the clock. */
  private openBook(login: string, passwordHash: string, terms: DemoTerms): Book {
    if (!(terms.leverage >= 1)) fail('[INVALID_REQUEST]', 'leverage must be at least 1');
    const currency = terms.currency ?? DEFAULT_ACCOUNT_CURRENCY;
    if (!this.market.accountCurrencies().includes(currency))
      fail('[INVALID_REQUEST]', `no account currency ${currency}: ${this.market.accountCurrencies().join(', ')}`);
    const book = new Book(
      {
        login,
        passwordHash,
        currency,
        leverage: terms.leverage,
        marginMode: terms.marginMode,
        stopOutLevel: terms.stopOutLevel ?? DEFAULT_STOP_OUT_LEVEL,
        credit: 0,
        balance: 0,
        sequence: 0,
        positions: [],
        orders: [],
        history: [],
        requests: [],
      },
      this.changed,
      this.requestsKept,
      this.historyKept,
    );
    book.touch();
    this.books.set(login, book);
    if (terms.balance !== 0) balanceOperation(this.desk, book, terms.balance, 'initial deposit');
    return book;
  }

  /** The currencies an account may be opened in (OpenAccountRequest.currency), the default first. */
  accountCurrencies(): readonly string[] {
    return this.market.accountCurrencies();
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
      const { equity, margin } = valuation(exact, this.market, book, this.now());
      if (amount < 0 && equity.minus(margin).lessThan(-amount)) {
        fail('[NOT_ENOUGH_MONEY]', `withdrawal of ${-amount} exceeds the free margin`);
      }
      return balanceOperation(this.desk, book, amount, comment);
    });
  }

  /**
   * A trade placed in the broker's terminal, outside the service: a market or pending order on the
   * account with the same checks as a connection's (market hours, volume, stops, margin), but no client
   * order id. The account's sessions hear of it like any change; one without a session finds it when it
   * reconciles. Tests and the simulated venue's operator route use it to stand for what a person does in
   * MetaTrader.
   */
  terminalTrade(login: string, request: OrderRequest): TerminalTradeResult {
    return this.transact(() => {
      const book = this.books.get(login) ?? fail('[ACCOUNT_NOT_FOUND]', `no account ${login}`);
      this.catchUp();
      return placeFromTerminal(this.desk, book, request);
    });
  }

  /**
   * A session for a login. With `opening`, a login the venue does not know yet is opened with those terms
   * and the password given by the connect (the password is hashed once for both).
   */
  connection(credentials: VenueCredentials, opening?: DemoTerms): VenueConnection {
    return openConnection(this.host, credentials, opening);
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
      this.market.spec(symbol);
      this.catchUp();
      this.market.feed.pin(symbol, this.now(), quote.bid, quote.ask);
      evaluate(this.desk, this.books.values(), this.now(), false);
      return quoteView(this.market, symbol, this.now());
    });
  }

  /** Lets a pinned symbol move again along its path, starting from the pinned bid. */
  releaseQuote(symbol: string): void {
    this.transact(() => {
      this.market.spec(symbol);
      this.catchUp();
      this.market.feed.release(symbol, this.now());
      evaluate(this.desk, this.books.values(), this.now(), false);
    });
  }

  /** Market data, no account needed; `time` defaults to now. */
  quote(symbol: string, time?: number): Quote {
    return quoteView(this.market, symbol, time ?? this.now());
  }

  symbols(): readonly SymbolInfo[] {
    return this.market.symbols();
  }

  // ------------------------------------------------------------------ time

  private now(): number {
    return Math.max(this.clock.now(), this.market.feed.timeOfStep(this.processedStep));
  }

  private catchUp(): void {
    this.processUntil(this.clock.now());
  }

  private processUntil(timeMs: number): void {
    const target = this.market.feed.stepAt(timeMs);
    while (this.processedStep < target) {
      if (!this.anyActive()) {
        this.processedStep = target;
        return;
      }
      const step = this.processedStep + 1;
      evaluate(this.desk, this.books.values(), this.market.feed.timeOfStep(step), true);
      this.processedStep = step;
    }
  }

  private anyActive(): boolean {
    for (const book of this.books.values()) if (book.active) return true;
    return false;
  }

  // ------------------------------------------------------------------ plumbing

  private emit(book: Book, change: BookChange, at: number): void {
    book.sequence += 1;
    book.touch();
    // Assigned onto a copy rather than spread and extended in one literal, which in Node 20's V8 makes a map per change.
    this.outbox.push({ book, change: Object.assign({}, change, { login: book.login, sequence: book.sequence, at: iso(at) }) as VenueChange });
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
