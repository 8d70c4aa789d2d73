// The read-model database's migrations adopt a database from before they held every table: the
// modules' own tables and checkpoints (created by migrations of their own then) keep their contents.
import { expect } from 'chai';
import { sql } from 'kysely';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { freshDatabase } from '../support/postgres.js';

describe('read-model migrations', () => {
  it('adopt the tables and checkpoints an earlier version created, keeping their rows', async () => {
    const { db } = createReadModelDb(await freshDatabase());
    try {
      // As the earlier version left it: the registry with its checkpoint column, the engine's and the
      // dispatcher's checkpoint tables, the outbox and the creation queue with migrations of their own.
      await sql`CREATE TABLE kysely_migration (name varchar(255) PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(db);
      await sql`INSERT INTO kysely_migration VALUES ('0001_projection_registry', '2026-01-01T00:00:00.000Z')`.execute(db);
      await sql`CREATE TABLE kysely_migration_lock (id varchar(255) PRIMARY KEY, is_locked integer NOT NULL DEFAULT 0)`.execute(db);
      await sql`INSERT INTO kysely_migration_lock VALUES ('migration_lock', 0)`.execute(db);
      await sql`CREATE TABLE projection_registry (name text PRIMARY KEY, version int NOT NULL, generation int NOT NULL, checkpoint text,
        building_generation int, updated timestamptz NOT NULL DEFAULT now())`.execute(db);
      await sql`INSERT INTO projection_registry (name, version, generation, checkpoint) VALUES ('accounts', 3, 2, '10/10')`.execute(db);
      await sql`CREATE TABLE engine_checkpoints (name text PRIMARY KEY, position text NOT NULL, updated timestamptz NOT NULL DEFAULT now())`.execute(db);
      await sql`INSERT INTO engine_checkpoints (name, position) VALUES ('copy-engine', '9/9')`.execute(db);
      await sql`CREATE TABLE webhook_checkpoints (name text PRIMARY KEY, position text, updated timestamptz NOT NULL DEFAULT now())`.execute(db);
      await sql`INSERT INTO webhook_checkpoints (name, position) VALUES ('webhooks', '8/8')`.execute(db);
      await sql`CREATE TABLE webhook_accounts (account_id uuid PRIMARY KEY, metadata jsonb NOT NULL)`.execute(db);
      await sql`INSERT INTO webhook_accounts VALUES ('11111111-1111-4111-8111-111111111111', '{"alias":"kept"}')`.execute(db);
      await sql`CREATE TABLE delivery_outbox (id uuid PRIMARY KEY, kind text NOT NULL, url text NOT NULL, headers jsonb NOT NULL, body text NOT NULL,
        sealed text, status text NOT NULL DEFAULT 'PENDING', attempts int NOT NULL DEFAULT 0, max_attempts int NOT NULL, backoff_ms int[] NOT NULL,
        next_attempt_at timestamptz NOT NULL, locked_until timestamptz, last_status int, last_error text, created timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz)`.execute(db);
      await sql`INSERT INTO delivery_outbox (id, kind, url, headers, body, max_attempts, backoff_ms, next_attempt_at)
        VALUES ('22222222-2222-4222-8222-222222222222', 'X', 'http://x', '{}', '{}', 3, '{1}', now())`.execute(db);
      await sql`CREATE TABLE delivery_migrations (name varchar(255) PRIMARY KEY, timestamp varchar(255) NOT NULL)`.execute(db);

      await migrateReadModels(db);

      const checkpoints = await sql<{ name: string; position: string }>`SELECT name, position FROM processor_checkpoints ORDER BY name`.execute(db);
      expect(checkpoints.rows).to.deep.equal([
        { name: 'copy-engine', position: '9/9' },
        { name: 'projection:accounts', position: '10/10' },
        { name: 'webhooks', position: '8/8' },
      ]);
      const outbox = await sql<{ id: string; slot_reserved: boolean }>`SELECT id, slot_reserved FROM delivery_outbox`.execute(db);
      expect(outbox.rows).to.deep.equal([{ id: '22222222-2222-4222-8222-222222222222', slot_reserved: false }]);
      const kept = await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_accounts`.execute(db);
      expect(kept.rows[0]!.n).to.equal('1');
      const gone = await sql<{ t: string | null }>`SELECT to_regclass('engine_checkpoints')::text AS t
        UNION ALL SELECT to_regclass('webhook_checkpoints')::text UNION ALL SELECT to_regclass('delivery_migrations')::text`.execute(db);
      expect(gone.rows.map((r) => r.t)).to.deep.equal([null, null, null]);
      // Again: nothing left to do.
      await migrateReadModels(db);
    } finally {
      await db.destroy();
    }
  });
});
