// How the command-line scripts reach the data: DATABASE_URL if set; else the embedded PostgreSQL that a
// running service started under DATA_DIR; else that embedded PostgreSQL, started for the script alone.
import { loadConfig } from '../../app/config.js';
import { openEventStore } from '../../app/service.js';
import { createReadModelDb } from '../../projections/database.js';
import { migrateReadModels } from '../../projections/migrations.js';
import { runningEmbeddedPostgres, startEmbeddedPostgres } from '../../store/postgres/embedded.js';
import { migrateEventStore } from '../../store/postgres/schema.js';

export const connect = async () => {
  const config = loadConfig();
  let connectionString = config.databaseUrl ?? runningEmbeddedPostgres(config.dataDir);
  let stopEmbedded = async () => undefined as void;
  if (!connectionString) {
    const embedded = await startEmbeddedPostgres(config.dataDir);
    connectionString = embedded.connectionString;
    stopEmbedded = () => embedded.stop();
  }
  const { db } = createReadModelDb(connectionString, 6);
  if (!config.eventStoreConnectionString) await migrateEventStore(db);
  await migrateReadModels(db);
  const store = await openEventStore(config, connectionString);
  return {
    config,
    connectionString,
    db,
    store,
    async close() {
      await store.dispose();
      await db.destroy();
      await stopEmbedded();
    },
  };
};

/** `--name value` and `--name=value` arguments; flags without a value are 'true'. */
export const parseArgs = (argv: readonly string[], known: readonly string[]): Map<string, string[]> => {
  const out = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (!known.includes(name)) throw new Error(`unknown option --${name} (known: ${known.map((k) => `--${k}`).join(', ')})`);
    let value = inline;
    if (value === undefined) value = argv[i + 1] && !argv[i + 1]!.startsWith('--') ? argv[++i]! : 'true';
    out.set(name, [...(out.get(name) ?? []), value]);
  }
  return out;
};
