// Group commit in our event store (issue 16): single-event appends by W concurrent writers (each to
// streams of its own), with group commit as configured (appends beyond GROUP_COMMITS_IN_FLIGHT share
// transactions), without it (every append its own transaction, the store before issue 16), and as
// plain INSERTs of the same rows (the limit), in interleaved rounds; prints rates, ratios and how
// many transactions the appends took.
//   npx tsx scripts/bench/eventStore/groupCommit.ts [--writers 8,32] [--appends 1600] [--rounds 3]
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { GROUP_COMMITS_IN_FLIGHT, PostgresEventStore } from '../../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../../store/postgres/schema.js';
import { parseArgs } from '../../support/connect.js';
import { integerOption } from '../support/options.js';
import { median, round } from '../support/report.js';
import { startBenchServer } from '../support/postgres.js';

const args = parseArgs(process.argv.slice(2), ['writers', 'appends', 'rounds']);
const WRITERS = (args.get('writers')?.[0] ?? '8,32').split(',').map(Number);
const APPENDS = integerOption(args, 'appends', 1600);
const ROUNDS = integerOption(args, 'rounds', 3);
const STREAMS_PER_WRITER = 10;
const MODES = ['group commit', 'one transaction each', 'raw INSERT'] as const;
type Mode = (typeof MODES)[number];

const server = await startBenchServer();
let database = 0;
const play = async (mode: Mode, writers: number): Promise<{ perSec: number; transactions: number }> => {
  const url = await server.database(`gc_${++database}`);
  const migrations = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  await migrateEventStore(migrations);
  await migrations.destroy();
  const store = await PostgresEventStore.connect(url);
  if (mode === 'one transaction each') store.groupCommitsInFlight = Number.MAX_SAFE_INTEGER;
  let next = 0;
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
  const { rows } = await store.pool.query<{ n: string }>('SELECT count(DISTINCT transaction_id) AS n FROM es_events');
  await store.dispose();
  return { perSec: (APPENDS / ms) * 1000, transactions: Number(rows[0]!.n) };
};

try {
  console.log(`group commit: ${APPENDS} single-event appends, ${ROUNDS} interleaved rounds, groups beyond ${GROUP_COMMITS_IN_FLIGHT} transactions in flight`);
  for (const writers of WRITERS) {
    const rates = new Map<Mode, number[]>();
    const transactions = new Map<Mode, number[]>();
    const ratios: Record<string, number[]> = { 'group/one each': [], 'group/raw': [], 'one each/raw': [] };
    for (let r = 0; r < ROUNDS; r++) {
      const figures = new Map<Mode, number>();
      for (const mode of MODES.map((_, i) => MODES[(i + r) % MODES.length]!)) {
        const { perSec, transactions: tx } = await play(mode, writers);
        figures.set(mode, perSec);
        rates.set(mode, [...(rates.get(mode) ?? []), perSec]);
        transactions.set(mode, [...(transactions.get(mode) ?? []), tx]);
      }
      ratios['group/one each']!.push(figures.get('group commit')! / figures.get('one transaction each')!);
      ratios['group/raw']!.push(figures.get('group commit')! / figures.get('raw INSERT')!);
      ratios['one each/raw']!.push(figures.get('one transaction each')! / figures.get('raw INSERT')!);
    }
    console.log(`\n${writers} writers`);
    for (const mode of MODES) {
      console.log(`  ${mode.padEnd(22)} ${Math.round(median(rates.get(mode)!))} appends/s, ${Math.round(median(transactions.get(mode)!))} transactions`);
    }
    for (const [label, values] of Object.entries(ratios)) console.log(`  ${label.padEnd(22)} ${round(median(values))} (median of per-round ratios)`);
  }
} finally {
  await server.stop();
}
