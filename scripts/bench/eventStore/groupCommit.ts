// Group commit in our event store (issue 16): single-event appends by W concurrent writers (each to
// streams of its own), with group commit as configured (appends beyond GROUP_COMMITS_IN_FLIGHT share
// transactions), with other numbers of transactions in flight (--in-flight), without it (every append
// its own transaction, the store before issue 16), and as plain INSERTs of the same rows (the limit),
// in interleaved rounds; prints rates, ratios, how many transactions the appends took, and the CPU
// time per append of the writing process and of the PostgreSQL backends of its pool (read from /proc:
// on a loaded machine the rates say how large a share of the cores a mode got, the CPU time what it
// costs, which is what decides on an idle one).
//   npx tsx scripts/bench/eventStore/groupCommit.ts [--writers 8,32] [--appends 1600] [--rounds 3] [--in-flight 2,4]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { GROUP_COMMITS_IN_FLIGHT, PostgresEventStore } from '../../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../../store/postgres/schema.js';
import { parseArgs } from '../../support/connect.js';
import { integerOption } from '../support/options.js';
import { median, round } from '../support/report.js';
import { startBenchServer } from '../support/postgres.js';

const args = parseArgs(process.argv.slice(2), ['writers', 'appends', 'rounds', 'in-flight']);
const WRITERS = (args.get('writers')?.[0] ?? '8,32').split(',').map(Number);
const APPENDS = integerOption(args, 'appends', 1600);
const ROUNDS = integerOption(args, 'rounds', 3);
const STREAMS_PER_WRITER = 10;
/** Other numbers of transactions in flight beyond which appends share one, to compare. */
const IN_FLIGHT = (args.get('in-flight')?.[0] ?? '').split(',').filter(Boolean);
const MODES = ['group commit', ...IN_FLIGHT.map((n) => `groups beyond ${n}`), 'one transaction each', 'raw INSERT'];
type Mode = string;
const inFlightOf = (mode: Mode): number =>
  mode === 'group commit'
    ? GROUP_COMMITS_IN_FLIGHT
    : mode === 'one transaction each'
      ? Number.MAX_SAFE_INTEGER
      : Number.parseInt(mode.replace('groups beyond ', ''), 10);

const TICK_MS = 1000 / 100;
/** CPU ms of these processes so far (utime + stime of /proc/<pid>/stat; clock ticks of 10 ms). */
const cpuMsOf = (pids: readonly number[]): number =>
  pids.reduce((sum, pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return sum + (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      return sum;
    }
  }, 0);

/** The backend pids of every connection of the pool (all of them opened). */
const backendsOf = async (pool: pg.Pool, size: number): Promise<number[]> => {
  const clients = await Promise.all(Array.from({ length: size }, () => pool.connect()));
  const pids = await Promise.all(clients.map(async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
  for (const c of clients) c.release();
  return pids;
};

const server = await startBenchServer();
let database = 0;
const play = async (mode: Mode, writers: number): Promise<{ perSec: number; transactions: number; nodeCpuUs: number; pgCpuUs: number }> => {
  const url = await server.database(`gc_${++database}`);
  const migrations = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  await migrateEventStore(migrations);
  await migrations.destroy();
  const store = await PostgresEventStore.connect(url);
  if (mode !== 'raw INSERT') store.groupCommitsInFlight = inFlightOf(mode);
  // `--in-flight 4g`: groups beyond 4, gathering the appends of one turn of the event loop (as shipped); `4`: without.
  if (mode !== 'group commit') store.groupCommitGather = mode.endsWith('g');
  const backends = await backendsOf(store.pool, 10);
  let next = 0;
  const pgCpu = cpuMsOf(backends);
  const nodeCpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const revisions = new Array<number>(STREAMS_PER_WRITER).fill(-1);
      for (let mine = 0; next < APPENDS; mine++) {
        next++;
        const s = mine % STREAMS_PER_WRITER;
        const stream = `bench-w${w}-s${s}`;
        const e = { id: randomUUID(), type: 'BenchEvent', data: { n: mine }, metadata: { by: 'bench' } };
        if (mode === 'raw INSERT') {
          await store.pool.query('INSERT INTO es_events (stream_name, revision, event_id, event_type, data, metadata) VALUES ($1, $2, $3, $4, $5, $6)', [
            stream,
            revisions[s]! + 1,
            e.id,
            e.type,
            JSON.stringify(e.data),
            JSON.stringify(e.metadata),
          ]);
        } else {
          await store.appendToStream(stream, e, { expectedRevision: revisions[s]! < 0 ? 'no_stream' : BigInt(revisions[s]!) });
        }
        revisions[s]! += 1;
      }
    }),
  );
  const ms = performance.now() - started;
  const nodeUsed = process.cpuUsage(nodeCpu);
  const pgUsedMs = cpuMsOf(backends) - pgCpu;
  const { rows } = await store.pool.query<{ n: string }>('SELECT count(DISTINCT transaction_id) AS n FROM es_events');
  await store.dispose();
  return {
    perSec: (APPENDS / ms) * 1000,
    transactions: Number(rows[0]!.n),
    nodeCpuUs: (nodeUsed.user + nodeUsed.system) / APPENDS,
    pgCpuUs: (pgUsedMs * 1000) / APPENDS,
  };
};

try {
  console.log(`group commit: ${APPENDS} single-event appends, ${ROUNDS} interleaved rounds, groups beyond ${GROUP_COMMITS_IN_FLIGHT} transactions in flight`);
  for (const writers of WRITERS) {
    const rates = new Map<Mode, number[]>();
    const transactions = new Map<Mode, number[]>();
    const cpu = new Map<Mode, { node: number[]; pg: number[] }>();
    const ratios: Record<string, number[]> = { 'group/one each': [], 'group/raw': [], 'one each/raw': [] };
    for (const n of IN_FLIGHT) ratios[`beyond ${n}/raw`] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const figures = new Map<Mode, number>();
      for (const mode of MODES.map((_, i) => MODES[(i + r) % MODES.length]!)) {
        const { perSec, transactions: tx, nodeCpuUs, pgCpuUs } = await play(mode, writers);
        const used = cpu.get(mode) ?? { node: [], pg: [] };
        used.node.push(nodeCpuUs);
        used.pg.push(pgCpuUs);
        cpu.set(mode, used);
        figures.set(mode, perSec);
        rates.set(mode, [...(rates.get(mode) ?? []), perSec]);
        transactions.set(mode, [...(transactions.get(mode) ?? []), tx]);
      }
      ratios['group/one each']!.push(figures.get('group commit')! / figures.get('one transaction each')!);
      ratios['group/raw']!.push(figures.get('group commit')! / figures.get('raw INSERT')!);
      ratios['one each/raw']!.push(figures.get('one transaction each')! / figures.get('raw INSERT')!);
      for (const n of IN_FLIGHT) ratios[`beyond ${n}/raw`]!.push(figures.get(`groups beyond ${n}`)! / figures.get('raw INSERT')!);
    }
    console.log(`\n${writers} writers`);
    for (const mode of MODES) {
      const used = cpu.get(mode)!;
      console.log(
        `  ${mode.padEnd(22)} ${Math.round(median(rates.get(mode)!))} appends/s, ${Math.round(median(transactions.get(mode)!))} transactions, ` +
          `CPU per append: node ${Math.round(median(used.node))} µs, PostgreSQL ${Math.round(median(used.pg))} µs`,
      );
    }
    for (const [label, values] of Object.entries(ratios)) console.log(`  ${label.padEnd(22)} ${round(median(values))} (median of per-round ratios)`);
  }
} finally {
  await server.stop();
}
