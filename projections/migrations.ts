// kysely migrations of the read-model database: with store/postgres/schema.ts (the event store's own)
// the only place the service's schema changes. Read-model tables themselves are created per generation
// by their projections (rebuild.ts: blue-green); what lives here is everything else in this database:
// the registry that says which generation is active, the processors' checkpoints, and the tables of the
// background work (webhook subscriptions, API key usage, the delivery outbox, the account creation
// queue, the read model rebuilds started through the API). Their kysely types are in schema.ts (ServiceTables).
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
  // The durable outbox of outgoing deliveries: callbacks and webhooks (engine/delivery/outbox.ts).
  '0005_delivery_outbox': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS delivery_outbox (
        id uuid PRIMARY KEY,
        kind text NOT NULL,
        url text NOT NULL,
        headers jsonb NOT NULL,
        body text NOT NULL,
        sealed text,
        status text NOT NULL DEFAULT 'PENDING',
        attempts int NOT NULL DEFAULT 0,
        max_attempts int NOT NULL,
        backoff_ms int[] NOT NULL,
        next_attempt_at timestamptz NOT NULL,
        locked_until timestamptz,
        last_status int,
        last_error text,
        created timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz)`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS delivery_outbox_due ON delivery_outbox (next_attempt_at) WHERE status = 'PENDING'`.execute(db);
      await sql`ALTER TABLE delivery_outbox
        ADD COLUMN IF NOT EXISTS seq bigserial,
        ADD COLUMN IF NOT EXISTS timeout_ms int,
        ADD COLUMN IF NOT EXISTS rate_key text,
        ADD COLUMN IF NOT EXISTS min_interval_ms int,
        ADD COLUMN IF NOT EXISTS slot_reserved boolean NOT NULL DEFAULT false,
        ADD COLUMN IF NOT EXISTS auth jsonb,
        ADD COLUMN IF NOT EXISTS feature_id uuid,
        ADD COLUMN IF NOT EXISTS account_id uuid,
        ADD COLUMN IF NOT EXISTS event_type text,
        ADD COLUMN IF NOT EXISTS last_attempt_at timestamptz`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS delivery_outbox_feature ON delivery_outbox (feature_id, created DESC) WHERE feature_id IS NOT NULL`.execute(db);
      await sql`CREATE TABLE IF NOT EXISTS delivery_rate_slots (rate_key text PRIMARY KEY, next_slot timestamptz NOT NULL)`.execute(db);
      await sql`DROP TABLE IF EXISTS delivery_migrations, delivery_migrations_lock`.execute(db);
    },
  },
  // Queued asynchronous account creations (app/accounts/asyncCreation.ts).
  '0006_account_creation_requests': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS account_creation_sequences (project_id uuid PRIMARY KEY, last_seq bigint NOT NULL)`.execute(db);
      await sql`CREATE TABLE IF NOT EXISTS account_creation_requests (
        request_id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        seq bigint NOT NULL,
        status text NOT NULL,
        account_id uuid NOT NULL,
        settings jsonb NOT NULL,
        fail_if_exists boolean NOT NULL,
        callback_url text NOT NULL,
        context jsonb NOT NULL,
        error jsonb,
        created timestamptz NOT NULL,
        started_at timestamptz,
        completed_at timestamptz,
        UNIQUE (project_id, seq))`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS account_creation_pending ON account_creation_requests (project_id, seq)
        WHERE status IN ('QUEUED', 'PROCESSING')`.execute(db);
      await sql`DROP TABLE IF EXISTS account_creation_migrations, account_creation_migrations_lock`.execute(db);
    },
  },
  // The API requests that may change something (POST, PUT, DELETE), as the audit log shows them beside
  // the changes they made (projections/auditLogs/requests.ts). Written by the HTTP layer, not rebuilt.
  '0007_audit_api_requests': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS api_requests (
        request_id uuid PRIMARY KEY,
        project_id uuid NOT NULL,
        account_id uuid,
        api_key_id uuid,
        method text NOT NULL,
        endpoint text NOT NULL,
        query_string text,
        status_code int NOT NULL,
        duration_ms bigint NOT NULL,
        ip_address text,
        user_agent text,
        server_host text NOT NULL,
        request_headers text NOT NULL,
        request_body text,
        request_body_size bigint NOT NULL,
        response_body text,
        response_body_size bigint NOT NULL,
        error_message text,
        received_at timestamptz NOT NULL)`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS api_requests_project ON api_requests (project_id, received_at)`.execute(db);
    },
  },
  // The read model rebuilds started through the API and their progress (app/readModels.ts).
  '0008_read_model_rebuilds': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS read_model_rebuilds (
        id uuid PRIMARY KEY,
        read_model text NOT NULL,
        state text NOT NULL,
        phase text,
        processed bigint NOT NULL DEFAULT 0,
        total bigint NOT NULL DEFAULT 0,
        generation int,
        project_id uuid,
        api_key_id uuid,
        error text,
        started_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz)`.execute(db);
      await sql`CREATE INDEX IF NOT EXISTS read_model_rebuilds_latest ON read_model_rebuilds (read_model, started_at DESC)`.execute(db);
    },
  },
  // The iCal feed's requests per subscription in the current minute, shared by the instances (app/alertsFeedRate.ts).
  '0011_calendar_feed_rate': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS calendar_feed_rate (
        subscription_id uuid PRIMARY KEY,
        window_start timestamptz NOT NULL,
        count integer NOT NULL)`.execute(db);
    },
  },
  // The last good round of each timed leased job, for every instance's /ready (store/postgres/jobRounds.ts).
  '0029_leased_job_rounds': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS leased_job_rounds (
        lease text PRIMARY KEY,
        every_ms integer NOT NULL,
        won timestamptz,
        good timestamptz,
        failed timestamptz,
        error text)`.execute(db);
    },
  },
  // Each market news feed's last good read and failures in a row since, for /metrics (app/marketNewsFeeds.ts).
  '0031_market_news_feeds': {
    async up(db) {
      await sql`CREATE TABLE IF NOT EXISTS market_news_feeds (
        feed text PRIMARY KEY,
        last_success timestamptz,
        last_failure timestamptz,
        consecutive_failures integer NOT NULL DEFAULT 0,
        last_error text)`.execute(db);
    },
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run on a database of any shape
export const migrateReadModels = async (db: Kysely<any>): Promise<void> => {
  // Unordered: numbers are handed out before parallel work lands, so a database may have run a later one
  // (0011) before an earlier one (0009) existed; every migration here is independent of the others.
  const { error } = await new Migrator({ db, provider: new StaticMigrations(migrations), allowUnorderedMigrations: true }).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
};
