// kysely migrations of the read-model database: with store/postgres/schema.ts (the event store's own)
// the only place the service's schema changes. Read-model tables themselves are created per generation
// by their projections (rebuild.ts: blue-green); what lives here is everything else in this database:
// the registry that says which generation is active, the processors' checkpoints, and the tables of the
// background work (webhook subscriptions, API key usage, the delivery outbox, the account creation
// queue). Their kysely types are in schema.ts (ServiceTables).
//
// Tables that modules used to create with migrations of their own are adopted where they exist
// (IF NOT EXISTS, data copied), so a database from before this file keeps its contents.
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
  // One checkpoints table instead of three (the registry's column, engine_checkpoints, webhook_checkpoints).
  '0002_processor_checkpoints': {
    async up(db) {
      await sql`CREATE TABLE processor_checkpoints (name text PRIMARY KEY, position text, updated timestamptz NOT NULL DEFAULT now())`.execute(db);
      await sql`INSERT INTO processor_checkpoints (name, position)
        SELECT 'projection:' || name, checkpoint FROM projection_registry`.execute(db);
      await sql`ALTER TABLE projection_registry DROP COLUMN checkpoint`.execute(db);
      await sql`DO $$ BEGIN
        IF to_regclass('public.engine_checkpoints') IS NOT NULL THEN
          INSERT INTO processor_checkpoints (name, position, updated) SELECT name, position, updated FROM engine_checkpoints ON CONFLICT (name) DO NOTHING;
          DROP TABLE engine_checkpoints;
        END IF;
        IF to_regclass('public.webhook_checkpoints') IS NOT NULL THEN
          INSERT INTO processor_checkpoints (name, position, updated) SELECT name, position, updated FROM webhook_checkpoints ON CONFLICT (name) DO NOTHING;
          DROP TABLE webhook_checkpoints;
        END IF;
      END $$`.execute(db);
    },
  },
  // What the webhook dispatcher folds from `$all` (engine/webhooks/dispatcher.ts).
  '0003_webhook_dispatch': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS webhook_subscriptions (
        feature_id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        account_id uuid,
        setting jsonb NOT NULL)`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS webhook_subscriptions_account ON webhook_subscriptions (account_id)`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS webhook_subscriptions_project ON webhook_subscriptions (project_id) WHERE account_id IS NULL`.execute(db);
      await sql`CREATE TABLE IF NOT EXISTS webhook_accounts (account_id uuid PRIMARY KEY, metadata jsonb NOT NULL)`.execute(db);
      await sql`DROP TABLE IF EXISTS webhook_migrations, webhook_migrations_lock`.execute(db);
    },
  },
  // lastUsedAt of API keys (app/apiKeyUsage.ts).
  '0004_api_key_usage': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS api_key_usage (api_key_id uuid PRIMARY KEY, last_used_at timestamptz NOT NULL)`.execute(db);
    },
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run on a database of any shape
export const migrateReadModels = async (db: Kysely<any>): Promise<void> => {
  const { error } = await new Migrator({ db, provider: new StaticMigrations(migrations) }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
};
