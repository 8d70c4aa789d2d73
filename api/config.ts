// Configuration comes from environment variables only, validated at start with a clear message.
import path from 'node:path';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly eventStoreConnectionString: string | null;
  readonly bootstrapApiKey: string | null;
  readonly credentialsKey: string | null;
  /** Addresses or CIDR ranges of reverse proxies whose X-Forwarded-For is trusted. */
  readonly trustedProxies: readonly string[];
  /** How long a write waits for the read models to include its events. */
  readonly readModelWaitMs: number;
}

export class ConfigError extends Error {}

const integer = (name: string, value: string | undefined, fallback: number, min: number, max: number): number => {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
};

const optional = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const databaseUrl = optional(env.DATABASE_URL);
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string');
  }
  const esdb = optional(env.EVENTSTORE_CONNECTION_STRING);
  if (esdb && !/^(esdb|esdb\+discover|kurrentdb):\/\//.test(esdb)) {
    throw new ConfigError('EVENTSTORE_CONNECTION_STRING must start with esdb:// or esdb+discover://');
  }
  const bootstrapApiKey = optional(env.BOOTSTRAP_API_KEY);
  if (bootstrapApiKey && bootstrapApiKey.length < 16) {
    throw new ConfigError('BOOTSTRAP_API_KEY must be at least 16 characters long');
  }
  return {
    port: integer('PORT', env.PORT, 8080, 0, 65535),
    host: optional(env.HOST) ?? '0.0.0.0',
    dataDir: path.resolve(optional(env.DATA_DIR) ?? './.data'),
    databaseUrl,
    eventStoreConnectionString: esdb,
    bootstrapApiKey,
    credentialsKey: optional(env.CREDENTIALS_KEY),
    trustedProxies: (optional(env.TRUSTED_PROXIES) ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    readModelWaitMs: integer('READ_MODEL_WAIT_MS', env.READ_MODEL_WAIT_MS, 10000, 100, 600000),
  };
};
