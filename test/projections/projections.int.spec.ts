// The projection runner and blue-green rebuilds, against a real PostgreSQL.
import { expect } from 'chai';
import { type Kysely, sql } from 'kysely';
import { accountDecider } from '../../domain/account/decider.js';
import { accountStream, type AccountSettings } from '../../domain/account/events.js';
import { systemContext } from '../../domain/shared/command.js';
import { allProjections } from '../../projections/all.js';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import type { Projection } from '../../projections/projection.js';
import { rebuildProjection, rebuildProjections } from '../../projections/rebuild.js';
import { ProjectionRunner } from '../../projections/runner.js';
import type { ReadModels } from '../../projections/schema.js';
import { handleCommand } from '../../store/commandHandler.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { Leases } from '../../store/postgres/leases.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { type Position, positionToString, type RecordedEvent } from '../../store/port.js';
import { freshDatabase } from '../support/postgres.js';

const PROJECT = '22222222-2222-4222-8222-222222222222';
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const settings = (i: number): AccountSettings => ({
  loginServer: `Server-${i % 3}`,
  loginAccountNumber: String(1000 + i),
  passwordCiphertext: 'c',
  alias: `acct ${i}`,
  accountTypeId: (i % 17) + 1,
  regionId: (i % 4) + 1,
  propFirm: i % 2 === 0,
  tradingDisabled: false,
  nativeMode: false,
  closeUnmanagedPositions: false,
  dedicatedIp: null,
  myHomeIp: null,
  labels: [],
  skipCredentialCheck: false,
  ctraderClientId: null,
  ctraderClientSecretCiphertext: null,
  proxy: i % 5 === 0 ? { host: 'p', port: 8080, username: null } : null,
});
const meta = () => ({ now: new Date().toISOString(), context: { ...systemContext('t'), projectId: PROJECT } });

/** Writes a realistic history for `n` accounts; returns the position of the last write. */
const writeHistory = async (store: PostgresEventStore, n: number): Promise<Position> => {
  let last: Position | null = null;
  for (let i = 0; i < n; i++) {
    const accountId = crypto.randomUUID();
    const s = accountStream(accountId);
    const run = async (command: Parameters<typeof accountDecider.decide>[0]) => {
      const r = await handleCommand(store, s, accountDecider, command);
      last = r.position ?? last;
    };
    await run({ type: 'CreateAccount', data: { accountId, projectId: PROJECT, settings: settings(i) }, metadata: meta() });
    if (i % 2 === 0) await run({ type: 'StartAccount', data: { accountId, projectId: PROJECT }, metadata: meta() });
    if (i % 3 === 0) await run({ type: 'UpdateAccount', data: { accountId, projectId: PROJECT, changes: { alias: `renamed ${i}` } }, metadata: meta() });
    if (i % 4 === 0) await run({ type: 'StopAccount', data: { accountId, projectId: PROJECT }, metadata: meta() });
    if (i % 7 === 0) await run({ type: 'DeleteAccount', data: { accountId, projectId: PROJECT }, metadata: meta() });
  }
  return last!;
};

const snapshot = async (db: Kysely<ReadModels>) => ({
  accounts: await db.selectFrom('accounts').selectAll().orderBy('id').execute(),
  auditLogs: await db.selectFrom('audit_logs').selectAll().orderBy('id').execute(),
});

const setup = async () => {
  const url = await freshDatabase();
  const { db } = createReadModelDb(url);
  await migrateEventStore(db);
  await migrateReadModels(db);
  const store = await PostgresEventStore.connect(url);
  return { url, db, store };
};

describe('projections', () => {
  let db: Kysely<ReadModels>;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;

  before(async () => {
    ({ db, store } = await setup());
    runner = new ProjectionRunner(db, store, allProjections, quiet);
    await runner.start();
  });
  after(async () => {
    await runner.stop();
    await store.dispose();
    await db.destroy();
  });

  it('the live runner brings every read model to the position of a write', async () => {
    const last = await writeHistory(store, 5);
    expect(await runner.waitFor(last, 10000)).to.equal(true);
    const accounts = await db.selectFrom('accounts').selectAll().execute();
    expect(accounts).to.have.length(5);
    const registry = await db.selectFrom('projection_registry').selectAll().execute();
    expect(registry.map((r) => r.name).sort()).to.deep.equal(allProjections.map((p) => p.name).sort());
  });

  it('a rebuilt read model equals the live one, and the rebuild switches to a new generation', async () => {
    const last = await writeHistory(store, 30);
    await runner.waitFor(last, 10000);
    const live = await snapshot(db);
    const before = await db.selectFrom('projection_registry').selectAll().where('name', '=', 'accounts').executeTakeFirstOrThrow();
    const progress: number[] = [];
    for (const p of allProjections) await rebuildProjection(db, store, p, ({ processed }) => progress.push(processed));
    const rebuilt = await snapshot(db);
    expect(rebuilt.accounts).to.deep.equal(live.accounts);
    expect(rebuilt.auditLogs).to.deep.equal(live.auditLogs);
    const after = await db.selectFrom('projection_registry').selectAll().where('name', '=', 'accounts').executeTakeFirstOrThrow();
    expect(after.generation).to.equal(before.generation + 1);
    expect(progress.length).to.be.greaterThan(0);
    const schemas = await sql<{ nspname: string }>`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rm_accounts_g%'`.execute(db);
    expect(schemas.rows.map((r) => r.nspname)).to.deep.equal([`rm_accounts_g${after.generation}`]);
  });

  it('a rebuild built UNLOGGED, its indexes after the history, serves logged tables with every index, equal to the live ones', async () => {
    const last = await writeHistory(store, 10);
    await runner.waitFor(last, 10000);
    const live = await snapshot(db);
    const indexes = sql<{
      n: string;
    }>`SELECT count(*) AS n FROM pg_indexes WHERE schemaname LIKE 'rm\_%' AND tablename IN ('copies', 'account_logs', 'closed_trades')`;
    const { rows: indexesBefore } = await indexes.execute(db);
    await rebuildProjections(db, store, allProjections, { unloggedFrom: 1 });
    expect(await snapshot(db)).to.deep.equal(live);
    const { rows: persistence } = await sql<{ relpersistence: string; n: string }>`SELECT c.relpersistence, count(*) AS n FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname LIKE 'rm\_%' GROUP BY 1`.execute(db);
    expect(persistence.map((r) => r.relpersistence)).to.deep.equal(['p']);
    expect((await indexes.execute(db)).rows).to.deep.equal(indexesBefore);
    expect(Number(indexesBefore[0]!.n)).to.equal(4 + 4 + 2);
  });

  it('a rebuild counts every event a partitioned read model applied, its partitions applied side by side', async () => {
    // Two read models give two lanes; the one with events splits them in two partitions by stream, and
    // the other has none, so the two pieces of one read model apply at once. Their counts once raced
    // (`applied += await ...` read the sum before the await): the rebuild reported half of what it applied.
    const { db, store } = await setup();
    const types = ['AccountCreated', 'AccountStarted', 'AccountUpdated', 'AccountStopped', 'AccountDeleted'];
    const partitioned = (name: string, handles: readonly string[]): Projection => ({
      name,
      version: 1,
      handles: [...handles],
      tables: [name as keyof ReadModels],
      partitionOf: (recorded) => recorded.streamId,
      async createTables(d, schema) {
        await sql`CREATE TABLE ${sql.id(schema, name)} (stream text NOT NULL)`.execute(d);
      },
      async apply(d, event) {
        await d
          .insertInto(name as never)
          .values({ stream: event.streamId } as never)
          .execute();
      },
    });
    const models = [partitioned('partitioned_a', types), partitioned('partitioned_b', ['NothingInThisHistory'])];
    const live = new ProjectionRunner(db, store, models, quiet);
    await live.start();
    const last = await writeHistory(store, 40);
    expect(await live.waitFor(last, 10000)).to.equal(true);
    await live.stop();
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events WHERE event_type IN (${sql.join(types)})`.execute(db);
    const handled = Number(rows[0]!.n);
    const timings = await rebuildProjections(db, store, models, { unloggedFrom: 1 });
    expect(timings.map((t) => [t.projection, t.applied])).to.deep.equal([
      ['partitioned_a', handled],
      ['partitioned_b', 0],
    ]);
    const { rows: applied } = await sql<{ n: string }>`SELECT count(*) AS n FROM partitioned_a`.execute(db);
    expect(Number(applied[0]!.n)).to.equal(handled);
    await store.dispose();
    await db.destroy();
  });

  it('a rebuild while writes go on loses nothing and applies nothing twice', async () => {
    const writes = writeHistory(store, 40);
    const rebuilds = (async () => {
      await new Promise((r) => setTimeout(r, 50));
      const accounts = allProjections.find((p) => p.name === 'accounts')!;
      const audit = allProjections.find((p) => p.name === 'audit_logs')!;
      await rebuildProjection(db, store, accounts);
      await rebuildProjection(db, store, audit);
    })();
    const [last] = await Promise.all([writes, rebuilds]);
    expect(await runner.waitFor(last, 15000)).to.equal(true);
    const live = await snapshot(db);
    for (const p of allProjections) await rebuildProjection(db, store, p);
    expect(await snapshot(db)).to.deep.equal(live);
    const { count } = await db
      .selectFrom('audit_logs')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events`.execute(db);
    expect(Number(count)).to.equal(Number(rows[0]!.n));
  });
});

describe('projection versions and exactly-once effects', () => {
  // A deliberately non-idempotent read model: it adds one per event, so any double application shows.
  const counter = (version: number): Projection => ({
    name: 'event_counter',
    version,
    handles: ['AccountCreated', 'AccountStarted', 'AccountUpdated', 'AccountStopped', 'AccountDeleted'],
    tables: ['event_counter' as keyof ReadModels],
    async createTables(d, schema) {
      await sql`CREATE TABLE ${sql.id(schema, 'event_counter')} (id int PRIMARY KEY, n bigint NOT NULL, version int NOT NULL)`.execute(d);
      await sql`INSERT INTO ${sql.id(schema, 'event_counter')} VALUES (1, 0, ${version})`.execute(d);
    },
    async apply(d) {
      // Through the query builder, so the generation's schema applies (raw SQL would hit the public view).
      await d
        .updateTable('event_counter' as never)
        .set({ n: sql`n + 1` } as never)
        .execute();
    },
  });
  const count = async (db: Kysely<ReadModels>) => (await sql<{ n: string; version: number }>`SELECT n, version FROM public.event_counter`.execute(db)).rows[0]!;

  it('two runners on one database apply each event once', async () => {
    const { db, store } = await setup();
    const a = new ProjectionRunner(db, store, [counter(1)], quiet);
    const b = new ProjectionRunner(db, store, [counter(1)], quiet);
    await a.start();
    await b.start();
    const last = await writeHistory(store, 20);
    expect(await a.waitFor(last, 10000)).to.equal(true);
    expect(await b.waitFor(last, 10000)).to.equal(true);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events`.execute(db);
    expect((await count(db)).n).to.equal(rows[0]!.n);
    await a.stop();
    await b.stop();
    await store.dispose();
    await db.destroy();
  });

  it('a batch with nothing to apply never takes back a checkpoint another runner moved further', async () => {
    // The race behind a once-in-a-full-run double count: runner b finds the checkpoint ahead of its
    // reading (a moved it), then reads a batch that has nothing for the read model. Moving the
    // checkpoint to that batch's end would take it back, and the events between would count twice.
    const { db, store } = await setup();
    const unrelated = await store.appendToStream('unrelated-1', { id: crypto.randomUUID(), type: 'SomethingElse', data: {} });
    const a = new ProjectionRunner(db, store, [counter(1)], quiet);
    await a.start();
    const last = await writeHistory(store, 6);
    expect(await a.waitFor(last, 10000)).to.equal(true);
    await a.stop();
    const before = await count(db);
    const b = new ProjectionRunner(db, store, [counter(1)], quiet);
    // b read the checkpoints (a's position), then its processor hands it the unrelated, older event.
    const internals = b as unknown as { loadCursors(): Promise<unknown>; applyBatch(batch: readonly RecordedEvent[]): Promise<void> };
    await internals.loadCursors();
    let older: RecordedEvent | undefined;
    for await (const resolved of store.readAll({ fromPosition: unrelated.position, maxCount: 1 })) older = resolved.event;
    await internals.applyBatch([older!]);
    const { rows } = await sql<{ position: string }>`SELECT position FROM processor_checkpoints WHERE name = 'projection:event_counter'`.execute(db);
    expect(rows[0]!.position).to.equal(positionToString(last));
    await b.start();
    expect(await b.waitFor(last, 10000)).to.equal(true);
    expect((await count(db)).n).to.equal(before.n);
    await b.stop();
    await store.dispose();
    await db.destroy();
  });

  it('with leases, one runner applies while the other answers waitFor from its checkpoints, and takes over when it stops', async () => {
    const { url, db, store } = await setup();
    const leasesA = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const leasesB = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50 });
    const a = new ProjectionRunner(db, store, [counter(1)], quiet, leasesA);
    const b = new ProjectionRunner(db, store, [counter(1)], quiet, leasesB);
    try {
      await a.start();
      await b.start();
      expect(leasesA.holds('projections') !== leasesB.holds('projections'), 'exactly one holds the lease').to.equal(true);
      const [holder, standby, holderLeases] = leasesA.holds('projections') ? [a, b, leasesA] : [b, a, leasesB];
      const first = await writeHistory(store, 10);
      expect(await standby.waitFor(first, 10000)).to.equal(true);
      await holder.stop();
      await holderLeases.stop();
      const second = await writeHistory(store, 10);
      expect(await standby.waitFor(second, 10000), 'the standby took over').to.equal(true);
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events`.execute(db);
      expect((await count(db)).n).to.equal(rows[0]!.n);
    } finally {
      await a.stop();
      await b.stop();
      await leasesA.stop();
      await leasesB.stop();
      await store.dispose();
      await db.destroy();
    }
  });

  it('read models move on independently: waiting for a fast one does not wait for a slow one', async () => {
    const { db, store } = await setup();
    const slow: Projection = {
      ...counter(1),
      name: 'slow_counter',
      tables: ['slow_counter' as keyof ReadModels],
      async createTables(d, schema) {
        await sql`CREATE TABLE ${sql.id(schema, 'slow_counter')} (id int PRIMARY KEY)`.execute(d);
      },
      async apply() {
        await new Promise((r) => setTimeout(r, 1500));
      },
    };
    const runner = new ProjectionRunner(db, store, [counter(1), slow], quiet);
    try {
      await runner.start();
      const accountId = crypto.randomUUID();
      const written = await handleCommand(store, accountStream(accountId), accountDecider, {
        type: 'CreateAccount',
        data: { accountId, projectId: PROJECT, settings: settings(1) },
        metadata: meta(),
      });
      const began = Date.now();
      expect(await runner.waitFor(written.position!, 10000, ['event_counter'])).to.equal(true);
      expect(Date.now() - began, 'the fast read model answered without the slow one').to.be.lessThan(1000);
      expect(await runner.waitFor(written.position!, 10000)).to.equal(true);
      expect(Date.now() - began, 'every read model: the slow one too').to.be.at.least(1000);
    } finally {
      await runner.stop();
      await store.dispose();
      await db.destroy();
    }
  });

  it('a new projection version is built from the whole history at start, beside the old one', async () => {
    const { db, store } = await setup();
    const v1 = new ProjectionRunner(db, store, [counter(1)], quiet);
    await v1.start();
    const last = await writeHistory(store, 10);
    await v1.waitFor(last, 10000);
    await v1.stop();
    const v2 = new ProjectionRunner(db, store, [counter(2)], quiet);
    await v2.start();
    const c = await count(db);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM es_events`.execute(db);
    expect(c.version).to.equal(2);
    expect(c.n).to.equal(rows[0]!.n);
    const registry = await db.selectFrom('projection_registry').selectAll().where('name', '=', 'event_counter').executeTakeFirstOrThrow();
    expect(registry.version).to.equal(2);
    expect(registry.generation).to.equal(2);
    await v2.stop();
    await store.dispose();
    await db.destroy();
  });
});
