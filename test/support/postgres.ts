// One embedded PostgreSQL for the whole test run (started on first use), and a fresh database for each
// suite that asks, so suites never see each other's events.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../store/postgres/embedded.js';
import { migrateEventStore } from '../../store/postgres/schema.js';

let server: Promise<{ db: EmbeddedDatabase; dir: string }> | null = null;
let counter = 0;

const start = async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ct-test-pg-'));
  const db = await startEmbeddedPostgres(dir, { database: 'postgres' });
  return { db, dir };
};

/** A connection string to a new, empty database on the shared test server. */
export const freshDatabase = async (): Promise<string> => {
  server ??= start();
  const { db } = await server;
  const name = `t_${process.pid}_${++counter}`;
  const admin = new pg.Client({ connectionString: db.adminConnectionString });
  await admin.connect();
  try {
    // Owned by the service role, as the service's own database is: specs run without a superuser.
    await admin.query(`CREATE DATABASE ${name} OWNER ${admin.escapeIdentifier(serviceRoleOf(db.connectionString))}`);
  } finally {
    await admin.end();
  }
  return db.connectionString.replace(/\/postgres$/, `/${name}`);
};

/** A new database on the shared test server holding the event store's tables (migrateEventStore) and nothing else. */
export const freshEventStoreDatabase = async (): Promise<string> => {
  const url = await freshDatabase();
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }) });
  try {
    await migrateEventStore(db);
  } finally {
    await db.destroy();
  }
  return url;
};

const serviceRoleOf = (connectionString: string): string => decodeURIComponent(new URL(connectionString).username);

/** The superuser's connection to `database` on the shared test server (to terminate backends, for one). */
export const adminConnection = async (database = 'postgres'): Promise<string> => {
  server ??= start();
  const { db } = await server;
  return db.adminConnectionString.replace(/\/postgres$/, `/${database}`);
};

export const stopTestPostgres = async (): Promise<void> => {
  if (!server) return;
  const { db, dir } = await server;
  server = null;
  await db.discard();
  rmSync(dir, { recursive: true, force: true });
};
