// The desk the dealer's rules act through: the market, the venue's time, its ticket counter and
// the outbox of changes for the accounts' sessions. The venue holds that state; the rules in
// deals.ts, trading.ts and catchUp.ts take the desk instead of reaching into the venue.
import type { VenueChange } from '../port.js';
import type { Book } from './book.js';
import type { Market } from './market.js';

export interface Desk {
  readonly market: Market;
  /** The venue's time: the clock's, but never before the last second processed. */
  now(): number;
  /** Takes the next ticket: deal, order, position and balance operation ids share one counter. */
  ticket(): string;
  /** The ticket ticket() would take, without taking it. */
  peekTicket(): string;
  /** Numbers the change in the book's sequence and queues it for the book's sessions. */
  emit(book: Book, change: BookChange, at: number): void;
}

/** A change as the rules write it: the desk adds the login, the sequence number and the time. */
export type BookChange = DistributiveOmit<VenueChange, 'login' | 'sequence' | 'at'>;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
