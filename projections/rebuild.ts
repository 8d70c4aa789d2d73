// Blue-green rebuild of one read model: build generation N+1 in its own schema beside N while N keeps
// serving, catch up under the registry lock, point the public views at N+1, drop N.
import { type Kysely, sql } from 'kysely';
import { comparePositions, type EventStore, type Position, positionToString, type RecordedEvent } from '../store/port.js';
import { generationSchema, type Projection } from './projection.js';
import type { ReadModels } from './schema.js';

const BATCH = 1000;

export interface RebuildProgress {
  readonly projection: string;
  readonly processed: number;
}

export interface RebuildResult {
  readonly projection: string;
  readonly generation: number;
  readonly events: number;
  readonly applied: number;
}

const lockKey = (name: string) => sql`pg_advisory_lock(hashtext(${`projection:${name}`}))`;
const unlockKey = (name: string) => sql`pg_advisory_unlock(hashtext(${`projection:${name}`}))`;

/** Applies the events a projection handles, in order, inside `schema`. Returns how many it applied. */
export const applyEvents = async (
  db: Kysely<ReadModels>,
  schema: string,
  projection: Projection,
  events: readonly RecordedEvent[],
): Promise<number> => {
  const scoped = db.withSchema(schema);
  let applied = 0;
  for (const event of events) {
    if (!projection.handles.includes(event.type)) continue;
    await projection.apply(scoped, event);
    applied++;
  }
  return applied;
};

const pointViews = async (db: Kysely<ReadModels>, projection: Projection, schema: string): Promise<void> => {
  for (const table of projection.tables) {
    await sql`DROP VIEW IF EXISTS ${sql.id('public', table)}`.execute(db);
    await sql`CREATE VIEW ${sql.id('public', table)} AS SELECT * FROM ${sql.id(schema, table)}`.execute(db);
  }
};

export const rebuildProjection = async (
  db: Kysely<ReadModels>,
  store: EventStore,
  projection: Projection,
  onProgress: (p: RebuildProgress) => void = () => undefined,
): Promise<RebuildResult> => {
  // One session holds the advisory lock, so two processes never build the same read model at once.
  return db.connection().execute(async (conn) => {
    await sql`SELECT ${lockKey(projection.name)}`.execute(conn);
    try {
      const current = await conn.selectFrom('projection_registry').selectAll().where('name', '=', projection.name)
        .executeTakeFirst();
      const generation = (current ? Math.max(current.generation, current.building_generation ?? 0) : 0) + 1;
      const schema = generationSchema(projection.name, generation);
      await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(conn);
      await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(conn);
      await projection.createTables(conn, schema);
      if (current) {
        await conn.updateTable('projection_registry').set({ building_generation: generation })
          .where('name', '=', projection.name).execute();
      }

      let checkpoint: Position | null = null;
      let processed = 0;
      let applied = 0;
      const flush = async (batch: RecordedEvent[], trx: Kysely<ReadModels>): Promise<void> => {
        applied += await applyEvents(trx, schema, projection, batch);
        processed += batch.length;
        checkpoint = batch[batch.length - 1]!.position;
        onProgress({ projection: projection.name, processed });
      };
      const catchUp = async (trx: Kysely<ReadModels>): Promise<void> => {
        let batch: RecordedEvent[] = [];
        const from = checkpoint ?? 'start';
        for await (const { event } of store.readAll({ fromPosition: from })) {
          if (checkpoint && comparePositions(event.position, checkpoint) <= 0) continue;
          batch.push(event);
          if (batch.length >= BATCH) {
            await flush(batch, trx);
            batch = [];
          }
        }
        if (batch.length) await flush(batch, trx);
      };

      // Bulk of the history, in batches of their own transactions while generation N keeps serving.
      let batch: RecordedEvent[] = [];
      for await (const { event } of store.readAll({ fromPosition: 'start' })) {
        batch.push(event);
        if (batch.length >= BATCH) {
          const full = batch;
          batch = [];
          await conn.transaction().execute((trx) => flush(full, trx));
        }
      }
      if (batch.length) await conn.transaction().execute((trx) => flush(batch, trx));

      // The tail, and the switch, under the registry lock the live runner takes for every batch.
      await conn.transaction().execute(async (trx) => {
        const locked = await trx.selectFrom('projection_registry').selectAll().where('name', '=', projection.name)
          .forUpdate().executeTakeFirst();
        await catchUp(trx);
        // Our tail reaches the visible head, so the live checkpoint is never ahead of it; should it be,
        // the live runner sees a checkpoint behind its cursor and resumes from ours (runner.ts).
        const final: Position | null = checkpoint;
        await pointViews(trx, projection, schema);
        const values = {
          version: projection.version,
          generation,
          checkpoint: final ? positionToString(final) : null,
          building_generation: null,
        };
        if (locked) await trx.updateTable('projection_registry').set(values).where('name', '=', projection.name).execute();
        else await trx.insertInto('projection_registry').values({ name: projection.name, ...values }).execute();
      });
      if (current) {
        await sql`DROP SCHEMA IF EXISTS ${sql.id(generationSchema(projection.name, current.generation))} CASCADE`.execute(conn);
      }
      return { projection: projection.name, generation, events: processed, applied };
    } finally {
      await sql`SELECT ${unlockKey(projection.name)}`.execute(conn);
    }
  });
};
