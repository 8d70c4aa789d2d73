// Profiling aid for the event store benchmark (not one of the five): where a single-event append spends
// its time on the server, per statement, for ours, Emmett's and plain INSERTs (pg_stat_statements with
// track = all, so the statements inside es_append and emt_append_to_stream are listed too); then what
// the NOTIFY in es_append costs: our store against a copy of it whose es_append does not notify,
// interleaved runs of 1 and 8 writers. Uses an embedded PostgreSQL of its own, preloaded with
// pg_stat_statements.
//
//   npx tsx scripts/bench/eventStore/statements.ts [--appends 1000 --runs 3]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../store/postgres/embedded.js';
import { parseArgs } from '../../support/connect.js';
import { median, round } from '../support/report.js';
import { openOurs } from './ours.js';
import { openRaw } from './raw.js';
import { benchEvent, type StoreUnderTest } from './system.js';

const args = parseArgs(process.argv.slice(2), ['appends', 'runs']);
const APPENDS = Number(args.get('appends')?.[0] ?? 1000);
const RUNS = Number(args.get('runs')?.[0] ?? 3);

const withDatabase = (connectionString: string, database: string): string => {
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  return url.toString();
};

const query = async (connectionString: string, text: string): Promise<pg.QueryResult> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
};

/** `appends` single-event appends by `writers` writers, 10 streams each; events per second. */
const appendRun = async (store: StoreUnderTest, run: string, writers: number, appends: number): Promise<number> => {
  const events = Array.from({ length: appends }, (_, i) => benchEvent(i));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const revisions = new Array<number>(10).fill(-1);
      for (let mine = 0; next < appends; mine++) {
        const event = events[next++]!;
        await store.append(`stmt-${run}-w${w}-s${mine % 10}`, revisions[mine % 10]!, [event]);
        revisions[mine % 10]! += 1;
      }
    }),
  );
  return (appends / (performance.now() - started)) * 1000;
};

const main = async (): Promise<void> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-stmt-'));
  let server = await startEmbeddedPostgres(dir, { database: 'postgres' });
  try {
    await query(server.connectionString, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await query(server.connectionString, "ALTER SYSTEM SET pg_stat_statements.track = 'all'");
    await server.stop();
    server = await startEmbeddedPostgres(dir, { database: 'postgres' });
    const admin = server.connectionString;
    await query(admin, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const databases = ['ours', 'emmett', 'raw', 'ours_no_notify'];
    for (const name of databases) await query(admin, `CREATE DATABASE stmt_${name}`);
    const url = (name: string) => withDatabase(admin, `stmt_${name}`);

    const ours = await openOurs(url('ours'));
    const raw = await openRaw(url('raw'));
    // Emmett in this process too: its pg type parsers do not change what the server spends.
    const { openEmmett } = await import('../peer/emmett.js');
    const emmett = await openEmmett(url('emmett'));
    const quiet = await openOurs(url('ours_no_notify'));
    const definition = String((await query(url('ours_no_notify'), "SELECT pg_get_functiondef('es_append'::regproc) AS d")).rows[0].d);
    if (!definition.includes("PERFORM pg_notify('es_events', '');")) throw new Error('es_append no longer notifies as this script expects');
    await query(url('ours_no_notify'), definition.replace("PERFORM pg_notify('es_events', '');", ''));

    console.log(`\nServer time per statement of ${APPENDS} single-event appends, 1 writer (pg_stat_statements, track = all)`);
    for (const [name, store] of [['ours', ours], ['emmett', emmett], ['raw', raw]] as const) {
      await query(admin, 'SELECT pg_stat_statements_reset()');
      const perSecond = await appendRun(store, `profile-${name}`, 1, APPENDS);
      const { rows } = await query(
        admin,
        `SELECT s.calls, s.total_exec_time AS total, s.mean_exec_time AS mean, s.wal_bytes, regexp_replace(s.query, '\\s+', ' ', 'g') AS query
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = 'stmt_${name}' AND s.calls >= ${APPENDS} ORDER BY s.total_exec_time DESC LIMIT 12`,
      );
      console.log(`\n${name}: ${Math.round(perSecond)} appends/s seen by the client (${(1000 / perSecond).toFixed(2)} ms each)`);
      console.table(rows.map((r) => ({
        calls: Number(r.calls),
        meanMs: round(Number(r.mean)),
        totalMs: Math.round(Number(r.total)),
        walBytesPerCall: Math.round(Number(r.wal_bytes) / Number(r.calls)),
        statement: String(r.query).slice(0, 110),
      })));
    }

    console.log(`\nThe NOTIFY of es_append: our store as it is vs the same without pg_notify, ${RUNS} interleaved runs`);
    const rows: Record<string, string | number>[] = [];
    for (const writers of [1, 8]) {
      const withNotify: number[] = [];
      const without: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const order = run % 2 ? [[quiet, without], [ours, withNotify]] as const : [[ours, withNotify], [quiet, without]] as const;
        for (const [store, figures] of order) figures.push(await appendRun(store, `notify-${writers}-${run}`, writers, APPENDS));
      }
      const gains = without.map((value, run) => value / withNotify[run]!);
      rows.push({ writers, 'appends/s as is': Math.round(median(withNotify)), 'appends/s without NOTIFY': Math.round(median(without)), 'without/as is': round(median(gains)) });
    }
    console.table(rows);
    for (const store of [ours, raw, emmett, quiet]) await store.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
