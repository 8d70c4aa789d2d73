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

/**
 * es_append_many: appends of several entries (stream, expectation, events) in one transaction, one
 * round trip. It locks every stream row first, in name order, so two calls sharing streams cannot wait
 * on each other in a cycle, then runs es_append for each entry in the order given (an entry's events
 * are p_counts[i] consecutive elements of the flattened arrays) and answers one row per entry.
 * p_atomic (appendToStreams): the first refused entry raises ES001 (wrong expected revision) or ES002
 * (writer order inverted, retry the call) with DETAIL '<entry>:<current revision>', which rolls back
 * the whole call. Not atomic (group commit of independent appends): every entry gets its own result;
 * a refused entry wrote nothing but its stream row, the others commit.
 */
const appendManyFunction = `
      CREATE OR REPLACE FUNCTION es_append_many(
        p_atomic boolean, p_streams text[], p_kinds text[], p_expected bigint[], p_counts int[],
        p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
      ) RETURNS TABLE (entry int, result text, current_revision bigint, out_commit xid8, out_prepare bigint)
      LANGUAGE plpgsql AS $$
      DECLARE
        v_from int := 1;
        v_to int;
        r record;
      BEGIN
        INSERT INTO es_streams (stream_name)
          SELECT DISTINCT s.name FROM unnest(p_streams) AS s(name) ORDER BY 1 ON CONFLICT DO NOTHING;
        PERFORM 1 FROM es_streams s WHERE s.stream_name = ANY (p_streams) ORDER BY s.stream_name FOR UPDATE;
        FOR i IN 1 .. cardinality(p_streams) LOOP
          v_to := v_from + p_counts[i] - 1;
          SELECT a.result, a.current_revision, a.out_commit, a.out_prepare INTO r
            FROM es_append(p_streams[i], p_kinds[i], p_expected[i], p_ids[v_from:v_to], p_types[v_from:v_to],
                           p_data[v_from:v_to], p_metadata[v_from:v_to]) a;
          v_from := v_to + 1;
          IF p_atomic AND r.result = 'wrong_expected' THEN
            RAISE EXCEPTION 'es_append_many: wrong expected revision' USING ERRCODE = 'ES001', DETAIL = i || ':' || r.current_revision;
          ELSIF p_atomic AND r.result = 'xid_inversion' THEN
            RAISE EXCEPTION 'es_append_many: writer order inverted' USING ERRCODE = 'ES002', DETAIL = i || ':' || r.current_revision;
          END IF;
          entry := i; result := r.result; current_revision := r.current_revision;
          out_commit := r.out_commit; out_prepare := r.out_prepare;
          RETURN NEXT;
        END LOOP;
      END;
      $$;
`;

const appendMany: Migration = {
  async up(db) {
    await sql.raw(appendManyFunction).execute(db);
  },
};

/**
 * es_append_group: the group commit of independent appends (not atomic; per-entry results as
 * es_append_many answers them), set-based: one statement each for the stream locks, the idempotency
 * probe, the expectation checks, the event rows and the stream rows, instead of es_append's five per
 * entry. A group in which a stream comes twice, or an event id is already in its stream (a replay),
 * goes the sequential way (es_append_many), whose answers those cases need.
 * p_entry gives, per event, the 1-based entry it belongs to (entries in order, events in order).
 */
const appendGroupFunction = `
      CREATE OR REPLACE FUNCTION es_append_group(
        p_streams text[], p_kinds text[], p_expected bigint[], p_entry int[],
        p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
      ) RETURNS TABLE (entry int, result text, current_revision bigint, out_commit xid8, out_prepare bigint)
      LANGUAGE plpgsql AS $$
      DECLARE
        v_n int := cardinality(p_streams);
        v_revision bigint[];
        v_last_xid xid8[];
        v_result text[] := array_fill(NULL::text, ARRAY[cardinality(p_streams)]);
        v_next bigint[] := array_fill(NULL::bigint, ARRAY[cardinality(p_streams)]);
        v_commit xid8[] := array_fill(NULL::xid8, ARRAY[cardinality(p_streams)]);
        v_prepare bigint[] := array_fill(NULL::bigint, ARRAY[cardinality(p_streams)]);
        v_counts int[];
        v_xid xid8;
        v_exists boolean;
        r record;
      BEGIN
        IF (SELECT count(DISTINCT s.name) FROM unnest(p_streams) AS s(name)) < v_n
          OR EXISTS (SELECT 1 FROM unnest(p_entry, p_ids) AS x(i, id)
                     JOIN es_events e ON e.stream_name = p_streams[x.i] AND e.event_id = x.id) THEN
          SELECT array_agg(c.cnt ORDER BY c.i) INTO v_counts
            FROM (SELECT x.i, count(*)::int AS cnt FROM unnest(p_entry) AS x(i) GROUP BY x.i) c;
          RETURN QUERY SELECT * FROM es_append_many(false, p_streams, p_kinds, p_expected, v_counts,
                                                    p_ids, p_types, p_data, p_metadata);
          RETURN;
        END IF;

        -- Stream rows first (new ones created), locked in name order: the first write takes our xid.
        INSERT INTO es_streams (stream_name)
          SELECT s.name FROM unnest(p_streams) AS s(name) ORDER BY 1 ON CONFLICT DO NOTHING;
        PERFORM 1 FROM es_streams s WHERE s.stream_name = ANY (p_streams) ORDER BY s.stream_name FOR UPDATE;
        v_xid := pg_current_xact_id();
        SELECT array_agg(s.revision ORDER BY e.i), array_agg(s.last_xid ORDER BY e.i) INTO v_revision, v_last_xid
          FROM unnest(p_streams) WITH ORDINALITY AS e(name, i) JOIN es_streams s ON s.stream_name = e.name;

        FOR i IN 1 .. v_n LOOP
          v_exists := v_revision[i] >= 0;
          IF v_last_xid[i] IS NOT NULL AND v_last_xid[i] > v_xid THEN
            v_result[i] := 'xid_inversion';
          ELSIF (p_kinds[i] = 'no_stream' AND v_exists)
             OR (p_kinds[i] = 'stream_exists' AND NOT v_exists)
             OR (p_kinds[i] = 'exact' AND p_expected[i] <> v_revision[i]) THEN
            v_result[i] := 'wrong_expected';
          ELSE
            v_result[i] := 'ok';
          END IF;
          v_next[i] := v_revision[i];
        END LOOP;

        FOR r IN
          WITH inserted AS (
            INSERT INTO es_events (stream_name, revision, event_id, event_type, data, metadata)
              SELECT p_streams[x.i], v_revision[x.i] + row_number() OVER (PARTITION BY x.i ORDER BY x.k),
                     x.id, x.type, x.data, x.metadata
              FROM unnest(p_entry, p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS x(i, id, type, data, metadata, k)
              WHERE v_result[x.i] = 'ok'
              ORDER BY x.k
            RETURNING es_events.stream_name, es_events.revision, es_events.transaction_id, es_events.global_position
          )
          SELECT DISTINCT ON (ins.stream_name) ins.stream_name, ins.revision, ins.transaction_id, ins.global_position
            FROM inserted ins ORDER BY ins.stream_name, ins.revision DESC
        LOOP
          FOR i IN 1 .. v_n LOOP
            IF p_streams[i] = r.stream_name THEN
              v_next[i] := r.revision; v_commit[i] := r.transaction_id; v_prepare[i] := r.global_position;
            END IF;
          END LOOP;
        END LOOP;

        UPDATE es_streams s SET revision = u.next, last_xid = v_xid
          FROM unnest(p_streams, v_next, v_result) AS u(name, next, result)
          WHERE s.stream_name = u.name AND u.result = 'ok';

        RETURN QUERY SELECT u.i::int, u.result, u.next, u.commit, u.prepare
          FROM unnest(v_result, v_next, v_commit, v_prepare) WITH ORDINALITY AS u(result, next, commit, prepare, i)
          ORDER BY u.i;
      END;
      $$;
`;

const appendGroup: Migration = {
  async up(db) {
    await sql.raw(appendGroupFunction).execute(db);
  },
};

/**
 * es_append with two statements fewer per append (issue 16, single-event appends by 8 writers): the
 * stream row is locked first and created only when it is missing (0002 tried to create it every time,
 * an index probe each), and the new events' position comes back from their INSERT (0002 read the row
 * back). Same results, same locking order: the lock (or the creation) is still the first write.
 */
const appendFunctionFewerStatements = `
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
        SELECT s.revision, s.last_xid INTO v_revision, v_last_xid
          FROM es_streams s WHERE s.stream_name = p_stream FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO es_streams (stream_name) VALUES (p_stream) ON CONFLICT DO NOTHING;
          SELECT s.revision, s.last_xid INTO v_revision, v_last_xid
            FROM es_streams s WHERE s.stream_name = p_stream FOR UPDATE;
        END IF;
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

        WITH inserted AS (
          INSERT INTO es_events (stream_name, revision, event_id, event_type, data, metadata)
            SELECT p_stream, v_revision + n.ord, n.id, n.type, n.data, n.metadata
            FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS n(id, type, data, metadata, ord)
            ORDER BY n.ord
          RETURNING es_events.revision, es_events.transaction_id, es_events.global_position)
        SELECT i.transaction_id, i.global_position INTO v_commit, v_prepare FROM inserted i ORDER BY i.revision DESC LIMIT 1;
        UPDATE es_streams SET revision = v_revision + v_count, last_xid = pg_current_xact_id()
          WHERE stream_name = p_stream;
        RETURN QUERY SELECT 'ok'::text, v_revision + v_count, v_commit, v_prepare;
      END;
      $$;
`;

const appendFewerStatements: Migration = {
  async up(db) {
    await sql.raw(appendFunctionFewerStatements).execute(db);
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
    provider: new StaticMigrations({
      '0001_event_store': createEventStore,
      '0002_append_notifies_after_commit': appendWithoutNotify,
      '0003_append_many': appendMany,
      '0004_append_group': appendGroup,
      '0005_append_fewer_statements': appendFewerStatements,
    }),
    migrationTableName: 'es_migrations',
    migrationLockTableName: 'es_migrations_lock',
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
};

export { StaticMigrations };
