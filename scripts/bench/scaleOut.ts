// Scale-out (issue 16, more than one machine): copies per second with 1 and with 3 instances of the
// service on the same machine and one PostgreSQL, and how long the copy engine's partitions take to
// move after an instance is killed with SIGKILL.
//   - Each instance is npm start's script in a process of its own; every run gets a fresh database.
//   - The workload: --masters masters with --slaves slaves each; every master opens --trades positions
//     as fast as its answers come, through the instances in turn. Copies per second: the slave copies
//     (masters x slaves x trades) over the time from the first master trade until every slave holds
//     every copy. Nothing lost: every slave ends with exactly one copy of each master position.
//   - The move: with 3 instances, one that does not hold the venue sessions is killed with SIGKILL;
//     the time until the survivors hold every partition (read from PostgreSQL's advisory locks).
// On one machine three instances share the same cores: expect little gain on 2 cores; the point is that
// it runs and loses nothing (BENCHMARKS.md).
//
//   npm run bench:scale-out [-- --masters 4] [--slaves 5] [--trades 10] [--database-url postgres://...] [--out bench-results]
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { parseArgs } from '../support/connect.js';
import { type ListeningProcess, startListening } from './support/listening.js';
import { apiCaller, createBenchAccount, integerOption } from './support/options.js';
import { startBenchServer } from './support/postgres.js';
import { machine, publish, round } from './support/report.js';

const args = parseArgs(process.argv.slice(2), ['masters', 'slaves', 'trades', 'database-url', 'out']);
const MASTERS = integerOption(args, 'masters', 4);
const SLAVES = integerOption(args, 'slaves', 5);
const TRADES = integerOption(args, 'trades', 10);
const OUT = args.get('out')?.[0] ?? 'bench-results';
const KEY = 'bench-key-0123456789abcdef-scale-out';
const PARTITIONS = 8;
/** "Within seconds": the limit the partitions' move is measured against. */
const MOVE_LIMIT_MS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const partitionNames = Array.from({ length: PARTITIONS }, (_, i) => `copy-engine/${PARTITIONS}/${i}`);

/** Which instance holds each copy engine partition now. */
const partitionHolders = async (db: pg.Client): Promise<Map<string, string>> => {
  const res = await db.query<{ name: string; holder: string }>(
    `SELECT n.name, substr(a.application_name, length('ct-leases:') + 1) AS holder
       FROM unnest($1::text[]) AS n(name)
       JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.objid::text::bigint = (hashtext('lease:' || n.name)::bigint & 4294967295)
        AND l.classid::text::bigint = ((hashtext('lease:' || n.name)::bigint >> 32) & 4294967295)
       JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [partitionNames],
  );
  return new Map(res.rows.map((r) => [r.name, r.holder]));
};

const waitFor = async (check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
};

interface Run {
  readonly instances: number;
  readonly copies: number;
  readonly seconds: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly moveMs: number | null;
}

const runWith = async (instances: number, databaseUrl: string): Promise<Run> => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-scale-'));
  const credentialsKey = randomBytes(32).toString('base64');
  const processes: ListeningProcess[] = [];
  const ids = Array.from({ length: instances }, (_, i) => `bench-${i + 1}`);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const id of ids) {
      processes.push(
        await startListening(
          'scripts/start.ts',
          [],
          {
            DATABASE_URL: databaseUrl,
            DATA_DIR: path.join(dataDir, id),
            CREDENTIALS_KEY: credentialsKey,
            PORT: '0',
            HOST: '127.0.0.1',
            BOOTSTRAP_API_KEY: KEY,
            INSTANCE_ID: id,
            COPY_ENGINE_PARTITIONS: String(PARTITIONS),
            LOG_LEVEL: 'warn',
          },
          { ready: 'Stop with Ctrl+C' },
        ),
      );
    }
    await waitFor(
      async () => {
        const holders = await partitionHolders(db);
        return holders.size === PARTITIONS && ids.every((id) => [...holders.values()].includes(id));
      },
      30_000,
      'the partitions to spread over the instances',
    );
    const calls = processes.map((p) => apiCaller(() => p.url, KEY));
    let turn = 0;
    const next = () => calls[turn++ % calls.length]!;
    console.log(`${instances} instance(s): ${MASTERS} masters x ${SLAVES} slaves ...`);
    const masters: string[] = [];
    const slavesOf = new Map<string, string[]>();
    for (let m = 0; m < MASTERS; m++) {
      const master = await createBenchAccount(next(), `scale-${instances}-m${m}`);
      masters.push(master);
      const slaves: string[] = [];
      for (let s = 0; s < SLAVES; s++) {
        const slave = await createBenchAccount(next(), `scale-${instances}-m${m}-s${s}`);
        await next()('POST', `/accounts/${slave}/copiers`, { fromAccountId: master, copyOriginalComment: true });
        slaves.push(slave);
      }
      slavesOf.set(master, slaves);
    }
    const began = performance.now();
    await Promise.all(
      masters.map(async (master, m) => {
        for (let n = 0; n < TRADES; n++) {
          await calls[(m + n) % calls.length]!('POST', `/accounts/${master}/positions`, {
            symbol: 'BTCUSD',
            orderType: n % 2 ? 'Sell' : 'Buy',
            volume: 0.01,
            openPrice: 0,
            stopLoss: 0,
            takeProfit: 0,
            requestId: n,
            comment: `m${m}-${n}`,
          });
        }
      }),
    );
    const held = async (accountId: string): Promise<string[]> =>
      ((await calls[0]!('GET', `/accounts/${accountId}/positions`)).body as { comment: string | null }[]).map((p) => p.comment ?? '').sort();
    const expected = new Map<string, string[]>();
    for (const master of masters) expected.set(master, await held(master));
    await waitFor(
      async () => {
        for (const master of masters) {
          for (const slave of slavesOf.get(master)!) if ((await held(slave)).length < expected.get(master)!.length) return false;
        }
        return true;
      },
      300_000,
      'every slave to hold every copy',
    );
    const seconds = (performance.now() - began) / 1000;
    await sleep(500);
    let lost = 0;
    let duplicated = 0;
    let copies = 0;
    for (const master of masters) {
      const want = expected.get(master)!;
      for (const slave of slavesOf.get(master)!) {
        const have = await held(slave);
        copies += have.length;
        lost += want.filter((c) => !have.includes(c)).length;
        duplicated += have.length - new Set(have).size;
      }
    }
    let moveMs: number | null = null;
    if (instances > 1) {
      const holder = (await db.query<{ instance: string }>('SELECT instance FROM venue_sessions_holder')).rows[0]?.instance;
      const victim = ids.findIndex((id) => id !== holder && id !== ids[0]);
      const victimId = ids[victim]!;
      processes[victim]!.child.kill('SIGKILL');
      const killed = performance.now();
      await waitFor(
        async () => {
          const holders = await partitionHolders(db);
          return holders.size === PARTITIONS && ![...holders.values()].includes(victimId);
        },
        60_000,
        'the survivors to take the partitions',
      );
      moveMs = performance.now() - killed;
    }
    return { instances, copies, seconds, lost, duplicated, moveMs };
  } finally {
    for (const p of processes) await p.stop();
    await db.end().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  const server = await startBenchServer(args.get('database-url')?.[0]);
  try {
    const runs: Run[] = [];
    for (const instances of [1, 3]) runs.push(await runWith(instances, await server.database(`scale_out_${instances}`)));
    const results = runs.map((r) => ({
      instances: r.instances,
      copies: r.copies,
      seconds: round(r.seconds),
      copiesPerSecond: round(r.copies / r.seconds),
      lost: r.lost,
      duplicated: r.duplicated,
      partitionsMovedMs: r.moveMs === null ? null : Math.round(r.moveMs),
    }));
    const [one, three] = runs as [Run, Run];
    publish(
      {
        name: 'scaleOut',
        machine: machine(server.version),
        results,
        ratios: { 'copies per second, 3 instances vs 1 (same machine)': round(three.copies / three.seconds / (one.copies / one.seconds)) },
        ofLimit: { [`partitions moved after a SIGKILL within ${MOVE_LIMIT_MS} ms`]: round(MOVE_LIMIT_MS / (three.moveMs ?? Number.NaN)) },
      },
      OUT,
      `scale-out: ${MASTERS} masters x ${SLAVES} slaves x ${TRADES} trades, 1 and 3 instances on one machine`,
    );
    const broken = runs.filter((r) => r.lost > 0 || r.duplicated > 0);
    if (broken.length) throw new Error(`copies lost or duplicated: ${JSON.stringify(broken)}`);
  } finally {
    await server.stop();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
