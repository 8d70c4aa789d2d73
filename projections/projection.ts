// A read model: its name, version, the event types it handles, its tables and how an event changes them.
// The projector writes into the schema of one generation; the API reads public views of the same names.
import {
  type Insertable,
  type Kysely,
  type OnConflictBuilder,
  type OnConflictDoNothingBuilder,
  type OnConflictUpdateBuilder,
  type RawBuilder,
  sql,
  type Transaction,
} from 'kysely';
import { arrayLiteral } from '../store/postgres/arrayLiteral.js';
import type { RecordedEvent } from '../store/port.js';
import type { ReadModels } from './schema.js';

export interface Projection {
  readonly name: string;
  /** Raise it when the tables or the fold change: the next start rebuilds the read model blue-green. */
  readonly version: number;
  readonly handles: readonly string[];
  /** Tables of one generation; each is exposed as a public view with the same name. */
  readonly tables: readonly (keyof ReadModels)[];
  /** Creates the tables inside `schema` (an empty schema of a new generation). */
  readonly createTables: (db: Kysely<ReadModels> | Transaction<ReadModels>, schema: string) => Promise<void>;
  /**
   * Optional: indexes inside `schema` that only the queries need, not what a rebuild applies to the
   * bulk of the history (rebuildFold, else applyBatch, else apply, reads through none of them). Whoever
   * creates the tables creates these too: a rebuild after the bulk of the history, in one pass each,
   * instead of entry by entry.
   */
  readonly createIndexes?: (db: Kysely<ReadModels> | Transaction<ReadModels>, schema: string) => Promise<void>;
  /**
   * Applies one event; `db` is already scoped to the generation's schema. Use the query builder: raw SQL
   * is not scoped and would write through the public view into the serving generation.
   */
  readonly apply: (db: Kysely<ReadModels>, event: RecordedEvent) => Promise<void>;
  /**
   * Optional: applies a batch of the events it handles (in order) at once, with the same effect as
   * `apply` on each in turn but in fewer statements. The runner and the rebuild use it when present.
   */
  readonly applyBatch?: (db: Kysely<ReadModels>, events: readonly RecordedEvent[]) => Promise<void>;
  /**
   * Optional: a key such that events of different keys change different rows (and read none the other
   * changes), so a rebuild may apply them in separate transactions at the same time, each key's events
   * still in order. Without it, a batch is applied in one piece.
   */
  readonly partitionOf?: (event: RecordedEvent) => string;
  /**
   * Optional: for a rebuild's bulk of the history, a batch fold that keeps state in memory instead of
   * reading it back (it is given every event of the history it handles, in order, starting on empty
   * tables nobody else writes; with partitionOf, one fold per partition, given that partition's).
   * Once every batch is applied and `finish` has run, the tables are what applyBatch would have left;
   * the rebuild applies the tail with applyBatch, reading the tables.
   */
  readonly rebuildFold?: () => RebuildFold;
}

/** A rebuild's fold of one read model (or one partition of it): Projection.rebuildFold. */
export interface RebuildFold {
  /** Folds a batch; may write rows, or keep them in memory until `finish` (a row no later event can change may be written at once). */
  readonly apply: (db: Kysely<ReadModels>, events: readonly RecordedEvent[]) => Promise<void>;
  /** Writes what is still held in memory: after the last batch, before anything reads the tables. */
  readonly finish: (db: Kysely<ReadModels>) => Promise<void>;
}

/** Rows per multi-row statement of a batch: far below PostgreSQL's 65,535 parameters for any read model. */
const ROWS_PER_STATEMENT = 1000;

/** `rows` in groups of at most ROWS_PER_STATEMENT, one statement each (applyBatch). */
export const statementChunks = <T>(rows: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(rows.length / ROWS_PER_STATEMENT) }, (_, i) => rows.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));

/** The PostgreSQL type of each column of a table's rows, in the order unnestRows sends them. */
export type ColumnTypes<T extends keyof ReadModels> = { readonly [K in keyof Insertable<ReadModels[T]>]?: string };

type Conflict = (
  oc: OnConflictBuilder<Record<string, Record<string, unknown>>, string>,
) => OnConflictDoNothingBuilder<never, never> | OnConflictUpdateBuilder<never, never>;

/** `rows` into `table` in statementChunks, as arrays per column with `types` (else a VALUES list), each statement with `conflict` if any. */
const writeRows = async <T extends keyof ReadModels & string>(
  db: Kysely<ReadModels>,
  table: T,
  rows: readonly Insertable<ReadModels[T]>[],
  types: ColumnTypes<T> | undefined,
  conflict: Conflict | undefined,
): Promise<void> => {
  // kysely cannot check a row or a column against a table chosen by a type parameter; T ties them here.
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (const chunk of statementChunks(rows)) {
    const insert = untyped.insertInto(table);
    const rowsOf = types ? insert.columns(unnestColumns(types)).expression(unnestRows(chunk, types)) : insert.values(chunk as Record<string, unknown>[]);
    await (conflict ? rowsOf.onConflict(conflict as never) : rowsOf).execute();
  }
};

/**
 * Inserts `rows` into `table` in multi-row statements (statementChunks) where the first row of a key
 * wins, in the batch as in the table (ON CONFLICT (key) DO NOTHING): the rule of every read model that
 * keeps a record as it was first told (a closed volume, a balance operation, a sample). With `types`
 * (every column of the rows, with its PostgreSQL type), the rows go as one array per column
 * (unnestRows), which PostgreSQL parses far faster than a VALUES list of the same rows.
 */
export const insertFirstOfKey = <T extends keyof ReadModels & string>(
  db: Kysely<ReadModels>,
  table: T,
  rows: readonly Insertable<ReadModels[T]>[],
  key: readonly (keyof ReadModels[T] & string)[],
  types?: ColumnTypes<T>,
): Promise<void> => writeRows(db, table, rows, types, (oc) => oc.columns([...key]).doNothing());

/**
 * Writes `rows` (of distinct keys) into `table`, each replacing the row of its key (ON CONFLICT (key)
 * DO UPDATE of the `update` columns, by default every column of `types` outside the key), as one array
 * per column (unnestRows) in statementChunks.
 */
export const upsertRows = <T extends keyof ReadModels & string>(
  db: Kysely<ReadModels>,
  table: T,
  rows: readonly Insertable<ReadModels[T]>[],
  key: readonly (keyof ReadModels[T] & string)[],
  types: ColumnTypes<T>,
  update: readonly string[] = unnestColumns(types).filter((c) => !(key as readonly string[]).includes(c)),
): Promise<void> =>
  writeRows(db, table, rows, types, (oc) => oc.columns([...key]).doUpdateSet((eb) => Object.fromEntries(update.map((c) => [c, eb.ref(`excluded.${c}`)]))));

/** insertFirstOfKey's signature: how a read model's batch writes rows of which the first of a key wins. */
export type FirstOfKeyWriter = <T extends keyof ReadModels & string>(
  db: Kysely<ReadModels>,
  table: T,
  rows: readonly Insertable<ReadModels[T]>[],
  key: readonly (keyof ReadModels[T] & string)[],
  types: ColumnTypes<T>,
) => Promise<void>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A key column's value as PostgreSQL tells keys apart: a uuid in any spelling it accepts (upper case,
 * braces, hyphens anywhere or none) as its one canonical spelling; a text as it is.
 */
const keyPart = (type: string | undefined, value: unknown): string => {
  const text = String(value);
  if (type === 'text') return text;
  if (type !== 'uuid') throw new Error(`a keyless rebuild keeps keys of uuid and text columns only, not ${type}`);
  if (UUID.test(text)) return text;
  const hex = text.replace(/[{}-]/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** Keys written, one level per key column (the values of the first columns are shared by the keys under them). */
type WrittenKeys = Map<string, WrittenKeys | true>;

/** Adds the key of `parts` to `written`; false if it was there already. */
const addKey = (written: WrittenKeys, parts: readonly string[]): boolean => {
  let level = written;
  for (let i = 0; i < parts.length - 1; i++) {
    let next = level.get(parts[i]!);
    if (next === undefined) level.set(parts[i]!, (next = new Map()));
    level = next as WrittenKeys;
  }
  const last = parts[parts.length - 1]!;
  if (level.has(last)) return false;
  level.set(last, true);
  return true;
};

/**
 * For a rebuild's fold (Projection.rebuildFold) of a read model whose tables only its insertFirstOfKey
 * writes: the same rows without a primary key to maintain per row. A table's primary key (the key its
 * rows are written under; named `<table>_pkey`, as CREATE TABLE names it) is dropped at its first write,
 * the rows go as plain INSERTs, and `finish` makes the key again in one pass. The keys written are kept
 * in memory (text and uuid columns as PostgreSQL compares them; no other key type is taken), so a
 * later row of a key is left out as ON CONFLICT DO NOTHING leaves it: in the batch and across batches.
 * One per fold: it relies on being the only writer of the tables, from empty, as a rebuild's fold is.
 */
export const keylessFirstOfKey = (): { readonly insert: FirstOfKeyWriter; readonly finish: (db: Kysely<ReadModels>) => Promise<void> } => {
  const tables = new Map<string, { readonly key: readonly string[]; readonly written: WrittenKeys }>();
  const insert: FirstOfKeyWriter = async (db, table, rows, key, types) => {
    if (rows.length === 0) return;
    let written = tables.get(table)?.written;
    if (!written) {
      await db.schema.alterTable(table).dropConstraint(`${table}_pkey`).execute();
      tables.set(table, { key, written: (written = new Map()) });
    }
    const columnTypes = key.map((column) => (types as Record<string, string | undefined>)[column]);
    const first = rows.filter((row) =>
      addKey(
        written,
        key.map((column, i) => keyPart(columnTypes[i], (row as Record<string, unknown>)[column])),
      ),
    );
    await writeRows(db, table, first, types, undefined);
  };
  return {
    insert,
    async finish(db) {
      for (const [table, { key }] of tables) {
        await (db as unknown as Kysely<Record<string, Record<string, unknown>>>).schema
          .alterTable(table)
          .addPrimaryKeyConstraint(`${table}_pkey`, [...key])
          .execute();
      }
      tables.clear();
    },
  };
};

/** The literal each of unnestRows' columns goes as (store/postgres/arrayLiteral.ts). */
export { arrayLiteral };

export const generationSchema = (name: string, generation: number): string => `rm_${name}_g${generation}`;

/**
 * Rows as `SELECT * FROM unnest($1::type[], $2::type[], ...)`: one array parameter per column, for
 * `insertInto(table).columns(Object.keys(types)).expression(...)`. PostgreSQL parses and plans this in
 * a fraction of the time a VALUES list of the same rows takes (one parameter per value). Every row
 * gives every column of `types` (null for none: a column's default does not apply). Each array goes
 * as the text of its literal (arrayLiteral), not as a JavaScript array for pg to escape.
 */
export const unnestRows = <R extends object>(rows: readonly R[], types: { readonly [K in keyof R]?: string }): RawBuilder<unknown> =>
  unnestArrays(Object.fromEntries(Object.keys(types).map((column) => [column, rows.map((row) => (row as Record<string, unknown>)[column])])), types);

/**
 * unnestRows of rows given column by column: `columns[c][i]` is row i's value of column c, for every
 * column c of `types` (a fold that gathers its rows as columns makes no object per row).
 */
export const unnestArrays = (
  columns: { readonly [column: string]: readonly unknown[] },
  types: { readonly [column: string]: string | undefined },
): RawBuilder<unknown> =>
  sql`SELECT * FROM unnest(${sql.join(Object.entries(types).map(([column, type]) => sql`${arrayLiteral(columns[column]!)}::${sql.raw(`${String(type)}[]`)}`))})`;

/** The columns of `types`, in its order (the order unnestRows gives them). */
export const unnestColumns = <R extends object>(types: { readonly [K in keyof R]?: string }): (keyof R & string)[] =>
  Object.keys(types) as (keyof R & string)[];
