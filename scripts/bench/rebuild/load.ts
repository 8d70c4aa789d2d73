// Bulk load of a generated history straight into our event store's tables (keys built after): multi-row INSERTs of 5,000
// rows (unnest of arrays, one statement and one transaction each, in $all order, the next chunk
// generated meanwhile), then the stream rows. These are the rows the store's append would have
// written, without its per-append cost, so making the history is not the slow part of the benchmark.
import type pg from 'pg';
import type { HistoryEvent } from './history.js';

const CHUNK = 5000;

export const loadHistory = async (pool: pg.Pool, events: Iterable<HistoryEvent>, onChunk: (loaded: number) => void): Promise<number> => {
  // As a restore would: the empty table's keys and index come off during the load and are built once
  // after it (same names and definitions as store/postgres/schema.ts), instead of row by row.
  await pool.query(`ALTER TABLE es_events DROP CONSTRAINT es_events_pkey, DROP CONSTRAINT es_events_stream_name_event_id_key;
    DROP INDEX es_events_all_order`);
  const revisions = new Map<string, number>();
  let loaded = 0;
  let chunk: HistoryEvent[] = [];
  const flush = async (): Promise<void> => {
    const rows = chunk;
    chunk = [];
    const revision = rows.map((e) => {
      const next = (revisions.get(e.stream) ?? -1) + 1;
      revisions.set(e.stream, next);
      return next;
    });
    await pool.query(
      `INSERT INTO es_events (stream_name, revision, event_id, event_type, data, metadata, created)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[], $7::timestamptz[])`,
      [
        rows.map((e) => e.stream),
        revision,
        rows.map((e) => e.id),
        rows.map((e) => e.type),
        rows.map((e) => JSON.stringify(e.data)),
        rows.map((e) => JSON.stringify(e.metadata)),
        rows.map((e) => e.created),
      ],
    );
    loaded += rows.length;
    onChunk(rows.length);
  };
  // The next chunk is generated while the previous one is being inserted.
  let inserting: Promise<void> = Promise.resolve();
  for (const event of events) {
    chunk.push(event);
    if (chunk.length >= CHUNK) {
      await inserting;
      inserting = flush();
    }
  }
  await inserting;
  if (chunk.length) await flush();
  await pool.query(`ALTER TABLE es_events ADD PRIMARY KEY (stream_name, revision), ADD UNIQUE (stream_name, event_id);
    CREATE INDEX es_events_all_order ON es_events (transaction_id, global_position)`);
  await pool.query(
    `INSERT INTO es_streams (stream_name, revision)
     SELECT stream_name, max(revision) FROM es_events GROUP BY stream_name
     ON CONFLICT (stream_name) DO UPDATE SET revision = EXCLUDED.revision`,
  );
  await pool.query('ANALYZE es_events');
  return loaded;
};
