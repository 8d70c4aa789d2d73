// Charting data (spec: /webhooks/charting/accounts/{accountId}/data): every alert a charting webhook
// received, stream `chartingData-<dataId>`, with what it did. The reference document is silent on the
// shape; ours is ChartingDataDTO (api/webhooks/charting/schemas.ts).
import type { AlertFormat, ChartingAlert } from './message.js';

/** Where an alert stands: done, refused, waiting for its next attempt, or done in part. */
export type ChartingStatus = 'COMPLETED' | 'REFUSED' | 'RETRYING' | 'PARTIAL';

export type OutcomeKind = 'OPENED' | 'PLACED' | 'MODIFIED' | 'CLOSED' | 'REFUSED' | 'RETRYING' | 'GAVE_UP' | 'NOTHING_TO_DO';

/** One thing an attempt did, or could not do. */
export interface ChartingOutcome {
  readonly kind: OutcomeKind;
  /** The take-profit leg of an open (1, 2, ...), null otherwise. */
  readonly leg: number | null;
  /** The position or pending order opened, closed or modified. */
  readonly positionId: string | null;
  readonly volume: number | null;
  /** The broker's or our refusal code ([MARKET_CLOSED], [ALERT_UNREADABLE], ...). */
  readonly code: string | null;
  readonly message: string;
}

/** What is left to do: open legs not placed yet, positions a close has not closed yet. */
export interface ChartingWork {
  readonly openLegs: readonly number[];
  readonly closePositions: readonly string[];
}

export const NO_WORK: ChartingWork = { openLegs: [], closePositions: [] };

interface Base {
  readonly dataId: string;
  readonly accountId: string;
  readonly at: string;
}

export type ChartingDataEvent =
  | {
      type: 'ChartingAlertReceived';
      data: Base & {
        readonly projectId: string;
        readonly featureId: string;
        readonly format: AlertFormat;
        /** The body as received, cut to ALERT_LIMITS.text characters. */
        readonly message: string;
        /** The alert as read; null when it did not read. */
        readonly alert: ChartingAlert | null;
        /** Until when a refused open is retried (openRetry), null: not retried. */
        readonly retryUntil: string | null;
      };
    }
  | {
      type: 'ChartingAlertAttempted';
      data: Base & {
        /** 1 for the attempt at arrival, then 2, 3, ... */
        readonly attempt: number;
        readonly outcomes: readonly ChartingOutcome[];
        readonly status: ChartingStatus;
        readonly remaining: ChartingWork;
        /** When the next attempt is due (status RETRYING), else null. */
        readonly nextAttemptAt: string | null;
      };
    }
  | { type: 'ChartingDataDeleted'; data: Base };

export const chartingDataEventTypes = ['ChartingAlertReceived', 'ChartingAlertAttempted', 'ChartingDataDeleted'] as const;

export const CHARTING_DATA_STREAM_PREFIX = 'chartingData-';
export const chartingDataStream = (dataId: string): string => `${CHARTING_DATA_STREAM_PREFIX}${dataId}`;
