// The retention of the audit log's request records (api_requests, projections/auditLogs/requests.ts):
// records older than API_REQUEST_RETENTION_DAYS are deleted by one leased background job
// (leasedRetention.ts), its last pass kept as `retention:api_requests`. The changes the pruned requests
// made stay in the audit log, without their request members.
import { pruneApiRequests } from '../projections/auditLogs/requests.js';
import { LeasedRetention, type RetentionDeps } from './leasedRetention.js';

export const API_REQUEST_RETENTION_LEASE = 'api-requests-retention';

export interface ApiRequestRetentionDeps extends RetentionDeps {
  /** API_REQUEST_RETENTION_DAYS. */
  readonly retentionDays: number;
}

export class ApiRequestRetention extends LeasedRetention {
  constructor(deps: ApiRequestRetentionDeps) {
    super(deps, {
      lease: API_REQUEST_RETENTION_LEASE,
      lastPass: 'retention:api_requests',
      retentionDays: deps.retentionDays,
      prune: pruneApiRequests,
      deletedLine: (deleted) => `audit: ${deleted} request records older than ${deps.retentionDays} days deleted`,
      failedLine: 'audit: the request records could not be pruned (tried again later)',
    });
  }
}
