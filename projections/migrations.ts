// kysely migrations of the read-model side. Read-model tables themselves are created per generation by
// their projections (runner.ts); what lives here is the registry that says which generation is active.
import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import { StaticMigrations } from '../store/postgres/schema.js';

const migrations: Record<string, Migration> = {
  '0001_projection_registry': {
    async up(db) {
      await sql`CREATE TABLE projection_registry (
        name text PRIMARY KEY,
        version int NOT NULL,
        generation int NOT NULL,
        checkpoint text,
        building_generation int,
        updated timestamptz NOT NULL DEFAULT now())`.execute(db);
    },
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run on a database of any shape
export const migrateReadModels = async (db: Kysely<any>): Promise<void> => {
  const { error } = await new Migrator({ db, provider: new StaticMigrations(migrations) }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
};
