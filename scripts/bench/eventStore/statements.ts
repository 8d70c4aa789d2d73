// Profiling aid for the event store benchmark (not one of the five): where a single-event append spends
// its time on the server, per statement, for ours, Emmett's and plain INSERTs (pg_stat_statements with
// track = all, so the statements inside es_append and emt_append_to_stream are listed too); then what
// the NOTIFY cost where it was: our store against a copy of it with migration 0001's es_append, which
// notified inside the appending transaction (now the store notifies after the commit), interleaved runs
// of 1 and 8 writers. Uses an embedded PostgreSQL of its own, preloaded with
// pg_stat_statements.
//
//   npx tsx scripts/bench/eventStore/statements.ts [--appends 1000 --runs 3]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../store/postgres/embedded.js';
import { appendFunction } from '../../../store/postgres/schema.js';
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
    await query(server.adminConnectionString, "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await query(server.adminConnectionString, "ALTER SYSTEM SET pg_stat_statements.track = 'all'");
    await server.stop();
    server = await startEmbeddedPostgres(dir, { database: 'postgres' });
    const admin = server.adminConnectionString;
    await query(admin, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const databases = ['ours', 'emmett', 'raw', 'ours_notify_at_commit'];
    for (const name of databases) await query(admin, `CREATE DATABASE stmt_${name}`);
    const url = (name: string) => withDatabase(admin, `stmt_${name}`);

    const ours = await openOurs(url('ours'));
    const raw = await openRaw(url('raw'));
    // Emmett in this process too: its pg type parsers do not change what the server spends.
    const { openEmmett } = await import('../peer/emmett.js');
    const emmett = await openEmmett(url('emmett'));
    // Our store with the es_append of migration 0001, which notified inside the appending transaction.
    const atCommit = await openOurs(url('ours_notify_at_commit'));
    await query(url('ours_notify_at_commit'), appendFunction(true));

    console.log(`\nServer time per statement of ${APPENDS} single-event appends, 1 writer (pg_stat_statements, track = all)`);
    for (const [name, store] of [
      ['ours', ours],
      ['emmett', emmett],
      ['raw', raw],
    ] as const) {
      await query(admin, 'SELECT pg_stat_statements_reset()');
      const perSecond = await appendRun(store, `profile-${name}`, 1, APPENDS);
      const { rows } = await query(
        admin,
        `SELECT s.calls, s.total_exec_time AS total, s.mean_exec_time AS mean, s.wal_bytes, regexp_replace(s.query, '\\s+', ' ', 'g') AS query
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = 'stmt_${name}' AND s.calls >= ${APPENDS} ORDER BY s.total_exec_time DESC LIMIT 12`,
      );
      console.log(`\n${name}: ${Math.round(perSecond)} appends/s seen by the client (${(1000 / perSecond).toFixed(2)} ms each)`);
      console.table(
        rows.map((r) => ({
          calls: Number(r.calls),
          meanMs: round(Number(r.mean)),
          totalMs: Math.round(Number(r.total)),
          walBytesPerCall: Math.round(Number(r.wal_bytes) / Number(r.calls)),
          statement: String(r.query).slice(0, 110),
        })),
      );
    }

    console.log(`\nWhere the NOTIFY goes: inside es_append's transaction (migration 0001) vs after the commit (as it is), ${RUNS} interleaved runs`);
    const rows: Record<string, string | number>[] = [];
    for (const writers of [1, 8]) {
      const inside: number[] = [];
      const after: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const order =
          run % 2
            ? ([
                [ours, after],
                [atCommit, inside],
              ] as const)
            : ([
                [atCommit, inside],
                [ours, after],
              ] as const);
        for (const [store, figures] of order) figures.push(await appendRun(store, `notify-${writers}-${run}`, writers, APPENDS));
      }
      const gains = after.map((value, run) => value / inside[run]!);
      rows.push({
        writers,
        'appends/s, NOTIFY at commit': Math.round(median(inside)),
        'appends/s, NOTIFY after commit': Math.round(median(after)),
        'after/at commit': round(median(gains)),
      });
    }
    console.table(rows);
    for (const store of [ours, raw, emmett, atCommit]) await store.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
