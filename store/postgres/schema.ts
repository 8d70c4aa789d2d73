// Schema of the PostgreSQL event store, as kysely migrations of its own (table es_migrations).
// Ordering: ../shared/research/event-store.md §2.2 (xid8 + pg_snapshot_xmin), §2.3 (stream lock first,
// last_xid monotonicity), §3.3 (idempotency matrix), §3.7 (soft delete keeps the revision).
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';

/**
 * es_append, one round trip per append. `notify`: 0001 created it with a NOTIFY at commit; 0002 takes
 * it out (the store notifies after the commit instead, see postgresEventStore.ts), because the NOTIFY
 * took PostgreSQL's global notify lock at every append's commit and serialised concurrent appends.
 */
export const appendFunction = (notify: boolean): string => `
      -- One round trip per append. Result codes: ok, idempotent, wrong_expected, xid_inversion.
      -- p_kind: any | no_stream | stream_exists | exact (then p_expected holds the revision).
      CREATE OR REPLACE FUNCTION es_append(
        p_stream text, p_kind text, p_expected bigint,
        p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
      ) RETURNS TABLE (result text, current_revision bigint, out_commit xid8, out_prepare bigint)
      LANGUAGE plpgsql AS $$
      DECLARE
        v_revision bigint;
        v_last_xid xid8;
        v_exists boolean;
        v_first_match bigint;
        v_last_match bigint;
        v_matches int;
        v_count int := cardinality(p_ids);
        v_commit xid8;
        v_prepare bigint;
      BEGIN
        -- Lock the stream row as the first write of the transaction: a waiter gets a later xid.
        INSERT INTO es_streams (stream_name) VALUES (p_stream) ON CONFLICT DO NOTHING;
        SELECT s.revision, s.last_xid INTO v_revision, v_last_xid
          FROM es_streams s WHERE s.stream_name = p_stream FOR UPDATE;
        v_exists := v_revision >= 0;

        IF v_last_xid IS NOT NULL AND v_last_xid > pg_current_xact_id() THEN
          RETURN QUERY SELECT 'xid_inversion'::text, v_revision, NULL::xid8, NULL::bigint; RETURN;
        END IF;

        -- Idempotency by (stream, event id): all ids already there, in sequence, is a no-op.
        SELECT count(*), min(e.revision), max(e.revision) INTO v_matches, v_first_match, v_last_match
          FROM es_events e WHERE e.stream_name = p_stream AND e.event_id = ANY (p_ids);
        IF v_matches > 0 THEN
          IF v_matches = v_count AND v_last_match - v_first_match = v_count - 1 AND (
               (p_kind = 'exact' AND v_first_match = p_expected + 1)
            OR (p_kind = 'no_stream' AND v_first_match = 0)
            OR p_kind IN ('any', 'stream_exists')) THEN
            SELECT e.transaction_id, e.global_position INTO v_commit, v_prepare FROM es_events e
              WHERE e.stream_name = p_stream AND e.event_id = ANY (p_ids)
              ORDER BY e.revision DESC LIMIT 1;
            RETURN QUERY SELECT 'idempotent'::text, v_first_match + v_count - 1, v_commit, v_prepare; RETURN;
          END IF;
          RETURN QUERY SELECT 'wrong_expected'::text, v_revision, NULL::xid8, NULL::bigint; RETURN;
        END IF;

        IF (p_kind = 'no_stream' AND v_exists)
          OR (p_kind = 'stream_exists' AND NOT v_exists)
          OR (p_kind = 'exact' AND p_expected <> v_revision) THEN
          RETURN QUERY SELECT 'wrong_expected'::text, v_revision, NULL::xid8, NULL::bigint; RETURN;
        END IF;

        INSERT INTO es_events (stream_name, revision, event_id, event_type, data, metadata)
          SELECT p_stream, v_revision + n.ord, n.id, n.type, n.data, n.metadata
          FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS n(id, type, data, metadata, ord)
          ORDER BY n.ord;
        SELECT e.transaction_id, e.global_position INTO v_commit, v_prepare FROM es_events e
          WHERE e.stream_name = p_stream AND e.revision = v_revision + v_count;
        UPDATE es_streams SET revision = v_revision + v_count, last_xid = pg_current_xact_id()
          WHERE stream_name = p_stream;
${notify ? NOTIFY_AT_COMMIT : ''}        RETURN QUERY SELECT 'ok'::text, v_revision + v_count, v_commit, v_prepare;
      END;
      $$;
`;

const NOTIFY_AT_COMMIT = `        -- Delivered at commit, so a listener never wakes before the rows are visible.
        PERFORM pg_notify('es_events', '');
`;

const createEventStore: Migration = {
  async up(db) {
    await sql`
      CREATE TABLE es_streams (
        stream_name      text PRIMARY KEY,
        revision         bigint NOT NULL DEFAULT -1,
        last_xid         xid8,
        truncate_before  bigint,
        metadata         jsonb
      );
      CREATE SEQUENCE es_global_position;
      CREATE TABLE es_events (
        global_position  bigint NOT NULL DEFAULT nextval('es_global_position'),
        transaction_id   xid8 NOT NULL DEFAULT pg_current_xact_id(),
        stream_name      text NOT NULL,
        revision         bigint NOT NULL,
        event_id         uuid NOT NULL,
        event_type       text NOT NULL,
        data             jsonb NOT NULL,
        metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
        created          timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (stream_name, revision),
        UNIQUE (stream_name, event_id)
      );
      CREATE INDEX es_events_all_order ON es_events (transaction_id, global_position);
    `.execute(db);
    await sql.raw(appendFunction(true)).execute(db);
  },
};

const appendWithoutNotify: Migration = {
  async up(db) {
    await sql.raw(appendFunction(false)).execute(db);
  },
};

class StaticMigrations implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run on a database of any shape
export const migrateEventStore = async (db: Kysely<any>): Promise<void> => {
  const migrator = new Migrator({
    db,
    provider: new StaticMigrations({ '0001_event_store': createEventStore, '0002_append_notifies_after_commit': appendWithoutNotify }),
    migrationTableName: 'es_migrations',
    migrationLockTableName: 'es_migrations_lock',
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
};

export { StaticMigrations };
