// The simulated venue's state as plain JSON data: what snapshot() exports, restore() reads and the
// journal hands a store to keep the venue durable.
import type { PositionData } from '../../../domain/positions/position.js';
import type { ClosedTrade, HistoryEntry, MarginMode, PendingOrder, PlaceOrderResult, Side, VenuePosition } from '../port.js';
import type { PriceFeedState } from './prices.js';
import type { SimulatedSymbol } from './symbols.js';

/**
 * An open position as the dealer keeps it: the shared position (domain/positions/position.ts) in the
 * venue's spelling, with `side` where the port says `orderType`. Saved as it is in sim_accounts, so
 * these member names are a persisted format too.
 */
export interface PositionRecord extends Omit<PositionData, 'positionId' | 'orderType'> {
  readonly id: string;
  readonly side: Side;
}

/** A pending order as the dealer keeps it: the port's pending order without its live price. */
export type OrderRecord = Omit<PendingOrder, 'kind' | 'currentPrice'>;

export interface AccountRecord {
  readonly login: string;
  readonly passwordHash: string;
  readonly currency: string;
  readonly leverage: number;
  readonly marginMode: MarginMode;
  readonly stopOutLevel: number;
  readonly balance: number;
  readonly credit: number;
  readonly sequence: number;
  readonly positions: readonly PositionRecord[];
  readonly orders: readonly OrderRecord[];
  readonly history: readonly HistoryEntry[];
  /**
   * The number (seq) of history[0] among every entry the account's history ever held: the ones before
   * are only in the venue's store (book.ts HISTORY_KEPT); absent: 0.
   */
  readonly historyFrom?: number;
  /** The last successful requests that carried a client id (book.ts REQUESTS_KEPT), for idempotency. */
  readonly requests: readonly RecordedRequest[];
  /** The number of requests[0] among every request the account recorded (the ones before are forgotten); absent: 0. */
  readonly requestsFrom?: number;
}

/** A request that succeeded under a client id; repeating the id returns `result` and changes nothing. */
export type RecordedRequest =
  | { readonly kind: 'place'; readonly id: string; readonly result: PlaceOrderResult }
  | { readonly kind: 'modify'; readonly id: string; readonly result: VenuePosition }
  | { readonly kind: 'close'; readonly id: string; readonly result: ClosedTrade }
  | { readonly kind: 'cancel'; readonly id: string; readonly result: PendingOrder };

export type RequestKind = RecordedRequest['kind'];
export type ResultOf<K extends RequestKind> = Extract<RecordedRequest, { kind: K }>['result'];

/** What changed since the last save: what a store must write to keep the venue durable. */
export interface SimulatedVenueJournal {
  readonly processedStep: number;
  readonly nextTicket: number;
  readonly prices: PriceFeedState;
  readonly accounts: readonly {
    /** The account without its history and requests, which only ever grow: their new entries follow. */
    readonly account: Omit<AccountRecord, 'history' | 'requests'>;
    readonly version: number;
    /** The number (seq) in the account's history of the first new entry. */
    readonly historyFrom: number;
    readonly newHistory: readonly HistoryEntry[];
    /** The number (seq) among the account's requests of the first new one. */
    readonly requestsFrom: number;
    readonly newRequests: readonly RecordedRequest[];
    /** The seq of the oldest request still kept, when it moved since the last save: the store forgets those before it. */
    readonly forgetRequestsBefore: number | null;
  }[];
}

export interface SimulatedVenueSnapshot {
  readonly version: 1;
  readonly name: string;
  /** The last feed step (second since the price origin) the dealer has processed. */
  readonly processedStep: number;
  readonly nextTicket: number;
  readonly symbols: readonly SimulatedSymbol[];
  readonly prices: PriceFeedState;
  readonly accounts: readonly AccountRecord[];
}
