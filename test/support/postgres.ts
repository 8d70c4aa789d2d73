// One embedded PostgreSQL for the whole test run (started on first use), and a fresh database for each
// suite that asks, so suites never see each other's events.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../store/postgres/embedded.js';

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
  const admin = new pg.Client({ connectionString: db.connectionString });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return db.connectionString.replace(/\/postgres$/, `/${name}`);
};

export const stopTestPostgres = async (): Promise<void> => {
  if (!server) return;
  const { db, dir } = await server;
  server = null;
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
};
