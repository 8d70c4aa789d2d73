// One account's book: the live, mutable form of an AccountRecord, with the sessions that hear its
// changes and the marks of what the store has saved.
import type { HistoryEntry, VenueChange } from '../port.js';
import type { AccountRecord, OrderRecord, PositionRecord, RecordedRequest } from './state.js';

export interface Session {
  deliver(change: VenueChange): void;
}

/** What an account is opened with and never changes. */
type AccountSettings = Pick<AccountRecord, 'login' | 'passwordHash' | 'currency' | 'leverage' | 'marginMode' | 'stopOutLevel' | 'credit'>;

export class Book {
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

  /**
   * `changed`, when given, holds every book whose version moved past its saved mark (the venue's set of
   * books a journal must write): a touch adds this book, so a journal need not walk every account.
   */
  constructor(
    record: AccountRecord,
    private readonly changed?: Set<Book>,
  ) {
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
    this.changed?.add(this);
  }

  get login(): string {
    return this.settings.login;
  }

  get active(): boolean {
    return this.positions.size > 0 || this.orders.size > 0;
  }

  export(): AccountRecord {
    return { ...this.state(), history: [...this.history], requests: [...this.requests.values()] };
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
    this.touch();
  }
}
