import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { ReadModels } from './schema.js';

export const createReadModelDb = (connectionString: string, max = 10): { db: Kysely<ReadModels>; pool: pg.Pool } => {
  const pool = new pg.Pool({ connectionString, max });
  // An idle client that loses its server emits 'error' on the pool; without a listener the process exits.
  pool.on('error', () => undefined);
  return { db: new Kysely<ReadModels>({ dialect: new PostgresDialect({ pool }) }), pool };
};
