// npm run rebuild [-- --projection NAME]: rebuilds read models from the event store, blue-green (the old
// generation keeps serving until the new one has caught up), with a progress bar and a final count.
import cliProgress from 'cli-progress';
import { sql } from 'kysely';
import { allProjections, projectionByName } from '../projections/all.js';
import { rebuildProjections, type RebuildTiming } from '../projections/rebuild.js';
import { connect, parseArgs } from './support/connect.js';

/** A partitioned read model's pieces apply side by side: its lane seconds, added up, are more than its wall time. */
const lanes = (result: RebuildTiming): string =>
  result.laneSeconds > result.applySeconds + 0.05 ? ` (${result.laneSeconds.toFixed(1)} s on its lanes added up)` : '';

const main = async (): Promise<void> => {
  const args = parseArgs(process.argv.slice(2), ['projection', 'help']);
  if (args.has('help')) {
    console.log(`usage: npm run rebuild [-- --projection NAME]\nread models: ${allProjections.map((p) => p.name).join(', ')}`);
    return;
  }
  const names = (args.get('projection') ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !projectionByName(n));
  if (unknown.length) {
    throw new Error(`unknown read model ${unknown.join(', ')}; known: ${allProjections.map((p) => p.name).join(', ')}`);
  }
  const chosen = names.length ? names.map((n) => projectionByName(n)!) : allProjections;
  const { db, store, config, close } = await connect();
  try {
    const total = config.eventStoreConnectionString ? 0 : Number((await sql<{ n: string }>`SELECT count(*) AS n FROM es_events`.execute(db)).rows[0]!.n);
    const tty = process.stdout.isTTY === true;
    const started = Date.now();
    const names = chosen.map((p) => p.name).join(', ');
    // One pass over the history feeds every chosen read model (projections/rebuild.ts).
    const bar = new cliProgress.SingleBar(
      { format: `rebuilding [{bar}] {percentage}% | {value}/{total} events | {eta_formatted} left`, noTTYOutput: false },
      cliProgress.Presets.shades_classic,
    );
    console.log(`rebuilding ${names}`);
    if (tty) bar.start(Math.max(total, 1), 0);
    let lastLine = 0;
    const results = await rebuildProjections(db, store, chosen, {
      onProgress: ({ processed }) => {
        if (tty) bar.update(Math.min(processed, Math.max(total, processed)), { total: Math.max(total, processed) });
        else if (Date.now() - lastLine > 2000) {
          lastLine = Date.now();
          console.log(`${processed}${total ? `/${total}` : ''} events`);
        }
      },
    });
    if (tty) {
      bar.update(results[0]?.events ?? 0);
      bar.stop();
    }
    for (const result of results) {
      console.log(
        `rebuilt ${result.projection}: ${result.events} events read, ${result.applied} applied, generation ${result.generation}, ${result.applySeconds.toFixed(1)} s applying${lanes(result)}`,
      );
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(`${results[0]?.events ?? 0} events read once for ${results.length} read models in ${seconds.toFixed(1)} s`);
  } finally {
    await close();
  }
};

main().catch((error: unknown) => {
  console.error(`rebuild failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
