// Projection rebuild benchmark (item 3 of the benchmark issue): every read model rebuilt from a
// generated, realistic history of 1,000,000 events (rebuild/history.ts: accounts, copiers, masters'
// trades copied to their slaves, samples) in our event store on an embedded PostgreSQL. The history
// is bulk-loaded (rebuild/load.ts); each rebuild runs in a fresh process (rebuild/measure.ts) that
// reports its time and its peak memory (RSS high-water mark). Events per second = events in the
// store / time to rebuild all read models in one pass over the history, as `npm run rebuild` does.
//
//   npm run bench:rebuild [-- --events 1000000 --runs 2 --masters 50 --slaves-per-master 20]
//     [--database-url postgres://...] [--out bench-results] [--cpu-prof-dir DIR]
// prints a table and writes bench-results/rebuild.json; --cpu-prof-dir keeps a V8 CPU profile of each rebuild.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { scriptRun } from '../../app/projectRoot.js';
import { allProjections } from '../../projections/all.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { parseArgs } from '../support/connect.js';
import { generateHistory } from './rebuild/history.js';
import { loadHistory } from './rebuild/load.js';
import type { MeasureMessage } from './rebuild/measure.js';
import { startBenchServer } from './support/postgres.js';
import { integerOption } from './support/options.js';
import { progress } from './support/progress.js';
import { machine, median, publish, round } from './support/report.js';

const args = parseArgs(process.argv.slice(2), ['events', 'runs', 'masters', 'slaves-per-master', 'sampled-accounts', 'database-url', 'out', 'cpu-prof-dir']);
const option = (name: string, fallback: number): number => integerOption(args, name, fallback);
const EVENTS = option('events', 1_000_000);
const RUNS = option('runs', 2);
const SHAPE = { masters: option('masters', 50), slavesPerMaster: option('slaves-per-master', 20), sampledAccounts: option('sampled-accounts', 50) };
const OUT = args.get('out')?.[0] ?? 'bench-results';
/** Where the rebuild processes write V8 CPU profiles (node --cpu-prof), if anywhere. */
const PROFILE = args.get('cpu-prof-dir')?.[0];

type Done = Extract<MeasureMessage, { kind: 'done' }>;

const measure = (connectionString: string, run: number, events: number): Promise<Done> =>
  new Promise((resolve, reject) => {
    const { execArgv, file } = scriptRun('scripts/bench/rebuild/measure.ts');
    const child = fork(file, [connectionString], {
      execArgv: [...execArgv, ...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const bar = progress(`rebuild ${run + 1}/${RUNS}: events read, applied to every read model`, events);
    let shown = 0;
    let result: Done | null = null;
    child.on('message', (message: MeasureMessage) => {
      if (message.kind === 'progress') {
        bar.increment(message.processed - shown);
        shown = message.processed;
      } else {
        bar.increment(events - shown);
        result = message;
      }
    });
    child.on('exit', (code) => {
      bar.stop();
      if (result) resolve(result);
      else reject(new Error(`the rebuild process exited with ${code}`));
    });
  });

const main = async (): Promise<void> => {
  console.log(`rebuild of every read model from ${EVENTS.toLocaleString('en')} generated events`);
  const server = await startBenchServer(args.get('database-url')?.[0]);
  try {
    const connectionString = await server.database('rebuild');
    const pool = new pg.Pool({ connectionString, max: 2 });
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    await migrateEventStore(db);
    await migrateReadModels(db);
    const loadBar = progress('generating and bulk-loading events', EVENTS);
    const loadStarted = performance.now();
    const loaded = await loadHistory(pool, generateHistory(EVENTS, SHAPE), (n) => loadBar.increment(n));
    loadBar.stop();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    const { rows } = await pool.query<{ streams: string; size: string }>(
      `SELECT (SELECT count(*) FROM es_streams) AS streams, pg_size_pretty(pg_total_relation_size('es_events')) AS size`,
    );
    console.log(`  loaded ${loaded.toLocaleString('en')} events in ${rows[0]!.streams} streams (${rows[0]!.size}) in ${loadSeconds.toFixed(1)} s`);
    await db.destroy();

    const runs: Done[] = [];
    for (let run = 0; run < RUNS; run++) runs.push(await measure(connectionString, run, loaded));

    const seconds = runs.map((r) => r.seconds);
    const results: Record<string, string | number | null>[] = [
      {
        step: 'all read models',
        events: loaded,
        applied: runs[0]!.projections.reduce((sum, p) => sum + p.applied, 0),
        seconds: round(median(seconds)),
        eventsPerSec: Math.round(median(runs.map((r) => loaded / r.seconds))),
        laneSeconds: null,
        peakRssMiB: Math.round(median(runs.map((r) => r.peakRssMiB))),
        runs: runs.length,
      },
      ...allProjections.map((projection) => {
        const timings = runs.map((r) => r.projections.find((p) => p.projection === projection.name)!);
        return {
          step: projection.name,
          events: loaded,
          applied: timings[0]!.applied,
          seconds: round(median(timings.map((t) => t.seconds))),
          // Events read per second of its own applying; none for a read model the history never touched.
          eventsPerSec: timings[0]!.applied > 0 ? Math.round(median(timings.map((t) => loaded / t.seconds))) : null,
          // A partitioned read model (copies) applies on several lanes at once: their seconds added up.
          laneSeconds: round(median(timings.map((t) => t.laneSeconds))),
          peakRssMiB: null,
          runs: runs.length,
        };
      }),
      {
        step: 'bulk load (not a result: setup)',
        events: loaded,
        applied: null,
        seconds: round(loadSeconds),
        eventsPerSec: Math.round(loaded / loadSeconds),
        laneSeconds: null,
        peakRssMiB: null,
        runs: 1,
      },
    ];
    publish(
      { name: 'rebuild', machine: machine(server.version), results, ratios: {}, ofLimit: {} },
      OUT,
      `Rebuild of all read models (${allProjections.length}) from ${loaded.toLocaleString('en')} events, median of ${RUNS} runs; one pass feeds every read model; a read model's seconds = wall time its batches spent applying (read models overlap; laneSeconds adds up a partitioned one's lanes)`,
    );
  } finally {
    await server.stop();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
