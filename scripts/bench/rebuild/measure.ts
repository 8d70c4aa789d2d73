// The timed part of the rebuild benchmark, in a fresh process so its peak memory (RSS high-water mark)
// is the rebuild's alone: every read model rebuilt blue-green in one pass over the history, exactly as
// `npm run rebuild` does it (projections/rebuild.ts over projections/all.ts); a read model's seconds are
// the wall time during which its batches were applying (they overlap: several read models apply at
// once, and a partitioned one on several lanes).
//   node --import tsx measure.ts <connection string>
import { performance } from 'node:perf_hooks';
import { allProjections } from '../../../projections/all.js';
import { createReadModelDb } from '../../../projections/database.js';
import { rebuildProjections } from '../../../projections/rebuild.js';
import { PostgresEventStore } from '../../../store/postgres/postgresEventStore.js';

export interface ProjectionTiming {
  readonly projection: string;
  /** Wall time during which the read model was applying (RebuildTiming.applySeconds). */
  readonly seconds: number;
  /** Its pieces' times added up: more than `seconds` for a read model applied on several lanes at once. */
  readonly laneSeconds: number;
  readonly applied: number;
}

export type MeasureMessage =
  | { readonly kind: 'progress'; readonly processed: number }
  | {
      readonly kind: 'done';
      readonly events: number;
      readonly seconds: number;
      readonly projections: readonly ProjectionTiming[];
      readonly peakRssMiB: number;
    };

const main = async (): Promise<void> => {
  const connectionString = process.argv[2]!;
  const send = (message: MeasureMessage) => process.send!(message);
  // The same pool sizes as the rebuild script (scripts/support/connect.ts) and the service's store.
  const { db } = createReadModelDb(connectionString, 6);
  const store = await PostgresEventStore.connect(connectionString);
  let reported = 0;
  const started = performance.now();
  const results = await rebuildProjections(db, store, allProjections, {
    onProgress: ({ processed }) => {
      if (processed - reported >= 10_000) {
        send({ kind: 'progress', processed });
        reported = processed;
      }
    },
  });
  const events = results[0]?.events ?? 0;
  const timings: ProjectionTiming[] = results.map((r) => ({
    projection: r.projection,
    seconds: r.applySeconds,
    laneSeconds: r.laneSeconds,
    applied: r.applied,
  }));
  const seconds = (performance.now() - started) / 1000;
  // Linux reports maxRSS in kilobytes.
  const peakRssMiB = process.resourceUsage().maxRSS / 1024;
  send({ kind: 'done', events, seconds, projections: timings, peakRssMiB });
  await store.dispose();
  await db.destroy();
  process.disconnect();
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
