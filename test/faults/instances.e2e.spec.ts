// Issue 16, more than one machine: three instances of the service (npm start's script, as child
// processes) on one PostgreSQL, the copy engine's partitions and the other leased work spread over them,
// masters opening and closing through all three, one instance killed with SIGKILL in the middle of the
// burst, then a close per master through each survivor. Every slave ends with exactly one copy of every
// open master position, none twice, and the survivors took the dead one's partitions and leases.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { partitionOf } from '../../engine/copy/partitionKey.js';
import { preferredOwner } from '../../store/postgres/leases.js';
import { freshDatabase } from '../support/postgres.js';
import { exitOf, startProcess, type ServiceProcess } from '../support/process.js';
import { callService, TEST_KEY, type TestResponse, validAccount } from '../support/service.js';
import { eventually, positionRequest } from '../support/trading.js';

const PARTITIONS = 8;
const MASTERS = 6;
const SLAVES_PER_MASTER = 2;
const partitionName = (index: number) => `copy-engine/${PARTITIONS}/${index}`;
const PARTITION_NAMES = Array.from({ length: PARTITIONS }, (_, i) => partitionName(i));
/** The leases spread over the live instances by preference (app/service.ts). */
const SPREAD = ['projections', 'webhooks', 'api-requests-retention', 'data-collector-retention'];

interface Position {
  readonly id: string;
  readonly comment: string | null;
}

/** Calls an instance, trying again while it answers 503 or the connection drops. */
const patiently = async (service: ServiceProcess, method: string, route: string, body?: unknown): Promise<TestResponse> => {
  for (let attempt = 0; ; attempt++) {
    const res = await callService(service.url, TEST_KEY, method, route, { ...(body === undefined ? {} : { body }), checkContract: false }).catch(() => null);
    if (res && res.status !== 503) return res;
    if (attempt > 300) throw new Error(`${method} ${route} still unavailable`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Which instance holds each of the leases `names` now (from the lease sessions' advisory locks). */
const leaseHolders = async (db: pg.Client, names: readonly string[] = PARTITION_NAMES): Promise<Map<string, string>> => {
  const res = await db.query<{ name: string; holder: string }>(
    `SELECT n.name, substr(a.application_name, length('ct-leases:') + 1) AS holder
       FROM unnest($1::text[]) AS n(name)
       JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.objid::text::bigint = (hashtext('lease:' || n.name)::bigint & 4294967295)
        AND l.classid::text::bigint = ((hashtext('lease:' || n.name)::bigint >> 32) & 4294967295)
       JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [names],
  );
  return new Map(res.rows.map((r) => [r.name, r.holder]));
};

describe('more than one instance', function () {
  this.timeout(900_000);
  const processes: ServiceProcess[] = [];
  let dataDir = '';
  let db: pg.Client | null = null;

  after(async () => {
    for (const p of processes) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGTERM');
        await exitOf(p.child);
      }
    }
    await db?.end().catch(() => undefined);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const began = Date.now();
  const phase = (what: string) => console.log(`      [${((Date.now() - began) / 1000).toFixed(1)} s] ${what}`);
  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const p of processes) console.log(`--- instance output (last lines)\n${p.out().split('\n').slice(-25).join('\n')}`);
  });

  it('spreads the copy engine over three instances; after one is killed with SIGKILL mid-burst the survivors take its partitions and every slave holds exactly one copy of every open master position', async () => {
    const databaseUrl = await freshDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-instances-'));
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const credentialsKey = randomBytes(32).toString('base64');
    for (const id of ['one', 'two', 'three']) {
      processes.push(
        await startProcess(
          {
            DATABASE_URL: databaseUrl,
            DATA_DIR: path.join(dataDir, id),
            CREDENTIALS_KEY: credentialsKey,
            PORT: '0',
            HOST: '127.0.0.1',
            BOOTSTRAP_API_KEY: TEST_KEY,
            INSTANCE_ID: id,
            COPY_ENGINE_PARTITIONS: String(PARTITIONS),
          },
          { timeoutMs: 240_000 },
        ),
      );
      phase(`instance ${id} started`);
    }
    const [one] = processes as [ServiceProcess, ServiceProcess, ServiceProcess];
    const holderOfSessions = (await db.query<{ instance: string }>(`SELECT instance FROM venue_sessions_holder`)).rows[0]?.instance;
    expect(holderOfSessions, 'the first instance holds the venue sessions').to.equal('one');

    // The partitions spread: three, three and two.
    const spread = await eventually(
      async () => {
        const holders = await leaseHolders(db!);
        const counts = ['one', 'two', 'three'].map((id) => [...holders.values()].filter((h) => h === id).length);
        return holders.size === PARTITIONS && counts.every((n) => n >= 2) ? holders : undefined;
      },
      20_000,
      'every instance to hold its share of the partitions',
    );

    phase('partitions spread');
    // The other leased work is spread too: each lease at the instance preferred for it.
    await eventually(
      async () => {
        const holders = await leaseHolders(db!, SPREAD);
        return SPREAD.every((name) => holders.get(name) === preferredOwner(name, ['one', 'two', 'three'])) ? true : undefined;
      },
      20_000,
      'the other leases to be spread over the instances',
    );
    // Masters and slaves, created and started through the three instances in turn.
    let turn = 0;
    const next = () => processes[turn++ % processes.length]!;
    const account = async (alias: string) => {
      const service = next();
      const created = await patiently(service, 'POST', '/accounts', validAccount({ alias, loginServer: 'Scale-Demo', loginAccountNumber: alias }));
      expect(created.status, JSON.stringify(created.body)).to.equal(200);
      const started = await patiently(next(), 'POST', `/accounts/${created.body.id}/actions/start`);
      expect(started.status, JSON.stringify(started.body)).to.equal(200);
      return created.body.id as string;
    };
    const masters: string[] = [];
    const slavesOf = new Map<string, string[]>();
    for (let m = 0; m < MASTERS; m++) {
      const master = await account(`master-${m}`);
      masters.push(master);
      const slaves: string[] = [];
      for (let s = 0; s < SLAVES_PER_MASTER; s++) {
        const slave = await account(`slave-${m}-${s}`);
        const copier = await patiently(next(), 'POST', `/accounts/${slave}/copiers`, { fromAccountId: master, copyOriginalComment: true });
        expect(copier.status, JSON.stringify(copier.body)).to.equal(200);
        slaves.push(slave);
      }
      slavesOf.set(master, slaves);
    }

    phase('masters and slaves started');
    // The victim: an instance that does not hold the venue sessions and copies some of the masters.
    const mastersOf = (id: string) => masters.filter((m) => spread.get(partitionName(partitionOf(m, PARTITIONS))) === id);
    const victimId = ['two', 'three'].sort((a, b) => mastersOf(b).length - mastersOf(a).length)[0]!;
    const victim = processes[['one', 'two', 'three'].indexOf(victimId)]!;
    const victimPartitions = [...spread].filter(([, holder]) => holder === victimId).map(([name]) => name);
    expect(victimPartitions.length).to.be.greaterThan(0);

    // The burst: every master opens positions through the three instances in turn.
    let killedAt = 0;
    let trades = 0;
    let tradesAfterKill = 0;
    let closes = 0;
    let movedInMs = 0;
    const burstUntil = Date.now() + 10_000;
    const killer = (async () => {
      await new Promise((r) => setTimeout(r, 3000));
      victim.child.kill('SIGKILL');
      killedAt = Date.now();
      await exitOf(victim.child);
      // How long until the survivors hold every partition.
      await eventually(
        async () => {
          const holders = await leaseHolders(db!);
          return holders.size === PARTITIONS && ![...holders.values()].includes(victimId) ? true : undefined;
        },
        20_000,
        'the survivors to hold every partition',
      );
      movedInMs = Date.now() - killedAt;
    })();
    await Promise.all(
      masters.map(async (master, m) => {
        // At least four turns each (open, open, close, open), however slow a loaded machine answers.
        for (let n = 0; n < 4 || Date.now() < burstUntil; n++) {
          const service = processes[(m + n) % processes.length]!;
          if (service.child.signalCode !== null) continue;
          if (n % 4 === 2) {
            // A close racing the opens, the kill and the partition moves.
            const open = await callService(service.url, TEST_KEY, 'GET', `/accounts/${master}/positions`, { checkContract: false }).catch(() => null);
            const oldest = open?.status === 200 ? (open.body as Position[])[0] : undefined;
            if (oldest) {
              const closed = await callService(service.url, TEST_KEY, 'DELETE', `/accounts/${master}/positions/${oldest.id}`, { checkContract: false }).catch(
                () => null,
              );
              if (closed?.status === 204) closes += 1;
            }
            continue;
          }
          const opened = await callService(service.url, TEST_KEY, 'POST', `/accounts/${master}/positions`, {
            body: positionRequest({ symbol: 'BTCUSD', orderType: n % 2 ? 'Sell' : 'Buy', volume: 0.01, comment: `m${m}-${n}` }),
            checkContract: false,
          }).catch(() => null);
          if (opened?.status === 204) {
            trades += 1;
            if (killedAt > 0) tradesAfterKill += 1;
          }
        }
      }),
    );
    phase('burst over');
    await killer;
    expect(killedAt, 'the victim was killed during the burst').to.be.greaterThan(0);

    // The survivors take the dead instance's partitions.
    const taken = await eventually(
      async () => {
        const holders = await leaseHolders(db!);
        return holders.size === PARTITIONS && ![...holders.values()].includes(victimId) ? holders : undefined;
      },
      20_000,
      'the survivors to hold every partition',
    );
    for (const name of victimPartitions) expect(['one', 'two', 'three'].filter((id) => id !== victimId)).to.include(taken.get(name));
    console.log(
      `      ${trades} master opens (${tradesAfterKill} after the kill), ${closes} closes; ${victimPartitions.length} partitions of instance ${victimId} moved within ${movedInMs} ms of the kill`,
    );
    expect(tradesAfterKill, 'master trades after the kill').to.be.greaterThan(0);
    expect(movedInMs, 'the partitions moved within seconds').to.be.lessThan(10_000);
    expect(closes, 'master closes during the burst').to.be.greaterThan(0);
    const survivorIds = ['one', 'two', 'three'].filter((id) => id !== victimId);
    await eventually(
      async () => {
        const holders = await leaseHolders(db!, SPREAD);
        return SPREAD.every((name) => holders.get(name) === preferredOwner(name, survivorIds)) ? true : undefined;
      },
      20_000,
      "the dead instance's other leases to move to the survivors preferred for them",
    );

    // Every slave: exactly one copy of every open master position, none twice, nothing else.
    const survivor = one;
    const positionsOf = async (accountId: string): Promise<Position[]> => {
      const res = await patiently(survivor, 'GET', `/accounts/${accountId}/positions`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as Position[];
    };
    phase('partitions moved');
    // After the move, every master closes its first open position through each survivor (the one that
    // holds the venue sessions and the one that reaches them remotely): the new owners copy closes too.
    const survivors = processes.filter((p) => p !== victim);
    for (const master of masters) {
      for (const through of survivors) {
        const first = ((await patiently(through, 'GET', `/accounts/${master}/positions`)).body as Position[])[0];
        if (!first) continue;
        const closed = await patiently(through, 'DELETE', `/accounts/${master}/positions/${first.id}`);
        expect(closed.status, JSON.stringify(closed.body)).to.equal(204);
      }
    }
    let open = 0;
    for (const master of masters) {
      const expected = (await positionsOf(master)).map((p) => p.comment).sort();
      expect(new Set(expected).size).to.equal(expected.length);
      open += expected.length;
      for (const slave of slavesOf.get(master)!) {
        await eventually(
          async () => {
            const held = (await positionsOf(slave)).map((p) => p.comment).sort();
            return JSON.stringify(held) === JSON.stringify(expected) ? true : undefined;
          },
          60_000,
          `slave ${slave} of ${master} to hold exactly the ${expected.length} open master positions`,
        ).catch(async (error: unknown) => {
          expect((await positionsOf(slave)).map((p) => p.comment).sort(), `slave ${slave} of master ${master}`).to.deep.equal(expected);
          throw error;
        });
      }
    }
    expect(open).to.be.greaterThan(0);
    phase('every slave holds exactly the open master positions');
    // A late duplicate would show by now.
    await new Promise((r) => setTimeout(r, 500));
    for (const master of masters) {
      const expected = (await positionsOf(master)).map((p) => p.comment).sort();
      for (const slave of slavesOf.get(master)!) expect((await positionsOf(slave)).map((p) => p.comment).sort()).to.deep.equal(expected);
    }
  });
});
