// The earnings read model's batch (projections/earnings/batch.ts) ends exactly where `apply` on each
// event in turn ends: a hand-made sequence of a provider and its followers (fees changed, a follower
// removed and one subscribed twice), their copiers' copies and the closes of their positions (partial,
// full, a trade seen twice, a close before its copy, another copier's copy of the same position, a copy
// into another currency with its rate), cut
// at every point (the events before the cut applied one by one, the rest as one batch), and in batches
// of every size. The rebuild benchmark's history has no followers: batches.int.spec.ts covers that case.
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { createReadModelDb } from '../../projections/database.js';
import { earningsProjection } from '../../projections/earnings/projector.js';
import type { ReadModels } from '../../projections/schema.js';
import type { RecordedEvent } from '../../store/port.js';
import { freshDatabase } from '../support/postgres.js';

const PROJECT = '44444444-4444-4444-8444-444444444444';
const PROVIDER = '55555555-5555-4555-8555-555555555555';
const FOLLOWER = '66666666-6666-4666-8666-666666666666';
const LATE_FOLLOWER = '77777777-7777-4777-8777-777777777777';
const OTHER_COPIER = '88888888-8888-4888-8888-888888888888';
const MASTER = '99999999-9999-4999-8999-999999999999';
const SLAVE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const at = '2026-11-20T10:00:00.000Z';

const recorded = (type: string, data: object, i: number): RecordedEvent => ({
  streamId: `s-${i}`,
  id: crypto.randomUUID(),
  revision: 0n,
  type,
  data: { at, ...data },
  metadata: {},
  created: new Date(at),
  position: { commit: 1n, prepare: BigInt(i + 1) },
});

const provider = (fee: number) => ({
  type: 'FeatureSignalProviderDTO',
  billingModel: 'MONTHLY_PROFIT',
  coverFollowerCosts: true,
  maxCoveredAccountsPerProject: 3,
  monthlySubscriptionFee: fee,
  profitSharingFee: 10,
});
const follower = { type: 'FeatureSignalFollowerDTO', signalProviderId: PROVIDER };
const accountScope = (accountId: string) => ({ kind: 'account', accountId });
const opened = (copierId: string, slavePositionId: string, slaveToMasterRate?: number) => ({
  copierId,
  slaveAccountId: SLAVE,
  masterAccountId: MASTER,
  result: { type: 'opened', slavePositionId },
  ...(slaveToMasterRate === undefined ? {} : { slaveToMasterRate }),
});
const close = (type: 'PositionClosed' | 'PositionPartiallyClosed', positionId: string, tradeId: string, profit: number) => [
  type,
  { accountId: SLAVE, trade: { positionId, tradeId, profit, swap: -0.1, commission: -0.2, closeTime: at } },
];

const sequence: RecordedEvent[] = (
  [
    ['FeatureAdded', { featureId: PROVIDER, projectId: PROJECT, scope: accountScope(MASTER), setting: provider(20) }],
    // A close of a position no follower's copy opened yet.
    close('PositionClosed', 'P1', 'T0', 5),
    ['CopyExecuted', opened(FOLLOWER, 'P1')],
    ['FeatureAdded', { featureId: FOLLOWER, projectId: PROJECT, scope: accountScope(SLAVE), setting: follower }],
    ['CopyExecuted', opened(FOLLOWER, 'P1')],
    ['CopyExecuted', opened(FOLLOWER, 'P1')],
    ['CopyExecuted', opened(OTHER_COPIER, 'P2')],
    ['CopyExecuted', { copierId: FOLLOWER, slaveAccountId: SLAVE, masterAccountId: MASTER, result: { type: 'skipped', reason: 'x' } }],
    close('PositionPartiallyClosed', 'P1', 'T1', 1.25),
    close('PositionPartiallyClosed', 'P1', 'T1', 9),
    ['FeatureUpdated', { featureId: PROVIDER, setting: provider(25) }],
    ['FeatureAdded', { featureId: LATE_FOLLOWER, projectId: PROJECT, scope: accountScope(SLAVE), setting: follower }],
    ['FeatureAdded', { featureId: LATE_FOLLOWER, projectId: PROJECT, scope: accountScope(MASTER), setting: follower }],
    ['CopyExecuted', opened(LATE_FOLLOWER, 'P1')],
    // A copy into another currency: its closes keep the rate its opening recorded.
    ['CopyExecuted', opened(LATE_FOLLOWER, 'P3', 0.8)],
    close('PositionClosed', 'P1', 'T2', -3),
    close('PositionClosed', 'P2', 'T3', 4),
    ['FeatureRemoved', { featureId: FOLLOWER }],
    ['FeatureUpdated', { featureId: PROVIDER, setting: provider(30) }],
    close('PositionClosed', 'P3', 'T4', 2.5),
    ['CopyExecuted', opened(FOLLOWER, 'P4')],
    close('PositionClosed', 'P4', 'T5', 1),
    ['FeatureRemoved', { featureId: PROVIDER }],
  ] as [string, object][]
).map(([type, data], i) => recorded(type, data, i));

describe('earnings read model: a batch ends where one event at a time ends', function () {
  this.timeout(240_000);
  let db: Kysely<ReadModels>;
  let schemas = 0;

  const build = async (apply: (scoped: Kysely<ReadModels>) => Promise<void>) => {
    const schema = `rm_earnings_batch_spec_${++schemas}`;
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(db);
    await earningsProjection.createTables(db, schema);
    await apply(db.withSchema(schema));
    const out: Record<string, string[]> = {};
    for (const table of earningsProjection.tables) {
      const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.id(schema, table)}`.execute(db);
      out[table] = rows.map((r) => JSON.stringify(r)).sort();
    }
    await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(db);
    return out;
  };

  before(async () => {
    ({ db } = createReadModelDb(await freshDatabase(), 2));
  });
  after(() => db?.destroy());

  it('cut at every point, and in batches of every size', async () => {
    const oneByOne = await build(async (scoped) => {
      for (const event of sequence) await earningsProjection.apply(scoped, event);
    });
    // Not vacuous: positions of both followers, trades (the first close of T1 kept), three fees.
    expect(oneByOne.earnings_positions).to.have.length(4);
    expect(oneByOne.earnings_trades).to.have.length(5);
    expect(oneByOne.earnings_trades!.filter((row) => row.includes('"T1"'))).to.deep.equal([
      JSON.stringify({ follower_id: FOLLOWER, account_id: SLAVE, trade_id: 'T1', close_time: new Date(at), result: '0.95', rate: null }),
    ]);
    expect(oneByOne.earnings_trades!.filter((row) => row.includes('"T4"'))).to.deep.equal([
      JSON.stringify({ follower_id: LATE_FOLLOWER, account_id: SLAVE, trade_id: 'T4', close_time: new Date(at), result: '2.2', rate: '0.8' }),
    ]);
    expect(oneByOne.earnings_fees).to.have.length(3);
    for (let cut = 0; cut <= sequence.length; cut++) {
      const batched = await build(async (scoped) => {
        for (const event of sequence.slice(0, cut)) await earningsProjection.apply(scoped, event);
        await earningsProjection.applyBatch!(scoped, sequence.slice(cut));
      });
      expect(batched, `cut at ${cut}`).to.deep.equal(oneByOne);
    }
    for (let size = 1; size <= sequence.length; size++) {
      const batched = await build(async (scoped) => {
        for (let i = 0; i < sequence.length; i += size) await earningsProjection.applyBatch!(scoped, sequence.slice(i, i + size));
      });
      expect(batched, `batches of ${size}`).to.deep.equal(oneByOne);
    }
  });
});
