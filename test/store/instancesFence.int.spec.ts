// Issue 16, more than one instance: the fencing of a copy engine partition against a real PostgreSQL.
// The race that once left an orphan slave copy: the old owner of a partition still finishing an item
// (its lease session already gone) while the new owner starts. The old owner's outcome either committed
// before the new owner's fence (and the new owner starts from a state that includes it) or is refused
// as a whole; its checkpoint saves change nothing once the lease has a newer epoch. The interleaving
// is forced with a row lock held by a third session (that the append waits for it is read from
// pg_stat_activity), not with sleeps.
import { expect } from 'chai';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { v4 as uuidv4 } from 'uuid';
import { FencedOut, FencedStore } from '../../engine/copy/fence.js';
import { StreamNotFoundError } from '../../store/errors.js';
import { comparePositions, type EventStore, type Position } from '../../store/port.js';
import { Leases, saveCheckpointFenced } from '../../store/postgres/leases.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { freshDatabase } from '../support/postgres.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PARTITION = 'copy-engine/8/3';

const outcome = (copier: string) => ({
  streamName: `copies-${copier}`,
  events: [{ id: uuidv4(), type: 'CopyOpened', data: { copier } }],
});

const streamTypes = async (store: EventStore, stream: string): Promise<string[]> => {
  const types: string[] = [];
  try {
    for await (const { event } of store.readStream(stream)) types.push(event.type);
  } catch (error) {
    if (!(error instanceof StreamNotFoundError)) throw error;
  }
  return types;
};

describe('more than one instance: fencing a copy engine partition', function () {
  this.timeout(120_000);
  let url: string;
  let store: PostgresEventStore;
  /** The new owner's store: another instance of the service has a pool of its own. */
  let other: PostgresEventStore;
  let db: Kysely<unknown>;
  let blocker: pg.Client;

  before(async () => {
    url = await freshDatabase();
    db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 4 }) }) });
    await migrateEventStore(db);
    await sql`CREATE TABLE IF NOT EXISTS processor_checkpoints (name text PRIMARY KEY, position text, updated timestamptz NOT NULL DEFAULT now())`.execute(db);
    store = await PostgresEventStore.connect(url);
    other = await PostgresEventStore.connect(url);
    blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
  });
  after(async () => {
    await blocker?.end();
    await store?.dispose();
    await other?.dispose();
    await db?.destroy();
  });

  /** Holds a stream's row locked until the returned release. */
  const lockStream = async (stream: string): Promise<() => Promise<void>> => {
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM es_streams WHERE stream_name = $1 FOR UPDATE', [stream]);
    return async () => void (await blocker.query('COMMIT'));
  };

  /** Resolves once `n` backends wait for a lock (the append held up behind the blocker). */
  const waiting = async (n: number): Promise<void> => {
    for (;;) {
      const { rows } = await blocker.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      if (Number(rows[0]!.n) >= n) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  it('raises the lease epoch at every win, and a checkpoint saved under an older epoch changes nothing', async () => {
    const a = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50, instanceId: 'a' });
    const b = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50, instanceId: 'b' });
    try {
      const epochs: number[] = [];
      let releaseA: () => void = () => undefined;
      const heldA = new Promise<void>((resolve) => {
        const handle = a.hold('fenced-lease', async (signal, epoch) => {
          epochs.push(epoch);
          resolve();
          await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
        });
        releaseA = () => void handle.release();
      });
      await heldA;
      expect(await saveCheckpointFenced(db, 'fenced-checkpoint', '5:5', 'fenced-lease', epochs[0]!)).to.equal(true);
      const heldB = new Promise<number>((resolve) => {
        b.hold('fenced-lease', async (signal, epoch) => {
          resolve(epoch);
          await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
        });
      });
      releaseA();
      const epochB = await heldB;
      expect(epochB).to.equal(epochs[0]! + 1);
      // The old holder, still finishing an item, saves a checkpoint: refused.
      expect(await saveCheckpointFenced(db, 'fenced-checkpoint', '9:9', 'fenced-lease', epochs[0]!)).to.equal(false);
      expect(await saveCheckpointFenced(db, 'fenced-checkpoint', '7:7', 'fenced-lease', epochB)).to.equal(true);
      const saved = await sql<{ position: string }>`SELECT position FROM processor_checkpoints WHERE name = 'fenced-checkpoint'`.execute(db);
      expect(saved.rows[0]!.position).to.equal('7:7');
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it("says the lease session is fresh only while it answers: early placement is the live term's", async () => {
    const a = new Leases(url, quiet, { retryMs: 50, heartbeatMs: 50, instanceId: 'fresh-a' });
    try {
      expect(a.sessionFresh, 'no session yet').to.equal(false);
      const held = new Promise<void>((resolve) => {
        a.hold('fresh-lease', async (signal) => {
          resolve();
          await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
        });
      });
      await held;
      expect(a.sessionFresh, 'won just now').to.equal(true);
      // The lease session ends (its backend terminated, as when its network goes): not fresh any more,
      // whatever the heartbeat has yet noticed, once three heartbeats passed without an answer.
      await blocker.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE '%fresh-a'`);
      const deadline = Date.now() + 5000;
      while (a.sessionFresh && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(a.sessionFresh).to.equal(false);
    } finally {
      await a.stop();
    }
  });

  it('refuses as a whole an append of the old term after the new term took the partition', async () => {
    const old = new FencedStore(store, { partition: PARTITION, epoch: 1, instance: 'a' });
    await old.take();
    const before = await old.appendToStreams([outcome('c1')]);
    const fresh = new FencedStore(store, { partition: PARTITION, epoch: 2, instance: 'b' });
    const taken = await fresh.take();
    expect(comparePositions(before[0]!.position, taken), 'what the old term committed is before the fence').to.be.lessThan(0);
    let refused: unknown = null;
    await old.appendToStreams([outcome('c2'), outcome('c1')]).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(FencedOut);
    expect(old.fencedOut).to.equal(true);
    expect(await streamTypes(store, 'copies-c2'), 'nothing of the refused append is stored').to.deep.equal([]);
    expect(await streamTypes(store, 'copies-c1')).to.deep.equal(['CopyOpened']);
    // The new term appends on.
    await fresh.appendToStreams([outcome('c2')]);
    expect(await streamTypes(store, 'copies-c2')).to.deep.equal(['CopyOpened']);
  });

  it('makes the new term wait for an old append in flight, and start from a state that includes it', async () => {
    const partition = 'copy-engine/8/4';
    const old = new FencedStore(store, { partition, epoch: 1, instance: 'a' });
    await old.take();
    await store.appendToStream('copies-c3', [{ id: uuidv4(), type: 'CopyOpened', data: {} }]);
    // The old owner's outcome is on its way: past its fence (whose row it now holds), held up at the
    // copies stream by a third session.
    const release = await lockStream('copies-c3');
    const inFlight = old.appendToStreams([outcome('c3')]);
    await waiting(1);
    // The new owner takes the partition meanwhile: its fence waits for the old append to end.
    const fresh = new FencedStore(other, { partition, epoch: 2, instance: 'b' });
    const taking = fresh.take();
    await release();
    const [appended] = await inFlight;
    const fence: Position = await taking;
    expect(comparePositions(appended!.position, fence), 'the new term starts from a state that includes the old outcome').to.be.lessThan(0);
    expect(await streamTypes(store, 'copies-c3')).to.deep.equal(['CopyOpened', 'CopyOpened']);
    // The old owner's next outcome is refused, and stores nothing.
    const next = await old.appendToStreams([outcome('c3')]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(next).to.be.instanceOf(FencedOut);
    expect(await streamTypes(store, 'copies-c3')).to.deep.equal(['CopyOpened', 'CopyOpened']);
  });
});
