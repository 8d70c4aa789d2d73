// The retention of the data collector's samples (FeatureDataCollectorDTO.retentionDays, the reference's
// fixed system value DATA_COLLECTOR_RETENTION_DAYS): samples older than it, hidden from GET
// .../dataCollector already, are deleted from the read model by one leased background job
// (leasedRetention.ts), its last pass kept as `retention:data_collector_samples`. The AccountSampled
// events stay in the event store (its port deletes no single events): a rebuild of the read model brings
// old samples back until the next pass, hidden meanwhile. The marketplace read model's copy of the
// samples is pruned with them (its providers' scores read what performanceMetrics reads).
import { DATA_COLLECTOR_RETENTION_DAYS } from '../domain/analytics/dataCollector.js';
import { pruneSamples } from '../projections/dataCollector/queries.js';
import { pruneMarketplaceSamples } from '../projections/marketplace/queries.js';
import { LeasedRetention, type RetentionDeps } from './leasedRetention.js';

export const DATA_COLLECTOR_RETENTION_LEASE = 'data-collector-retention';

export class DataCollectorRetention extends LeasedRetention {
  constructor(deps: RetentionDeps) {
    super(deps, {
      lease: DATA_COLLECTOR_RETENTION_LEASE,
      lastPass: 'retention:data_collector_samples',
      retentionDays: DATA_COLLECTOR_RETENTION_DAYS,
      prune: async (db, before) => {
        const deleted = await pruneSamples(db, before);
        await pruneMarketplaceSamples(db, before);
        return deleted;
      },
      deletedLine: (deleted) => `data collector: ${deleted} samples older than ${DATA_COLLECTOR_RETENTION_DAYS} days deleted`,
      failedLine: 'data collector: old samples could not be deleted (tried again later)',
    });
  }
}
