// Configuration comes from environment variables only, validated at start with a clear message.
import path from 'node:path';
import { isTimeZone } from '../domain/analytics/periods.js';
import { loadMessagingConfig, type MessagingConfig } from './messaging/config.js';
import { type CalendarConfig, loadCalendarConfig } from './calendarConfig.js';
import { loadMarketNewsConfig, type MarketNewsConfig } from './marketNewsConfig.js';
import { isAccountType } from '../domain/account/enums.js';
import { VENUE_ADAPTERS } from '../engine/venues/adapters.js';
import { parseVenueRouting, type VenueRouting } from '../engine/venues/registry.js';
import { loadWhiteLabelConfig, type WhiteLabelConfig } from './whiteLabelConfig.js';
import { loadNotificationsConfig, type NotificationsConfig } from './notificationsConfig.js';
import { loadPriceList, type PriceList } from './priceList.js';

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
  /** The operator's own domain: it and its subdomains are allowed CORS origins of every key. */
  readonly operatorDomain: string | null;
  /** Callbacks (and webhooks) may go to loopback, private, link-local... addresses: for tests and closed networks. */
  readonly allowPrivateOutbound: boolean;
  /** IANA time zone of days, weeks and months (profits, metrics, limits, targets). */
  readonly timeZone: string;
  /** Days the audit log's API request records are kept (API_REQUEST_RETENTION_DAYS, default 90). */
  readonly apiRequestRetentionDays: number;
  /** Bounded request queues that shed excess with 503 [SERVICE_BUSY] (api/availability.ts); off only to measure without them. */
  readonly loadShedding: boolean;
  /** The messaging connector's chat platforms, model endpoint and polling (app/messaging/config.ts). */
  readonly messaging: MessagingConfig;
  /** The economic calendar's sources (app/calendarConfig.ts). */
  readonly calendar: CalendarConfig;
  /** The market news feeds (app/marketNewsConfig.ts). */
  readonly news: MarketNewsConfig;
  /** What the white-label DNS check expects of a brand's records (app/whiteLabelConfig.ts). */
  readonly whiteLabel: WhiteLabelConfig;
  /** The notification channels: the SMTP server of the e-mail channel (app/notificationsConfig.ts). */
  readonly notifications: NotificationsConfig;
  /** The copy engine's partitions by master account, spread over the live instances (COPY_ENGINE_PARTITIONS, default 1: one engine). */
  readonly copyEnginePartitions: number;
  /** How the other instances reach this one (INSTANCE_URL); null: http://<HOST or 127.0.0.1>:<port>. */
  readonly instanceUrl: string | null;
  /** This instance's name among the live ones (INSTANCE_ID; default random): lease sessions, logs. */
  readonly instanceId: string | null;
  /** Which account types trade at a real venue (ACCOUNT_TYPE_VENUES, engine/venues/registry.ts); none: all at the simulated venue. */
  readonly venues: VenueRouting;
  /** The operator's price list (PRICE_LIST_FILE or PRICE_LIST, app/priceList.ts): usage, invoices, follower costs. */
  readonly priceList: PriceList;
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

const flag = (name: string, value: string | undefined): boolean => {
  const text = optional(value)?.toLowerCase();
  if (text === undefined || text === null || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new ConfigError(`${name} must be true or false, got "${value}"`);
};

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

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
  const operatorDomain = optional(env.OPERATOR_DOMAIN)?.toLowerCase() ?? null;
  if (operatorDomain && !DOMAIN.test(operatorDomain)) {
    throw new ConfigError(`OPERATOR_DOMAIN must be a domain name such as copytrade.example.com, got "${env.OPERATOR_DOMAIN}"`);
  }
  const instanceUrl = optional(env.INSTANCE_URL)?.replace(/\/+$/, '') ?? null;
  if (instanceUrl && !/^https?:\/\/[^/]+$/.test(instanceUrl)) {
    throw new ConfigError(`INSTANCE_URL must be http(s)://host:port, the address other instances reach this one at, got "${env.INSTANCE_URL}"`);
  }
  const instanceId = optional(env.INSTANCE_ID);
  if (instanceId && !/^[A-Za-z0-9._-]{1,40}$/.test(instanceId))
    throw new ConfigError(`INSTANCE_ID must be 1 to 40 letters, digits, dots, dashes or underscores, got "${instanceId}"`);
  let venues: VenueRouting;
  try {
    venues = parseVenueRouting(env.ACCOUNT_TYPE_VENUES, env, VENUE_ADAPTERS, isAccountType);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  const timeZone = optional(env.TIME_ZONE) ?? 'UTC';
  if (!isTimeZone(timeZone)) throw new ConfigError(`TIME_ZONE must be an IANA time zone such as Europe/London, got "${timeZone}"`);
  return {
    port: integer('PORT', env.PORT, 8080, 0, 65535),
    host: optional(env.HOST) ?? '0.0.0.0',
    dataDir: path.resolve(optional(env.DATA_DIR) ?? './.data'),
    databaseUrl,
    eventStoreConnectionString: esdb,
    bootstrapApiKey,
    credentialsKey: optional(env.CREDENTIALS_KEY),
    trustedProxies: (optional(env.TRUSTED_PROXIES) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    readModelWaitMs: integer('READ_MODEL_WAIT_MS', env.READ_MODEL_WAIT_MS, 10000, 100, 600000),
    operatorDomain,
    allowPrivateOutbound: flag('ALLOW_PRIVATE_OUTBOUND', env.ALLOW_PRIVATE_OUTBOUND),
    timeZone,
    apiRequestRetentionDays: integer('API_REQUEST_RETENTION_DAYS', env.API_REQUEST_RETENTION_DAYS, 90, 1, 36_500),
    loadShedding: optional(env.LOAD_SHEDDING) === null ? true : flag('LOAD_SHEDDING', env.LOAD_SHEDDING),
    messaging: loadMessagingConfig(env),
    calendar: loadCalendarConfig(env, { integer, flag }, (message) => new ConfigError(message)),
    news: loadMarketNewsConfig(env, { integer }, (message) => new ConfigError(message)),
    whiteLabel: loadWhiteLabelConfig(env, operatorDomain, (message) => new ConfigError(message)),
    notifications: loadNotificationsConfig(env),
    copyEnginePartitions: integer('COPY_ENGINE_PARTITIONS', env.COPY_ENGINE_PARTITIONS, 1, 1, 1024),
    instanceUrl,
    instanceId,
    venues,
    priceList: loadPriceList(env, (message) => new ConfigError(message)),
  };
};
