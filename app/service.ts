// The composition root: database (embedded or external), event store (PostgreSQL or EventStoreDB),
// read models, the default project and its key, and the HTTP server.
import { CustomerBlockJob } from './customersBlock.js';
import { SignalFollowerRepair } from './signalsRepair.js';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { type Kysely, sql } from 'kysely';
import { migrateReadModels } from '../projections/migrations.js';
import { allProjections } from '../projections/all.js';
import { createReadModelDb } from '../projections/database.js';
import { PROJECTIONS_LEASE, ProjectionRunner } from '../projections/runner.js';
import type { ReadModels } from '../projections/schema.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../store/postgres/embedded.js';
import { PostgresEventStore } from '../store/postgres/postgresEventStore.js';
import { migrateEventStore } from '../store/postgres/schema.js';
import { DatabaseHealth } from '../store/postgres/health.js';
import { Leases } from '../store/postgres/leases.js';
import { JobRounds } from '../store/postgres/jobRounds.js';
import { observeAppends, StoreSignals } from '../store/observed.js';
import { API_REQUEST_RETENTION_LEASE, ApiRequestRetention } from './apiRequestRetention.js';
import { DATA_COLLECTOR_RETENTION_LEASE, DataCollectorRetention } from './dataCollectorRetention.js';
import { CalendarSync } from './calendarSync.js';
import { CalendarAlertScheduler } from './alertsScheduler.js';
import { ChatLogNotifier } from './notificationsLogs.js';
import { NewsWarnings } from './newsWarnings.js';
import { MarketNewsSync } from './marketNewsSync.js';
import { InvoicesClosing } from './invoicesClosing.js';
import { EMAIL_DELIVERY_KIND, emailSender } from '../engine/notifications/email.js';
import { CHAT_DELIVERY_KIND, chatSender } from './notificationsChat.js';
import { ChartingRetries } from './chartingWebhook/retries.js';
import { MessagingReader } from './messaging/reader.js';
import type { ConnectionFaults } from '../store/postgres/pool.js';
import type { EventStore, Position } from '../store/port.js';
import { NOT_READ_BY_THE_ENGINE } from '../engine/copy/engine.js';
import { PartitionedCopyEngine } from '../engine/copy/partitions.js';
import type { ProtectionMonitor } from '../engine/protection/monitor.js';
import { ensureVenueSessionsTable, VenueSessions } from './venueSessions.js';
import { KeepAliveTrades } from '../engine/schedule/keepAliveTrades.js';
import { Outbox } from '../engine/delivery/outbox.js';
import { WEBHOOKS_LEASE, WebhookDispatcher } from '../engine/webhooks/dispatcher.js';
import { QueueWake } from '../store/postgres/queueWake.js';
import { AccountCreationQueue, type AsyncRequestRow, type Outcome } from './accounts/asyncCreation.js';
import { type IssuedKey, bootstrap } from './bootstrap.js';
import { checkBrokerFiles } from './brokers.js';
import type { Config } from './config.js';
import { credentialCipher, loadCredentialKey } from './credentials.js';
import { createLogger, type Logger } from './logger.js';
import type { Services } from './services.js';

export interface RunningService {
  readonly url: string;
  readonly port: number;
  readonly services: Services;
  readonly connectionString: string;
  readonly eventStoreKind: 'postgres' | 'eventstoredb';
  /** Set when this start had to generate the project key; show it once. */
  readonly generatedKey: IssuedKey | null;
  /** Risk limits and profit targets at work (specs wait for its ticks). */
  readonly protection: ProtectionMonitor;
  stop(): Promise<void>;
}

/**
 * What the HTTP layer (api/httpLayer.ts) gives the composition root: the request handler of the REST
 * API, and what a queued asynchronous creation answers its callback with (AccountDTO is wire format).
 * Passed in, so app/ never imports api/ (ARCHITECTURE.md: api -> app -> engine/projections -> store).
 */
export interface HttpLayer {
  createApp(services: Services): http.RequestListener;
  asyncCreation(services: Services): (row: AsyncRequestRow) => Promise<Outcome>;
  /** A graceful stop, once the server has closed and before the database does: writes what the layer still holds (queued audit request records). */
  stop(services: Services): Promise<void>;
}

export interface StartOptions {
  readonly http: HttpLayer;
  readonly log?: Logger;
  readonly clock?: () => Date;
  /** Default true: the simulated venue's clock moves every second. */
  readonly venueTicker?: boolean;
  /** The copy engine's open-retry interval; default 30 s (spec: every 30 seconds). */
  readonly openRetryIntervalMs?: number;
  /** The embedded PostgreSQL died and could not be started again (npm start exits non-zero). */
  readonly onDatabaseLost?: (error: Error) => void;
}

export const openDatabase = async (
  config: Config,
  log: Logger,
  onFatal?: (error: Error) => void,
): Promise<{ connectionString: string; embedded: EmbeddedDatabase | null }> => {
  if (config.databaseUrl) return { connectionString: config.databaseUrl, embedded: null };
  log.info(`starting embedded PostgreSQL under ${config.dataDir}`);
  const embedded = await startEmbeddedPostgres(config.dataDir, { log: log.child({ component: 'embedded-postgres' }), ...(onFatal ? { onFatal } : {}) });
  return { connectionString: embedded.connectionString, embedded };
};

export const openEventStore = async (config: Config, connectionString: string, faults?: ConnectionFaults): Promise<EventStore> => {
  if (config.eventStoreConnectionString) {
    const { createEventStoreDbStore } = await import('../store/esdb/eventStoreDb.js');
    return createEventStoreDbStore(config.eventStoreConnectionString);
  }
  return PostgresEventStore.connect(connectionString, undefined, faults);
};

/** Connections of the API's own pool: as many as the request lanes serve at once, and a few for writes. */
const API_POOL_SIZE = 10;

/** Waits (READ_MODEL_WAIT_MS by default) until every read model includes a position. */
const readModelWait =
  (config: Config, runner: ProjectionRunner) =>
  (position: Position, timeoutMs = config.readModelWaitMs, readModels?: readonly string[]): Promise<boolean> =>
    runner.waitFor(position, timeoutMs, readModels);

/** What a start has brought up, stopped in the reverse order. */
class Lifetime {
  private readonly steps: (() => Promise<void>)[] = [];

  constructor(private readonly log: Logger) {}

  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }

  readonly stopAll = async (): Promise<void> => {
    for (const step of this.steps.reverse()) await step().catch((e: unknown) => this.log.error('stopping failed', e));
    this.steps.length = 0;
  };
}

/** The database, its health, the event store and the read models, migrated and caught up. */
const openStorage = async (config: Config, options: StartOptions, log: Logger, life: Lifetime) => {
  const { connectionString, embedded } = await openDatabase(config, log, options.onDatabaseLost);
  if (embedded) life.add(() => embedded.stop());
  const health = new DatabaseHealth(connectionString, log.child({ component: 'database' }));
  life.add(async () => health.close());
  const { db } = createReadModelDb(connectionString, 10, health);
  life.add(() => db.destroy());
  await sql`SELECT 1`.execute(db);
  if (!config.eventStoreConnectionString) await migrateEventStore(db);
  await migrateReadModels(db);
  // Appends are reported to the operator's signals (/metrics): append latency, copy latency.
  const signals = new StoreSignals();
  const store = observeAppends(await openEventStore(config, connectionString, health), signals);
  life.add(() => store.dispose());
  // One session holds this instance's leases: the read models, the copy engine, the webhook dispatcher.
  // The background work every instance offers to do is spread over the live ones (a preferred owner
  // each); the copy engine's partitions are shared out by PartitionedCopyEngine, the venue sessions
  // stay where they are until their holder dies (a move costs a reload and answers 503 meanwhile).
  const leases = new Leases(connectionString, log.child({ component: 'leases' }), {
    ...(config.instanceId ? { instanceId: config.instanceId } : {}),
    spread: [PROJECTIONS_LEASE, WEBHOOKS_LEASE, API_REQUEST_RETENTION_LEASE, DATA_COLLECTOR_RETENTION_LEASE],
  });
  life.add(() => leases.stop());
  // The runner's own sessions commit without waiting for the disk: a batch and its checkpoint are one
  // transaction, so a crash loses both or neither, and the events they came from are durable already.
  const projectionDb = createReadModelDb(connectionString, 6, health, { synchronous_commit: 'off' }).db;
  life.add(() => projectionDb.destroy());
  const runner = new ProjectionRunner(projectionDb, store, allProjections, log.child({ component: 'projections' }), leases);
  await runner.start();
  life.add(() => runner.stop());
  // The API's own pool (issue 16): the copy engine, the sessions and the other background work read and
  // write through `db`, so however busy they are, a request finds a connection (and a flood of reads,
  // bounded by the request lanes anyway, cannot take the engine's).
  const apiDb = createReadModelDb(connectionString, API_POOL_SIZE, health).db;
  life.add(() => apiDb.destroy());
  return { connectionString, health, db, apiDb, store, runner, leases, signals };
};

/** The services use cases and routes share: venues, sessions, the copy engine (not yet started), outbox, queue. */
const assembleServices = async (
  config: Config,
  options: StartOptions,
  log: Logger,
  life: Lifetime,
  storage: Awaited<ReturnType<typeof openStorage>>,
): Promise<{ services: Services; sessions: VenueSessions }> => {
  const { connectionString, db, apiDb, store, runner, health, leases, signals } = storage;
  const clock = options.clock ?? (() => new Date());
  const credentialKey = loadCredentialKey(config.credentialsKey, config.dataDir);
  const cipher = credentialCipher(credentialKey);
  const waitForReadModels = readModelWait(config, runner);
  // The venue sessions (the simulated venue, every account's session and recorder, the jobs that read
  // venues) are held by one live instance; the others reach them over HTTP (app/venueSessions.ts).
  await ensureVenueSessionsTable(db);
  const jobRounds = new JobRounds(db);
  const connections = new VenueSessions({
    db,
    store,
    leases,
    clock,
    log,
    decryptPassword: (c) => cipher.decrypt(c),
    encryptPassword: (p) => cipher.encrypt(p),
    waitForReadModels,
    timeZone: config.timeZone,
    secret: credentialKey,
    ticker: options.venueTicker ?? true,
    venues: config.venues,
    rounds: jobRounds,
    readModelMarks: (name) => runner.version(name),
  });
  life.add(() => connections.stop());
  // The copy engine's partitions by master account: this instance works its fair share of them.
  const engine = new PartitionedCopyEngine({
    store,
    db,
    connections,
    waitForReadModels: (position, timeoutMs) =>
      runner.waitFor(
        position,
        timeoutMs,
        runner.names.filter((name) => !NOT_READ_BY_THE_ENGINE.includes(name)),
      ),
    readModelVersion: (name) => runner.version(name),
    clock,
    log: log.child({ component: 'copy-engine' }),
    leases,
    count: config.copyEnginePartitions,
    ...(options.openRetryIntervalMs ? { retryIntervalMs: options.openRetryIntervalMs } : {}),
  });
  // Another instance's enqueue wakes this one's outbox and creation queue at once (their polls stay the fallback).
  const queueWake = new QueueWake(connectionString, db, {
    instanceId: leases.instanceId,
    othersLive: () => leases.lastLive.some((id) => id !== leases.instanceId),
    faults: health,
  });
  life.add(() => queueWake.stop());
  const outbox = new Outbox({
    db,
    queueWake,
    log: log.child({ component: 'outbox' }),
    allowPrivateOutbound: config.allowPrivateOutbound,
    unseal: (c) => cipher.decrypt(c),
    senders: {
      ...(config.notifications.smtpUrl
        ? { [EMAIL_DELIVERY_KIND]: emailSender({ url: config.notifications.smtpUrl, from: config.notifications.smtpFrom }) }
        : {}),
      [CHAT_DELIVERY_KIND]: chatSender({ db, unseal: (c) => cipher.decrypt(c), notifications: config.notifications, messaging: config.messaging }),
    },
  });
  const accountCreations = new AccountCreationQueue({ db, outbox, clock, queueWake, log: log.child({ component: 'account-creations' }) });
  // Requests and use cases read through the API's pool; what runs in the background was given `db`.
  const services: Services = {
    db: apiDb,
    store,
    runner,
    cipher,
    config,
    log,
    clock,
    /** The simulated venue: on the instance holding the venue sessions (it throws elsewhere). */
    get venues() {
      return connections.host;
    },
    connections,
    venueOrderTimings: connections.orderTimings,
    engine,
    outbox,
    accountCreations,
    health,
    jobRounds,
    signals,
  };
  return { services, sessions: connections };
};

/**
 * The long-running work: the venue sessions (with the schedulers and monitors that read venues), the
 * copy engine's share of partitions, deliveries, webhooks, the queue, the retention job. Each is owned
 * by one live instance at a time (README "Running more than one instance").
 */
const startBackground = async (
  services: Services,
  sessions: VenueSessions,
  options: StartOptions,
  life: Lifetime,
  leases: Leases,
  db: Kysely<ReadModels>,
): Promise<void> => {
  const { clock, config, log, engine, outbox, accountCreations, store } = services;
  await sessions.start();
  await engine.start();
  life.add(() => engine.stop());
  // Keep-alive trades hold a lease of their own and trade through the sessions (here or at their holder).
  const keepAlive = new KeepAliveTrades({
    store,
    db,
    connections: services.connections,
    leases,
    clock,
    waitForReadModels: readModelWait(config, services.runner),
    log: log.child({ component: 'keep-alive-trades' }),
    rounds: services.jobRounds,
    readModelMarks: (name) => services.runner.version(name),
  });
  keepAlive.start();
  life.add(() => keepAlive.stop());
  // Queued creations and undelivered callbacks of an earlier run continue here.
  await outbox.start();
  life.add(() => outbox.stop());
  // Position events become webhook deliveries from the dispatcher's own checkpoint on.
  const webhooks = new WebhookDispatcher({ store, db, outbox, leases, log: log.child({ component: 'webhooks' }) });
  await webhooks.start();
  life.add(() => webhooks.stop());
  await accountCreations.start(options.http.asyncCreation(services));
  life.add(() => accountCreations.stop());
  const retention = new ApiRequestRetention({
    db,
    leases,
    clock,
    retentionDays: config.apiRequestRetentionDays,
    log: log.child({ component: 'api-request-retention' }),
    rounds: services.jobRounds,
  });
  retention.start();
  life.add(() => retention.stop());
  const sampleRetention = new DataCollectorRetention({
    db,
    leases,
    clock,
    log: log.child({ component: 'data-collector-retention' }),
    rounds: services.jobRounds,
  });
  sampleRetention.start();
  life.add(() => sampleRetention.stop());
  const chartingRetries = new ChartingRetries(services, leases, log.child({ component: 'charting-webhook' }), options.openRetryIntervalMs);
  chartingRetries.start();
  life.add(() => chartingRetries.stop());
  const messagingReader = new MessagingReader(services, leases, log.child({ component: 'messaging' }));
  messagingReader.start();
  life.add(() => messagingReader.stop());
  const calendar = new CalendarSync({
    services,
    leases,
    folder: path.join(config.dataDir, 'calendar'),
    feedUrl: config.calendar.feedUrl,
    feedEveryMs: config.calendar.syncMinutes * 60_000,
    sampleWeek: config.calendar.sampleWeek,
    rounds: services.jobRounds,
  });
  calendar.start();
  life.add(() => calendar.stop());
  const calendarAlerts = new CalendarAlertScheduler(services, leases);
  calendarAlerts.start();
  life.add(() => calendarAlerts.stop());
  const customerBlocks = new CustomerBlockJob(services, leases);
  customerBlocks.start();
  life.add(() => customerBlocks.stop());
  const followerRepair = new SignalFollowerRepair(services, leases);
  followerRepair.start();
  life.add(() => followerRepair.stop());
  const chatLogs = new ChatLogNotifier(services, leases);
  chatLogs.start();
  life.add(() => chatLogs.stop());
  const newsWarnings = new NewsWarnings(services, leases);
  newsWarnings.start();
  life.add(() => newsWarnings.stop());
  const news = new MarketNewsSync({
    services,
    leases,
    feeds: config.news.feeds,
    everyMs: config.news.syncMinutes * 60_000,
    rounds: services.jobRounds,
  });
  news.start();
  life.add(() => news.stop());
  const invoicesClosing = new InvoicesClosing(services, leases);
  invoicesClosing.start();
  life.add(() => invoicesClosing.stop());
};

/** The HTTP server on the configured address; answers the port it got. */
const listen = async (config: Config, api: http.RequestListener, sessions: VenueSessions, life: Lifetime): Promise<number> => {
  // The other instances call the venue sessions on this listener, outside the REST API's paths.
  const server = http.createServer((req, res) => (VenueSessions.handles(req) ? sessions.serve(req, res) : api(req, res)));
  // Idle keep-alive connections stay open 65 s (the common load-balancer figure; headers timeout above
  // it). With 5 s, a client that announces-minus-one-second (undici, Node's fetch: 4 s, on timers of
  // one-second grain) reused connections the server was closing at that very moment: ECONNRESET on a
  // request after a slow one, seen under load in the specs.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  life.add(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return (server.address() as AddressInfo).port;
};

export const startService = async (config: Config, options: StartOptions): Promise<RunningService> => {
  const log = options.log ?? createLogger();
  const life = new Lifetime(log);
  try {
    checkBrokerFiles(config.dataDir);
    const storage = await openStorage(config, options, log, life);
    const { services, sessions } = await assembleServices(config, options, log, life, storage);
    const generatedKey = await bootstrap(services);
    await startBackground(services, sessions, options, life, storage.leases, storage.db);
    // Stopped after the server (steps stop in reverse), before the database.
    life.add(() => options.http.stop(services));
    const port = await listen(config, options.http.createApp(services), sessions, life);
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    await sessions.publish(config.instanceUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
    return {
      url: `http://${host}:${port}/rest/api/v1`,
      port,
      services,
      connectionString: storage.connectionString,
      eventStoreKind: config.eventStoreConnectionString ? 'eventstoredb' : 'postgres',
      generatedKey,
      get protection() {
        return sessions.protection;
      },
      stop: life.stopAll,
    };
  } catch (error) {
    await life.stopAll();
    throw error;
  }
};
