import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { type ConnectionFaults, createPool } from '../store/postgres/pool.js';
import type { ReadModels } from './schema.js';

const pools = new WeakMap<Kysely<ReadModels>, pg.Pool>();

export const createReadModelDb = (
  connectionString: string,
  max = 10,
  faults?: ConnectionFaults,
  settings?: Readonly<Record<string, string>>,
): { db: Kysely<ReadModels>; pool: pg.Pool } => {
  const pool = createPool(connectionString, max, faults, settings);
  const db = new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return { db, pool };
};

/**
 * The pool under a database made by createReadModelDb (undefined for any other): for the few hot
 * statements that go around the query builder as named prepared statements, which PostgreSQL parses
 * and plans once per connection (projections/accounts/withState.ts readStamps).
 */
export const poolOf = (db: Kysely<ReadModels>): pg.Pool | undefined => pools.get(db);
