// The timed part of the rebuild benchmark, in a fresh process so its peak memory (RSS high-water mark)
// is the rebuild's alone: every read model rebuilt blue-green, one after the other, exactly as
// `npm run rebuild` does it (projections/rebuild.ts over projections/all.ts).
//   node --import tsx measure.ts <connection string>
import { performance } from 'node:perf_hooks';
import { allProjections } from '../../../projections/all.js';
import { createReadModelDb } from '../../../projections/database.js';
import { rebuildProjection } from '../../../projections/rebuild.js';
import { PostgresEventStore } from '../../../store/postgres/postgresEventStore.js';

export interface ProjectionTiming {
  readonly projection: string;
  readonly seconds: number;
  readonly applied: number;
}

export type MeasureMessage =
  | { readonly kind: 'progress'; readonly processed: number }
  | { readonly kind: 'done'; readonly events: number; readonly seconds: number; readonly projections: readonly ProjectionTiming[]; readonly peakRssMiB: number };

const main = async (): Promise<void> => {
  const connectionString = process.argv[2]!;
  const send = (message: MeasureMessage) => process.send!(message);
  // The same pool sizes as the rebuild script (scripts/support/connect.ts) and the service's store.
  const { db } = createReadModelDb(connectionString, 4);
  const store = await PostgresEventStore.connect(connectionString);
  const timings: ProjectionTiming[] = [];
  let done = 0;
  let events = 0;
  const started = performance.now();
  for (const projection of allProjections) {
    const began = performance.now();
    let reported = 0;
    const result = await rebuildProjection(db, store, projection, ({ processed }) => {
      if (processed - reported >= 10_000) {
        send({ kind: 'progress', processed: done + processed });
        reported = processed;
      }
    });
    done += result.events;
    events = result.events;
    timings.push({ projection: projection.name, seconds: (performance.now() - began) / 1000, applied: result.applied });
  }
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
