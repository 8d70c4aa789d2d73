// The marketplace read model's facts when a projector batch and a retention pass overlap, against a real
// PostgreSQL (projections/marketplace/facts.ts lockFacts). Both recompute the facts of the account they
// touch from the samples they read; a third transaction holding the facts row makes them queue, the
// retention first, so the batch's facts are written last. Before lockFacts the batch read the samples
// the retention was deleting and wrote them back into the facts, until the account's next event.
import { expect } from 'chai';
import { sql } from 'kysely';
import { keptScoreFacts } from '../../domain/analytics/metrics.js';
import { createReadModelDb } from '../../projections/database.js';
import { refreshScores } from '../../projections/marketplace/facts.js';
import { marketplaceProjection } from '../../projections/marketplace/projector.js';
import { pruneMarketplaceSamples } from '../../projections/marketplace/queries.js';
import { migrateReadModels } from '../../projections/migrations.js';
import type { RecordedEvent } from '../../store/port.js';
import { freshDatabase } from '../support/postgres.js';
import { eventually } from '../support/trading.js';

const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const DAY = 86_400_000;
const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const PROVIDER = '66666666-6666-4666-8666-666666666666';

const sampled = (at: number, equity: number) =>
  ({
    streamId: `samples-${ACCOUNT}`,
    id: crypto.randomUUID(),
    revision: 0n,
    type: 'AccountSampled',
    data: { accountId: ACCOUNT, at: new Date(at).toISOString(), balance: 10_000, equity, floatingPnl: 0, margin: 0 },
    metadata: {},
    created: new Date(at),
    position: { commit: 1n, prepare: 1n },
  }) as unknown as RecordedEvent;

describe('marketplace facts: a projector batch overlapping a retention pass', () => {
  it('keeps no pruned sample in the facts when the batch writes them last', async function () {
    this.timeout(120_000);
    const url = await freshDatabase();
    const { db } = createReadModelDb(url);
    try {
      await migrateReadModels(db);
      await marketplaceProjection.createTables(db, 'public');
      await db
        .insertInto('marketplace_scores')
        .values({ feature_id: PROVIDER, account_id: ACCOUNT, facts: JSON.stringify(null) })
        .execute();
      await db
        .insertInto('marketplace_samples')
        .values([
          { account_id: ACCOUNT, time: new Date(NOW - 120 * DAY), equity: 7_000 },
          { account_id: ACCOUNT, time: new Date(NOW - 3 * DAY), equity: 10_000 },
          { account_id: ACCOUNT, time: new Date(NOW - 2 * DAY), equity: 9_000 },
        ])
        .execute();
      const factsNow = async () =>
        (await db.selectFrom('marketplace_scores').select('facts').where('feature_id', '=', PROVIDER).executeTakeFirstOrThrow()).facts;

      // The facts row held, so both writers queue behind it.
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const holder = db.transaction().execute(async (tx) => {
        await tx.selectFrom('marketplace_scores').select('feature_id').forUpdate().execute();
        holding();
        await released;
      });
      await held;
      const waiting = async () =>
        Number(
          (await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db))
            .rows[0]!.n,
        );
      const prune = pruneMarketplaceSamples(db, new Date(NOW - 90 * DAY));
      await eventually(async () => ((await waiting()) >= 1 ? true : undefined), 30_000, 'the retention waiting');
      const batch = db.transaction().execute((tx) => marketplaceProjection.applyBatch!(tx, [sampled(NOW - DAY, 10_500)]));
      await eventually(async () => ((await waiting()) >= 2 ? true : undefined), 30_000, 'the batch waiting');
      release();
      const [, pruned] = await Promise.all([holder, prune, batch]);
      expect(pruned).to.equal(1);

      const times = await db.selectFrom('marketplace_samples').select('time').orderBy('time').execute();
      expect(times.map((r) => new Date(r.time).getTime())).to.deep.equal([NOW - 3 * DAY, NOW - 2 * DAY, NOW - DAY]);
      const kept = JSON.stringify(await factsNow());
      await refreshScores(db, new Set([ACCOUNT]));
      const truth = JSON.stringify(await factsNow());
      // The facts with the pruned sample (what the batch wrote before lockFacts) are others.
      const samples = [
        [NOW - 120 * DAY, 7_000],
        [NOW - 3 * DAY, 10_000],
        [NOW - 2 * DAY, 9_000],
        [NOW - DAY, 10_500],
      ].map(([at, equity]) => ({ time: new Date(at!).toISOString(), balance: 0, equity: equity!, floating: 0 }));
      const withPruned = keptScoreFacts({ trades: [], balanceOperations: [], samples, from: null, to: null, zone: 'UTC', dataCollectorEnabled: false });
      expect(JSON.parse(truth), 'the pruned sample moves the facts').not.to.deep.equal(JSON.parse(JSON.stringify(withPruned)));
      expect(kept).to.equal(truth);
    } finally {
      await db.destroy();
    }
  });
});
