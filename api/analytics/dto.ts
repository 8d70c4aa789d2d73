// DataCollectorRecordDTO from the data_collector_samples read model. PerformanceMetricsDTO is what
// domain/analytics/metrics.ts computes, as it is.
import { sampleId } from '../../domain/analytics/dataCollector.js';
import type { lastSamplesOf } from '../../projections/dataCollector/queries.js';

type SampleRow = Awaited<ReturnType<typeof lastSamplesOf>>[number];

export const toDataCollectorRecordDTO = (row: SampleRow) => {
  const time = new Date(row.time);
  return {
    id: sampleId(row.account_id, time.toISOString()),
    accountId: row.account_id,
    timestamp: time.getTime(),
    balance: row.balance,
    equity: row.equity,
    floatingPnL: row.floating_pnl,
    margin: row.margin,
  };
};
