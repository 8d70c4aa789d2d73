// The limit: the same rows as our store writes, into the same table (same columns, keys, indexes and
// defaults), as plain INSERTs through pg: one statement per append, autocommit, no stream row, no
// expected-revision or idempotency check, no notification. Reads: the same keyset query as ours
// without the visibility horizon, rows as pg returns them.
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateEventStore } from '../../../store/postgres/schema.js';
import type { StoreUnderTest } from './system.js';

const PAGE = 500;

export const openRaw = async (connectionString: string): Promise<StoreUnderTest> => {
  const migrations = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString, max: 1 }) }) });
  await migrateEventStore(migrations);
  await migrations.destroy();
  const pool = new pg.Pool({ connectionString, max: 10 });
  return {
    async append(stream, revision, events) {
      if (events.length === 1) {
        const e = events[0]!;
        await pool.query('INSERT INTO es_events (stream_name, revision, event_id, event_type, data, metadata) VALUES ($1, $2, $3, $4, $5, $6)', [
          stream,
          revision + 1,
          e.id,
          e.type,
          JSON.stringify(e.data),
          JSON.stringify(e.metadata),
        ]);
        return;
      }
      await pool.query(
        `INSERT INTO es_events (stream_name, revision, event_id, event_type, data, metadata)
         SELECT $1, $2::bigint + n.ord, n.id, n.type, n.data, n.metadata
         FROM unnest($3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS n(id, type, data, metadata, ord)`,
        [
          stream,
          revision,
          events.map((e) => e.id),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => JSON.stringify(e.metadata)),
        ],
      );
    },
    async readAll(count) {
      let read = 0;
      let after: [string, string] | null = null;
      while (read < count) {
        const limit = Math.min(PAGE, count - read);
        const { rows }: pg.QueryResult<{ transaction_id: string; global_position: string }> =
          after !== null
            ? await pool.query(
                `SELECT stream_name, revision, event_id, event_type, data, metadata, created, transaction_id::text, global_position FROM es_events
               WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) ORDER BY es_events.transaction_id, es_events.global_position LIMIT $3`,
                [...after, limit],
              )
            : await pool.query(
                `SELECT stream_name, revision, event_id, event_type, data, metadata, created, transaction_id::text, global_position FROM es_events
               ORDER BY es_events.transaction_id, es_events.global_position LIMIT $1`,
                [limit],
              );
        read += rows.length;
        if (rows.length < limit) break;
        const last: { transaction_id: string; global_position: string } = rows[rows.length - 1]!;
        after = [last.transaction_id, last.global_position];
      }
      return read;
    },
    close: () => pool.end(),
  };
};
