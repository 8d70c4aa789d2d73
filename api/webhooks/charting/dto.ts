// ChartingDataDTO from the charting data read model.
import type { ChartingDataRow } from '../../../projections/chartingData/queries.js';

const iso = (value: Date | string): string => new Date(value).toISOString();

export const toChartingDataDTO = (row: ChartingDataRow) => ({
  id: row.id,
  accountId: row.account_id,
  featureId: row.feature_id,
  received: iso(row.received),
  format: row.format as 'JSON' | 'TEXT',
  message: row.message,
  alert: row.alert,
  status: row.status,
  attempts: row.attempts,
  retryUntil: row.retry_until ? iso(row.retry_until) : null,
  nextAttemptAt: row.status === 'RETRYING' && row.next_attempt_at ? iso(row.next_attempt_at) : null,
  outcomes: row.outcomes.map((o) => ({
    attempt: o.attempt,
    at: iso(o.at),
    kind: o.kind,
    leg: o.leg,
    positionId: o.positionId,
    volume: o.volume,
    code: o.code,
    message: o.message,
  })),
});
