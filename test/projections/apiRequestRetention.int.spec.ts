// The retention of the audit log's request records (app/apiRequestRetention.ts) against a real
// PostgreSQL: records older than API_REQUEST_RETENTION_DAYS go, newer ones stay; of two instances one
// holds the lease and prunes, and a pass by one is not repeated by the other before the interval.
import { expect } from 'chai';
import { sql } from 'kysely';
import { API_REQUEST_RETENTION_LEASE, ApiRequestRetention } from '../../app/apiRequestRetention.js';
import { type ApiRequestRow, insertApiRequests, requestsDb } from '../../projections/auditLogs/requests.js';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { Leases } from '../../store/postgres/leases.js';
import { freshDatabase } from '../support/postgres.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const NOW = new Date('2026-03-02T12:00:00.000Z');
const DAY = 86_400_000;
const PROJECT = '22222222-2222-4222-8222-222222222222';

const request = (n: number, daysAgo: number): ApiRequestRow => ({
  request_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  project_id: PROJECT,
  account_id: null,
  api_key_id: null,
  method: 'POST',
  endpoint: '/rest/api/v1/accounts',
  query_string: null,
  status_code: 400,
  duration_ms: 3,
  ip_address: '127.0.0.1',
  user_agent: null,
  server_host: 'spec',
  request_headers: '{}',
  request_body: null,
  request_body_size: 0,
  response_body: null,
  response_body_size: 0,
  error_message: null,
  received_at: new Date(NOW.getTime() - daysAgo * DAY),
});

describe('API request record retention', () => {
  it('deletes the records older than the retention, once per interval whichever instance holds the lease', async () => {
    const url = await freshDatabase();
    const { db } = createReadModelDb(url);
    const leasesA = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const leasesB = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    try {
      await migrateReadModels(db);
      await insertApiRequests(db, [request(1, 91), request(2, 90.5), request(3, 89), request(4, 0.5)]);
      const clock = () => NOW;
      const a = new ApiRequestRetention({ db, leases: leasesA, clock, retentionDays: 90, log: quiet, lookMs: 50 });
      const b = new ApiRequestRetention({ db, leases: leasesB, clock, retentionDays: 90, log: quiet, lookMs: 50 });
      a.start();
      b.start();
      const kept = async () => (await requestsDb(db).selectFrom('api_requests').select('request_id').orderBy('request_id').execute()).map((r) => r.request_id);
      const deadline = Date.now() + 10_000;
      while ((await kept()).length !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await kept()).to.deep.equal([request(3, 0).request_id, request(4, 0).request_id]);
      expect([leasesA.holds(API_REQUEST_RETENTION_LEASE), leasesB.holds(API_REQUEST_RETENTION_LEASE)].filter(Boolean)).to.have.length(1);
      // The last pass is recorded: neither instance passes again within the hour, even after a takeover.
      expect(await a.passIfDue()).to.equal(null);
      expect(await b.passIfDue()).to.equal(null);
      await a.stop();
      await b.stop();
      const later = new ApiRequestRetention({ db, leases: leasesB, clock: () => new Date(NOW.getTime() + 3_600_000), retentionDays: 1, log: quiet });
      expect(await later.passIfDue(), 'an hour later a pass is due again').to.equal(1);
      const passes = await sql<{ updated: Date }>`SELECT updated FROM processor_checkpoints WHERE name = 'retention:api_requests'`.execute(db);
      expect(new Date(passes.rows[0]!.updated).toISOString()).to.equal(new Date(NOW.getTime() + 3_600_000).toISOString());
    } finally {
      await leasesA.stop();
      await leasesB.stop();
      await db.destroy();
    }
  });
});
