// DataCollectorRecordDTO from the data_collector_samples read model. PerformanceMetricsDTO is what
// domain/analytics/metrics.ts computes, as it is.
import type { lastSamplesOf } from '../../projections/dataCollector/queries.js';

type SampleRow = Awaited<ReturnType<typeof lastSamplesOf>>[number];

export const toDataCollectorRecordDTO = (row: SampleRow) => ({
  time: new Date(row.time).toISOString(),
  balance: row.balance,
  equity: row.equity,
  floatingPnl: row.floating_pnl,
  margin: row.margin,
});
