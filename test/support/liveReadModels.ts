// A suite's own database with the event store and every read model migrated, and a runner applying all
// projections as the service does: the set-up of the specs that compare a rebuilt read model with the
// live one.
import type { Kysely } from 'kysely';
import { allProjections } from '../../projections/all.js';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { ProjectionRunner } from '../../projections/runner.js';
import type { ReadModels } from '../../projections/schema.js';
import { PostgresEventStore } from '../../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../../store/postgres/schema.js';
import { freshDatabase } from './postgres.js';

export interface LiveReadModels {
  readonly db: Kysely<ReadModels>;
  readonly store: PostgresEventStore;
  readonly runner: ProjectionRunner;
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Registers the suite's before and after hooks (call it in a describe body); the answer's members are
 * set once the before hook ran.
 */
export const liveReadModels = (): LiveReadModels => {
  const live = {} as { db: Kysely<ReadModels>; store: PostgresEventStore; runner: ProjectionRunner };
  before(async () => {
    const url = await freshDatabase();
    live.db = createReadModelDb(url).db;
    await migrateEventStore(live.db);
    await migrateReadModels(live.db);
    live.store = await PostgresEventStore.connect(url);
    live.runner = new ProjectionRunner(live.db, live.store, allProjections, quiet);
    await live.runner.start();
  });
  after(async () => {
    await live.runner.stop();
    await live.store.dispose();
    await live.db.destroy();
  });
  return live;
};
