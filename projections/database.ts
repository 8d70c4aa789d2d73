import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { type ConnectionFaults, createPool } from '../store/postgres/pool.js';
import type { ReadModels } from './schema.js';

export const createReadModelDb = (
  connectionString: string,
  max = 10,
  faults?: ConnectionFaults,
  settings?: Readonly<Record<string, string>>,
): { db: Kysely<ReadModels>; pool: pg.Pool } => {
  const pool = createPool(connectionString, max, faults, settings);
  return { db: new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) }), pool };
};
