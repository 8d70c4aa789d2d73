// Events of copying (stream `copies-<copierId>`): for each master event the engine handled for this
// copier, what it did at the slave's venue or why it did nothing. One append per master event and
// copier, so "handled" is all or nothing; `source` says which event of the store caused it.
import type { CopyAction, MasterEvent, SkipReason, TradeAction } from './types.js';

/** The source type of what the engine does when a deferral falls due; `eventId` is the CopyDeferred event's id. */
export const DEFERRAL_SOURCE = 'Deferral';
/** The source type of what periodic management does (trailing stops, scheduled closes ...). */
export const MANAGEMENT_SOURCE = 'Management';

/** What caused the engine to act: an event of the store, or a retry of an earlier failed open. */
export interface CopySource {
  /** Id of the event in the store (master position event, copier event). */
  readonly eventId: string;
  /** Its `$all` position, `commit:prepare`. */
  readonly position: string;
  readonly type: string;
}

/** CopyFailed.retryUntil of an open resent with no end of its own: until the master closes the position. */
export const RETRY_WHILE_MASTER_HOLDS = '9999-12-31T23:59:59.999Z';

/** The end of a retry window in words, for logs. */
export const retryWindowInWords = (retryUntil: string): string =>
  retryUntil === RETRY_WHILE_MASTER_HOLDS ? 'while the master holds the position' : `until ${retryUntil}`;

/** What the slave's venue answered. */
export type ExecutionResult =
  | {
      readonly type: 'opened';
      readonly slavePositionId: string;
      readonly kind: 'position' | 'pendingOrder';
      readonly price: number;
      readonly volume: number;
      readonly time: string;
    }
  | { readonly type: 'modified'; readonly time: string }
  | {
      readonly type: 'closed';
      readonly volume: number;
      /** Profit + swap + commission of the closed volume, in the slave's currency. */
      readonly result: number;
      readonly closePrice: number;
      readonly time: string;
    }
  | { readonly type: 'cancelled'; readonly time: string };

interface Base {
  readonly copierId: string;
  readonly masterAccountId: string;
  readonly slaveAccountId: string;
  readonly source: CopySource;
  /** When the engine recorded it. */
  readonly at: string;
}

/** Reasons the engine adds to those of the copy rules (domain/copy/types.ts). */
export type EngineSkipReason =
  | 'SLAVE_NOT_CONNECTED'
  | 'SLAVE_TRADING_DISABLED'
  | 'SLAVE_ORDER_ALREADY_FILLED'
  | 'SLAVE_POSITION_ALREADY_CLOSED'
  | 'MASTER_DATA_UNAVAILABLE'
  | 'NETTING_INCREASE_NOT_COPIED'
  | 'OPEN_RETRY_EXPIRED'
  | 'MASTER_POSITION_GONE';

export type CopySkipReason = SkipReason | EngineSkipReason;

export type CopyEvent =
  | {
      type: 'CopyExecuted';
      data: Base & {
        action: TradeAction;
        result: ExecutionResult;
        masterEventAt: string | null;
        /** Set when a feature's rule did it (a trailing stop, a scheduled close): the feature type. */
        by?: string;
        /** A feature's own trade (a keep-alive trade, no copy): what it is, in words, for the log. */
        note?: string;
        /**
         * One unit of the slave's currency in the master's, as the engine read it for this decision
         * (MarketData.slaveToMasterRate); only when the two currencies differ and a quote linked them.
         * Earnings convert a follower's results to its provider's currency with it.
         */
        slaveToMasterRate?: number;
      };
    }
  | {
      type: 'CopyFailed';
      data: Base & {
        action: TradeAction;
        /** The venue's code, e.g. [NOT_ENOUGH_MONEY]. */
        code: string;
        message: string;
        /**
         * Set when the copier's openRetry resends the open until then (every 30 seconds);
         * RETRY_WHILE_MASTER_HOLDS: with no end (openRetryTimeoutInMinutes 0).
         */
        retryUntil: string | null;
        /** A feature's own trade (a keep-alive trade, no copy): what it is, in words, for the log. */
        note?: string;
      };
    }
  | {
      /** A rule holds the master event back: the engine decides it again at `until`. */
      type: 'CopyDeferred';
      data: Base & {
        masterPositionId: string;
        until: string;
        /** The feature type that held it back. */
        by: string;
        message: string;
        masterEvent: MasterEvent;
        /** Feature types that held this event back so far, `by` included: they do not again. */
        deferredBy: readonly string[];
        /** The master event's venue time, for latency figures. */
        masterEventAt: string | null;
      };
    }
  | {
      type: 'TradeSkipped';
      data: Base & {
        masterPositionId: string;
        reason: CopySkipReason;
        message: string;
        /** MONITOR_ONLY: what a live copier would have done. */
        wouldHave: readonly CopyAction[];
      };
    };

export type CopyEventType = CopyEvent['type'];

export const copyEventTypes: readonly CopyEventType[] = ['CopyExecuted', 'CopyFailed', 'CopyDeferred', 'TradeSkipped'];

export const COPIES_STREAM_PREFIX = 'copies-';
export const copiesStream = (copierId: string): string => `${COPIES_STREAM_PREFIX}${copierId}`;
