// One account's book: the live, mutable form of an AccountRecord, with the sessions that hear its
// changes and the marks of what the store has saved.
import type { HistoryEntry, VenueChange } from '../port.js';
import type { AccountRecord, OrderRecord, PositionRecord, RecordedRequest } from './state.js';

export interface Session {
  deliver(change: VenueChange): void;
}

/**
 * How many of an account's recorded requests are answered the same when repeated: at least the last
 * REQUESTS_KEPT, in memory and in the store. A repeat comes from the engine doing a copy again after a
 * crash or a reconnect, a few requests back; an account that trades on for a year must not keep every
 * request it ever made (each one a map entry, a log entry and a row). Past the bound a repeated place is
 * still never placed twice while its position or pending order is open (Book.holds): it is refused.
 */
export const REQUESTS_KEPT = 1_000;

/**
 * How many of an account's history entries a venue with a store keeps in memory: at least the last
 * HISTORY_KEPT; the older ones are read from the store when a history request reaches back to them
 * (SimulatedVenueOptions.history). Every closed trade and balance operation is an entry, so an account
 * that trades on for a year would otherwise hold all of them for the life of the process.
 */
export const HISTORY_KEPT = 1_000;

/** When a history entry happened: a trade's close, an operation's time (ms). */
export const historyEntryTime = (entry: HistoryEntry): number => Date.parse(entry.kind === 'trade' ? entry.closeTime : entry.time);

/** Forgetting runs once the log holds this many more than it must keep, so it costs little per request. */
const slackOf = (kept: number): number => Math.max(1, Math.ceil(kept / 4));

/** What an account is opened with and never changes. */
type AccountSettings = Pick<AccountRecord, 'login' | 'passwordHash' | 'currency' | 'leverage' | 'marginMode' | 'stopOutLevel' | 'credit'>;

export class Book {
  readonly settings: AccountSettings;
  balance: number;
  sequence: number;
  readonly positions = new Map<string, PositionRecord>();
  readonly orders = new Map<string, OrderRecord>();
  /** The history entries kept in memory: every one without a store, else the last (HISTORY_KEPT) and the unsaved ones. */
  readonly history: HistoryEntry[];
  /** The number (seq) of history[0] among every entry the account's history ever held: those before are in the store only. */
  historyKeptFrom: number;
  /**
   * The latest time (ms) of an entry no longer in memory: a history request from after it needs no read
   * of the store. A restored book takes its first entry's (entries are added at the venue's time, which
   * does not go back); -Infinity while none is forgotten.
   */
  historyForgottenUntil: number;
  readonly requests = new Map<string, RecordedRequest>();
  readonly sessions = new Set<Session>();
  /** The recorded requests kept, in order, so the unsaved ones are a tail. */
  readonly requestLog: RecordedRequest[];
  /** The number (seq) of requestLog[0] among every request the account ever recorded: those before it are forgotten. */
  requestsKeptFrom: number;
  /** Raised by every change; the store has saved up to these marks (savedHistory: the seq of the first entry not saved yet). */
  version = 0;
  savedVersion = 0;
  savedHistory: number;
  /** The seq of the first request not saved yet. */
  savedRequests: number;
  /** The store has forgotten the requests before this seq. */
  savedKeptFrom: number;

  /**
   * `changed`, when given, holds every book whose version moved past its saved mark (the venue's set of
   * books a journal must write): a touch adds this book, so a journal need not walk every account.
   */
  constructor(
    record: AccountRecord,
    private readonly changed?: Set<Book>,
    private readonly requestsKept = REQUESTS_KEPT,
    private readonly historyKept = Number.POSITIVE_INFINITY,
  ) {
    const { login, passwordHash, currency, leverage, marginMode, stopOutLevel, credit } = record;
    this.settings = { login, passwordHash, currency, leverage, marginMode, stopOutLevel, credit };
    this.balance = record.balance;
    this.sequence = record.sequence;
    for (const position of record.positions) this.positions.set(position.id, position);
    for (const order of record.orders) this.orders.set(order.id, order);
    this.history = [...record.history];
    this.historyKeptFrom = record.historyFrom ?? 0;
    this.savedHistory = this.historyKeptFrom + this.history.length;
    const first = this.history[0];
    this.historyForgottenUntil = this.historyKeptFrom === 0 ? Number.NEGATIVE_INFINITY : first ? historyEntryTime(first) : Number.POSITIVE_INFINITY;
    this.requestLog = [...record.requests];
    this.requestsKeptFrom = record.requestsFrom ?? 0;
    this.savedRequests = this.requestsKeptFrom + this.requestLog.length;
    this.savedKeptFrom = this.requestsKeptFrom;
    for (const request of record.requests) this.requests.set(request.id, request);
    // With the same slack as record(), so a restored book is the book that was saved.
    this.forget(slackOf(requestsKept));
    this.forgetHistory();
  }

  get dirty(): boolean {
    return this.version !== this.savedVersion;
  }

  touch(): void {
    this.version += 1;
    this.changed?.add(this);
  }

  get login(): string {
    return this.settings.login;
  }

  get active(): boolean {
    return this.positions.size > 0 || this.orders.size > 0;
  }

  export(): AccountRecord {
    const record: AccountRecord = { ...this.state(), history: [...this.history], requests: [...this.requestLog] };
    if (this.historyKeptFrom !== 0) Object.assign(record, { historyFrom: this.historyKeptFrom });
    return this.requestsKeptFrom === 0 ? record : Object.assign(record, { requestsFrom: this.requestsKeptFrom });
  }

  /** The account without its history and requests (which only ever grow, and are saved as new entries). */
  state(): Omit<AccountRecord, 'history' | 'requests'> {
    return {
      ...this.settings,
      balance: this.balance,
      sequence: this.sequence,
      positions: [...this.positions.values()],
      orders: [...this.orders.values()],
    };
  }

  record(request: RecordedRequest): void {
    this.requests.set(request.id, request);
    this.requestLog.push(request);
    this.forget(slackOf(this.requestsKept));
    this.touch();
  }

  /** Whether an open position or pending order of the account was placed under this client order id. */
  holds(clientOrderId: string): boolean {
    for (const position of this.positions.values()) if (position.clientOrderId === clientOrderId) return true;
    for (const order of this.orders.values()) if (order.clientOrderId === clientOrderId) return true;
    return false;
  }

  /**
   * Forgets the oldest saved history entries once more than the kept number plus its slack are held
   * (the store has them; an entry not saved yet is never forgotten).
   */
  forgetHistory(): void {
    const excess = Math.min(this.history.length - this.historyKept, this.savedHistory - this.historyKeptFrom);
    if (excess <= slackOf(this.historyKept)) return;
    for (const entry of this.history.splice(0, excess)) this.historyForgottenUntil = Math.max(this.historyForgottenUntil, historyEntryTime(entry));
    this.historyKeptFrom += excess;
  }

  /** Forgets the oldest requests once more than the kept number plus `slack` are held. */
  private forget(slack: number): void {
    const excess = this.requestLog.length - this.requestsKept;
    if (excess <= slack) return;
    for (const request of this.requestLog.splice(0, excess)) this.requests.delete(request.id);
    this.requestsKeptFrom += excess;
  }
}
