// Another instance's enqueue wakes this instance's durable queues at once (store/postgres/queueWake.ts),
// on a real PostgreSQL with a real loopback receiver. "At once" is shown without timing: the woken
// queues' idle pause is ten minutes, so nothing but the wake can make them look within the spec.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { AccountCreationQueue } from '../../app/accounts/asyncCreation.js';
import { Outbox } from '../../engine/delivery/outbox.js';
import { createReadModelDb } from '../../projections/database.js';
import type { ReadModels } from '../../projections/schema.js';
import { QUEUE_WAKE_SESSION_PREFIX, QueueWake } from '../../store/postgres/queueWake.js';
import { adminConnection, freshDatabase } from '../support/postgres.js';
import { eventually } from '../support/trading.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const TEN_MINUTES = 600_000;

describe('queue wake: another instance’s enqueue wakes this one’s queues', function () {
  this.timeout(60_000);
  let url: string;
  let db: Kysely<ReadModels>;
  let server: http.Server;
  let base: string;
  const arrived: string[] = [];
  /** The writing instance: enqueues, never works its queues. */
  let wakeA: QueueWake;
  let outboxA: Outbox;
  /** The idle instance: its queues look every ten minutes unless woken. */
  let wakeB: QueueWake;
  let outboxB: Outbox;
  let creationsB: AccountCreationQueue;
  const processed: string[] = [];

  before(async () => {
    url = await freshDatabase();
    db = createReadModelDb(url).db;
    server = http.createServer((req, res) => {
      arrived.push(req.url ?? '');
      req.resume();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    wakeA = new QueueWake(url, db, { instanceId: 'wake-a', othersLive: () => true });
    wakeB = new QueueWake(url, db, { instanceId: 'wake-b', othersLive: () => true });
    outboxA = new Outbox({ db, log: quiet, allowPrivateOutbound: true, unseal: (c) => c, queueWake: wakeA });
    await Outbox.migrate(db);
    outboxB = new Outbox({ db, log: quiet, allowPrivateOutbound: true, unseal: (c) => c, queueWake: wakeB, idlePollMs: TEN_MINUTES });
    await outboxB.start();
    creationsB = new AccountCreationQueue({ db, outbox: outboxB, clock: () => new Date(), log: quiet, queueWake: wakeB, idlePollMs: TEN_MINUTES });
    await creationsB.start(async (row) => {
      processed.push(row.request_id);
      return { status: 'FAILED', error: { error: '[VALIDATION_FAILED]', message: 'refused by the spec' } };
    });
    await eventually(async () => wakeB.listening || undefined, 20_000, 'b to listen');
  });
  after(async () => {
    await creationsB?.stop();
    await outboxB?.stop();
    await wakeA?.stop();
    await wakeB?.stop();
    server?.closeAllConnections();
    server?.close();
    await db?.destroy();
  });

  const enqueueAtA = async (path: string): Promise<void> => {
    const id = randomUUID();
    await outboxA.enqueue(db, {
      id,
      kind: 'ACCOUNT_CREATION_CALLBACK',
      url: `${base}/${path}`,
      headers: { 'Content-Type': 'application/json' },
      body: { id },
      maxAttempts: 1,
      backoffMs: [],
    });
    outboxA.wake();
  };

  it('delivers a message another instance enqueued without waiting for its idle look', async () => {
    await enqueueAtA('first');
    await eventually(async () => arrived.includes('/first') || undefined, 20_000, 'the delivery by b');
  });

  it('works an account creation another instance queued without waiting for its idle look', async () => {
    const creationsA = new AccountCreationQueue({ db, outbox: outboxA, clock: () => new Date(), log: quiet, queueWake: wakeA });
    const row = await creationsA.enqueue({
      requestId: randomUUID(),
      projectId: randomUUID(),
      accountId: randomUUID(),
      settings: {} as never,
      failIfExists: false,
      callbackUrl: `${base}/creation`,
      context: {} as never,
    });
    await eventually(async () => processed.includes(row.request_id) || undefined, 20_000, 'the creation by b');
    // b's outcome queued its callback in b's own outbox, which b's in-process wake delivers.
    await eventually(async () => arrived.includes('/creation') || undefined, 20_000, 'the callback');
  });

  it('listens again after its connection is dropped, and is woken again', async () => {
    const admin = new pg.Client({ connectionString: await adminConnection(new URL(url).pathname.slice(1)) });
    await admin.connect();
    try {
      const before = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [`${QUEUE_WAKE_SESSION_PREFIX}wake-b`]);
      expect(before.rows).to.have.length(1);
      await admin.query('SELECT pg_terminate_backend($1)', [before.rows[0]!.pid]);
      // A new listening session (another backend) for b.
      await eventually(
        async () => {
          const now = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [
            `${QUEUE_WAKE_SESSION_PREFIX}wake-b`,
          ]);
          return (now.rows.length === 1 && now.rows[0]!.pid !== before.rows[0]!.pid && wakeB.listening) || undefined;
        },
        20_000,
        'b to listen again',
      );
    } finally {
      await admin.end();
    }
    await enqueueAtA('after-drop');
    await eventually(async () => arrived.includes('/after-drop') || undefined, 20_000, 'the delivery after the drop');
  });
});
