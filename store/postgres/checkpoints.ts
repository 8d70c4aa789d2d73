// Where each processor of `$all` has got to: one table, one row per processor (the copy engine, the
// webhook dispatcher, each read model as `projection:<name>`). A consumer whose effects live in the
// same database writes its checkpoint in the transaction of those effects (exactly once); the copy
// engine, whose effects are appends and venue orders, writes it after them (at least once, made safe by
// deterministic ids). The table is created by the read-model migrations (projections/migrations.ts).
import { type ColumnType, type Kysely, sql } from 'kysely';
import { type Position, positionFromString, positionToString } from '../port.js';

export interface ProcessorCheckpointsTable {
  name: string;
  /** positionToString of the last event the processor is done with; null: nothing yet. */
  position: string | null;
  updated: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface CheckpointTables {
  processor_checkpoints: ProcessorCheckpointsTable;
}

/** The read-model row name of a projection's checkpoint. */
export const projectionCheckpoint = (projection: string): string => `projection:${projection}`;

/**
 * A kysely instance or transaction of any database that has the checkpoint table (the read-model
 * database): kysely's types are invariant in the database, so a wider one is taken as it is.
 */
export interface AnyKysely {
  readonly isTransaction: boolean;
}

const tables = (db: AnyKysely): Kysely<CheckpointTables> => db as unknown as Kysely<CheckpointTables>;

const parse = (value: string | null | undefined): Position | null => (value ? positionFromString(value) : null);

/** The saved checkpoints of `names` (a name never saved is missing from the map). */
export const loadCheckpoints = async (db: AnyKysely, names: readonly string[]): Promise<Map<string, Position | null>> => {
  if (names.length === 0) return new Map();
  const rows = await tables(db).selectFrom('processor_checkpoints').select(['name', 'position']).where('name', 'in', names).execute();
  return new Map(rows.map((r) => [r.name, parse(r.position)]));
};

/** The saved checkpoint of `name`: undefined when never saved, null when saved before any event. */
export const loadCheckpoint = async (db: AnyKysely, name: string): Promise<Position | null | undefined> => {
  const saved = await loadCheckpoints(db, [name]);
  return saved.has(name) ? saved.get(name)! : undefined;
};

/**
 * The checkpoint of `name`, its row locked until the transaction ends (created empty when missing): a
 * second instance, or a rebuild, applying the same events waits and then sees how far this one got.
 */
export const lockCheckpoint = async (trx: AnyKysely, name: string): Promise<Position | null> => {
  await sql`INSERT INTO processor_checkpoints (name, position) VALUES (${name}, NULL) ON CONFLICT (name) DO NOTHING`.execute(tables(trx));
  const row = await tables(trx).selectFrom('processor_checkpoints').select('position').where('name', '=', name).forUpdate().executeTakeFirst();
  return parse(row?.position);
};

/** Saves `position` as the checkpoint of every name in `names` (inside the caller's transaction when it has one). */
export const saveCheckpoints = async (db: AnyKysely, names: readonly string[], position: Position | null): Promise<void> => {
  if (names.length === 0) return;
  const value = position ? positionToString(position) : null;
  await tables(db)
    .insertInto('processor_checkpoints')
    .values(names.map((name) => ({ name, position: value, updated: new Date() })))
    .onConflict((oc) => oc.column('name').doUpdateSet({ position: value, updated: new Date() }))
    .execute();
};
