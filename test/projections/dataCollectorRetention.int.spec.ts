// The retention of the data collector's samples (app/dataCollectorRetention.ts) against a real
// PostgreSQL: samples older than DATA_COLLECTOR_RETENTION_DAYS (90) are deleted, newer ones stay; of two
// instances one holds the lease and prunes, and a pass by one is not repeated before the interval. The
// marketplace read model's copy of the samples loses the same ones.
import { expect } from 'chai';
import { sql } from 'kysely';
import { DATA_COLLECTOR_RETENTION_LEASE, DataCollectorRetention } from '../../app/dataCollectorRetention.js';
import { dataCollectorProjection } from '../../projections/dataCollector/projector.js';
import { marketplaceProjection } from '../../projections/marketplace/projector.js';
import { pruneSamples } from '../../projections/dataCollector/queries.js';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { Leases } from '../../store/postgres/leases.js';
import { freshDatabase } from '../support/postgres.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const NOW = new Date('2026-03-02T12:00:00.000Z');
const DAY = 86_400_000;
const ACCOUNT_A = '33333333-3333-4333-8333-333333333333';
const ACCOUNT_B = '44444444-4444-4444-8444-444444444444';

const sample = (accountId: string, daysAgo: number) => ({
  account_id: accountId,
  time: new Date(NOW.getTime() - daysAgo * DAY),
  balance: 10_000,
  equity: 10_000 - daysAgo,
  floating_pnl: -daysAgo,
  margin: 0,
});

describe('data collector sample retention', () => {
  it('deletes the samples older than 90 days, once per interval whichever instance holds the lease', async () => {
    const url = await freshDatabase();
    const { db } = createReadModelDb(url);
    const leasesA = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const leasesB = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    try {
      await migrateReadModels(db);
      await dataCollectorProjection.createTables(db, 'public');
      await marketplaceProjection.createTables(db, 'public');
      const samples = [sample(ACCOUNT_A, 120), sample(ACCOUNT_A, 90.01), sample(ACCOUNT_A, 89.9), sample(ACCOUNT_B, 91), sample(ACCOUNT_B, 1)];
      await db.insertInto('data_collector_samples').values(samples).execute();
      await db
        .insertInto('marketplace_samples')
        .values(samples.map((s) => ({ account_id: s.account_id, time: s.time, equity: s.equity })))
        .execute();
      const clock = () => NOW;
      const a = new DataCollectorRetention({ db, leases: leasesA, clock, log: quiet, lookMs: 50 });
      const b = new DataCollectorRetention({ db, leases: leasesB, clock, log: quiet, lookMs: 50 });
      a.start();
      b.start();
      const kept = async () =>
        (await db.selectFrom('data_collector_samples').select(['account_id', 'floating_pnl']).orderBy('account_id').orderBy('time').execute()).map(
          (r) => `${r.account_id === ACCOUNT_A ? 'A' : 'B'} ${-r.floating_pnl}`,
        );
      const deadline = Date.now() + 10_000;
      while ((await kept()).length !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await kept()).to.deep.equal(['A 89.9', 'B 1']);
      const keptByMarketplace = await db.selectFrom('marketplace_samples').select(['account_id', 'equity']).orderBy('account_id').orderBy('time').execute();
      expect(keptByMarketplace.map((r) => `${r.account_id === ACCOUNT_A ? 'A' : 'B'} ${r.equity}`)).to.deep.equal([`A ${10_000 - 89.9}`, `B ${10_000 - 1}`]);
      expect([leasesA.holds(DATA_COLLECTOR_RETENTION_LEASE), leasesB.holds(DATA_COLLECTOR_RETENTION_LEASE)].filter(Boolean)).to.have.length(1);
      // The last pass is recorded: neither instance passes again within the hour, even after a takeover.
      expect(await a.passIfDue()).to.equal(null);
      expect(await b.passIfDue()).to.equal(null);
      await a.stop();
      await b.stop();
      const later = new DataCollectorRetention({ db, leases: leasesB, clock: () => new Date(NOW.getTime() + 3_600_000), log: quiet });
      expect(await later.passIfDue(), 'an hour later a pass is due again (nothing old left)').to.equal(0);
      const passes = await sql<{ updated: Date }>`SELECT updated FROM processor_checkpoints WHERE name = 'retention:data_collector_samples'`.execute(db);
      expect(new Date(passes.rows[0]!.updated).toISOString()).to.equal(new Date(NOW.getTime() + 3_600_000).toISOString());
    } finally {
      await leasesA.stop();
      await leasesB.stop();
      await db.destroy();
    }
  });

  it('deletes in batches until nothing older is left', async () => {
    const url = await freshDatabase();
    const { db } = createReadModelDb(url);
    try {
      await dataCollectorProjection.createTables(db, 'public');
      const old = Array.from({ length: 7 }, (_, i) => ({ ...sample(ACCOUNT_A, 100), time: new Date(NOW.getTime() - 100 * DAY + i * 1000) }));
      await db
        .insertInto('data_collector_samples')
        .values([...old, sample(ACCOUNT_A, 10)])
        .execute();
      expect(await pruneSamples(db, new Date(NOW.getTime() - 90 * DAY), 3)).to.equal(7);
      expect(await db.selectFrom('data_collector_samples').select('time').execute()).to.have.length(1);
    } finally {
      await db.destroy();
    }
  });
});
