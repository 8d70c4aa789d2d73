// The venue sessions of the service, held by exactly one live instance: the simulated venue (its state,
// its ticker), every started account's session, the recorder of their changes and the reconciliation
// at each session's start, and the jobs that read the venues every second (protection monitor,
// maintenance windows, data collector, trade guardrails). The holder is the instance with the lease "venue-sessions"
// (store/postgres/leases.ts); every instance (the holder too) reaches the sessions through this object:
// locally on the holder, over HTTP (engine/venues/remote.ts) anywhere else.
//
// Why one holder: the simulated venue stands in for a broker's servers, one state that every request
// changes; two instances each keeping it in memory would answer differently and overwrite each other's
// saves. A real broker adapter would let every instance connect, but its change feed still wants one
// recorder per account; one holder keeps that simple.
//
// Moving: the holder writes itself into `venue_sessions_holder` (instance, URL, epoch) when it wins the
// lease. When the lease is lost (its session ended), the holder keeps serving while it tries to win the
// lease back and the row still names it (a database blip changes nothing then), and lets the sessions go
// as soon as the row names another instance (or cannot be read for 10 s). An instance that claims the row
// from another one waits TAKEOVER_GRACE_MS (far longer than the old holder takes to see the claim) before
// loading the venue, so the two never act on the venue at the same time; then it loads the venue as last
// saved (every acknowledged request was saved before it was answered) and starts every Active account's
// session, whose reconciliation records what the venue did that was not recorded yet.
// Known limit: venue saves carry no fencing token yet: a holder cut off from the database (or frozen)
// while another claims the sessions may land one delayed save when it gets through again.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { type Kysely, sql } from 'kysely';
import type { Account } from '../domain/account/decider.js';
import { DataCollector } from '../engine/schedule/dataCollector.js';
import { MaintenanceWindowRunner } from '../engine/schedule/maintenanceWindows.js';
import { ProtectionMonitor } from '../engine/protection/monitor.js';
import type { ReadModelMarks } from '../projections/keptRead.js';
import { TradeGuardrailMonitor } from '../engine/protection/tradeGuardrails.js';
import { AccountConnections, type AccountSessions, type ChangeWatcher, type DisconnectReason } from '../engine/venues/connections.js';
import { VenueHost } from '../engine/venues/host.js';
import { VenueOrderTimings } from '../engine/venues/latency.js';
import type { VenueRouting } from '../engine/venues/registry.js';
import type { SymbolInfo, VenueConnection } from '../engine/venues/port.js';
import { VenueError } from '../engine/venues/port.js';
import {
  callArguments,
  INSTANCE_TOKEN_HEADER,
  REMOTE_METHODS,
  RemoteVenueSessions,
  serializeError,
  VENUE_SESSIONS_PATH,
  type VenueSessionsAnswer,
  type VenueSessionsRequest,
} from '../engine/venues/remote.js';
import type { ReadModels } from '../projections/schema.js';
import type { JobRounds } from '../store/postgres/jobRounds.js';
import type { Leases } from '../store/postgres/leases.js';
import type { AggregateState } from '../store/commandHandler.js';
import type { EventStore, Position } from '../store/port.js';
import { Backoff, describeError } from '../store/recovery.js';
import type { Logger } from './logger.js';

export const VENUE_SESSIONS_LEASE = 'venue-sessions';
/** How often a holder that lost its lease reads the holder row, to let go as soon as another instance claimed it. */
const WATCH_MS = 250;
/** A holder that lost its lease and cannot read the holder row lets go after this long (the lease session's idle timeout). */
const UNCONFIRMED_MS = 10_000;
/** How long a new holder waits after claiming the row from another instance: well beyond WATCH_MS. */
const TAKEOVER_GRACE_MS = 3000;
/** How often an instance without the sessions asks the holder which accounts are connected. */
const CONNECTED_REFRESH_MS = 250;
const HOLDER_ROW = 'venues';

export interface VenueSessionsDeps {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the venue's tables are not read models
  readonly db: Kysely<any>;
  readonly store: EventStore;
  readonly leases: Leases;
  readonly clock: () => Date;
  readonly log: Logger;
  readonly decryptPassword: (ciphertext: string) => string;
  /** Seals the credentials a real venue renewed (a cTrader token pair). */
  readonly encryptPassword?: (plain: string) => string;
  /** Resolves once the read models named (all when none are) include `position`; false after the timeout. */
  readonly waitForReadModels: (position: Position, timeoutMs?: number, readModels?: readonly string[]) => Promise<boolean>;
  readonly timeZone: string;
  /** The shared secret the instances derive their token from (the credentials key). */
  readonly secret: Buffer;
  /** Default true: the simulated venue's clock moves every second. */
  readonly ticker: boolean;
  /** Which account types trade at a real venue (engine/venues/registry.ts); default none. */
  readonly venues?: VenueRouting;
  /** Where the holder's trade guardrail rounds are recorded for /ready (store/postgres/jobRounds.ts). */
  readonly rounds?: JobRounds;
  /** Read-model marks (ProjectionRunner.version): the holder's per-second loops read their rules again only when they may have changed. */
  readonly readModelMarks?: ReadModelMarks;
}

/** What the holder runs. */
interface Holding {
  readonly host: VenueHost;
  readonly connections: AccountConnections;
  readonly protection: ProtectionMonitor;
  readonly maintenance: MaintenanceWindowRunner;
  readonly dataCollector: DataCollector;
  readonly guardrails: TradeGuardrailMonitor;
}

export const ensureVenueSessionsTable = async (db: Kysely<ReadModels>): Promise<void> => {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('venue_sessions_holder'))`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS venue_sessions_holder (
      name text PRIMARY KEY,
      instance text NOT NULL,
      url text,
      epoch bigint NOT NULL,
      since timestamptz NOT NULL DEFAULT now())`.execute(trx);
  });
};

export class VenueSessions implements AccountSessions {
  private holding: Holding | null = null;
  /** The holder's start in progress: calls on this instance wait for it. */
  private starting: Promise<Holding> | null = null;
  private epoch: number | null = null;
  /** The generation of the watch that runs while the lease is lost (a new term ends it). */
  private watching = 0;
  private refreshTimer: NodeJS.Timeout | null = null;
  private lease: { release(): Promise<void> } | null = null;
  private ownUrl: string | null = null;
  private holderUrl: string | null = null;
  private readonly remote: RemoteVenueSessions;
  private readonly token: string;
  private stopped = false;
  /** A letting go in progress: a new term waits for its last save before loading the venue. */
  private lettingGo: Promise<void> = Promise.resolve();
  /** Who hears the venue changes of the sessions while this instance holds them (the copy engine's early placement). */
  private readonly watchers = new Set<ChangeWatcher>();
  /**
   * The order round trips of every venue host this instance starts (engine/venues/latency.ts): one for the
   * instance's life, so /metrics counts them from the first order of a term won after start, not only
   * after a restart. Silent while another instance holds the sessions.
   */
  readonly orderTimings = new VenueOrderTimings();

  constructor(private readonly deps: VenueSessionsDeps) {
    this.token = createHmac('sha256', deps.secret).update('venue-sessions').digest('hex');
    this.remote = new RemoteVenueSessions({
      token: this.token,
      holderUrl: () => this.lookUpHolder(),
      forgetHolder: () => (this.holderUrl = null),
    });
  }

  /** Whether this instance holds the venue sessions now. */
  get holds(): boolean {
    return this.holding !== null;
  }

  /** The simulated venue, on the instance that holds the sessions. */
  get host(): VenueHost {
    if (!this.holding) throw new Error('this instance does not hold the venue sessions (another instance of the service does)');
    return this.holding.host;
  }

  /** The protection monitor, on the instance that holds the sessions. */
  get protection(): ProtectionMonitor {
    if (!this.holding) throw new Error('this instance does not hold the venue sessions (another instance of the service does)');
    return this.holding.protection;
  }

  /**
   * Tries for the lease; resolves once the first attempt is decided: this instance holds the sessions
   * (started: every Active account connected), or another instance does.
   */
  async start(): Promise<void> {
    let decided: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (decided = resolve));
    this.lease = this.deps.leases.hold(
      VENUE_SESSIONS_LEASE,
      async (signal) => {
        try {
          await this.term(signal, decided);
        } finally {
          decided();
        }
      },
      () => decided(),
    );
    this.refreshTimer = setInterval(() => {
      if (!this.holding && !this.stopped) this.remote.refreshConnected().catch(() => undefined);
    }, CONNECTED_REFRESH_MS);
    this.refreshTimer.unref();
    await first;
    // Another instance holds them: know its connected accounts before the copy engine asks.
    if (!this.holding) await this.remote.refreshConnected().catch(() => undefined);
  }

  /** This instance's address for the others (known once it listens). */
  async publish(url: string): Promise<void> {
    this.ownUrl = url;
    if (this.epoch !== null)
      await this.writeHolder().catch((error: unknown) => this.deps.log.warn(`could not publish the venue sessions' address: ${describeError(error)}`));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.watching += 1;
    await this.lease?.release();
    await this.letGo();
  }

  // ---- AccountSessions: local on the holder, remote elsewhere ----

  connection(accountId: string): VenueConnection | null {
    return this.holding ? this.holding.connections.connection(accountId) : this.remote.connection(accountId);
  }

  isConnected(accountId: string): boolean {
    return this.connection(accountId) !== null;
  }

  /**
   * `watcher` hears every live venue change while this instance holds the sessions (AccountConnections.watch),
   * also of sessions it comes to hold later; on another instance it hears nothing: changes are not sent
   * over, the copy engine there copies from the stored events. Answers the unsubscribe.
   */
  watch(watcher: ChangeWatcher): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  async refreshConnected(): Promise<void> {
    if (!this.holding) await this.remote.refreshConnected();
  }

  async catalogueSymbols(): Promise<readonly SymbolInfo[]> {
    const holding = await this.local();
    return holding ? holding.connections.catalogueSymbols() : this.remote.symbols();
  }

  /** The link's state of the account's session here (AccountConnections.statusMessage); null on another instance than the holder. */
  statusMessage(accountId: string): string | null {
    return this.holding ? this.holding.connections.statusMessage(accountId) : null;
  }

  connectedAccountIds(): string[] {
    return this.holding ? this.holding.connections.connectedAccountIds() : this.remote.connectedAccountIds();
  }

  /** `known`: the account's stream as the caller has just read it (another instance's sessions read it themselves). */
  async connect(accountId: string, known?: AggregateState<Account>): Promise<void> {
    const holding = await this.local();
    if (holding) await holding.connections.connect(accountId, known);
    else await this.remote.call({ op: 'connect', accountId });
  }

  async disconnect(accountId: string, reason: DisconnectReason): Promise<void> {
    const holding = await this.local();
    if (holding) await holding.connections.disconnect(accountId, reason);
    else await this.remote.call({ op: 'disconnect', accountId, reason });
  }

  async recorded(accountId: string): Promise<void> {
    const holding = await this.local();
    if (holding) await holding.connections.recorded(accountId);
    else await this.remote.call({ op: 'recorded', accountId });
  }

  /** The holding of this instance, once started; null when another instance holds the sessions. */
  private async local(): Promise<Holding | null> {
    if (this.holding) return this.holding;
    if (this.starting) return this.starting.catch(() => null);
    return null;
  }

  // ---- the endpoint the other instances call ----

  /** Whether a request is for the venue sessions' endpoint (not the REST API). */
  static handles(req: http.IncomingMessage): boolean {
    return req.url === VENUE_SESSIONS_PATH;
  }

  serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const given = Buffer.from(String(req.headers[INSTANCE_TOKEN_HEADER] ?? ''));
    const expected = Buffer.from(this.token);
    if (req.method !== 'POST' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      answer(404, { error: '[ENDPOINT_NOT_FOUND]', message: `no endpoint ${req.method} ${req.url}` });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const holding = await this.local();
        if (!holding) {
          answer(503, { error: '[NOT_THE_HOLDER]', message: 'this instance does not hold the venue sessions' });
          return;
        }
        let reply: VenueSessionsAnswer;
        try {
          const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as VenueSessionsRequest;
          reply = { ok: true, value: (await this.dispatch(holding, request)) ?? null };
        } catch (error) {
          reply = { ok: false, error: serializeError(error) };
        }
        answer(200, reply);
      })();
    });
  }

  private async dispatch(holding: Holding, request: VenueSessionsRequest): Promise<unknown> {
    switch (request.op) {
      case 'connect':
        return holding.connections.connect(request.accountId);
      case 'disconnect':
        return holding.connections.disconnect(request.accountId, request.reason);
      case 'recorded':
        return holding.connections.recorded(request.accountId);
      case 'connected':
        return holding.connections.connectedAccountIds();
      case 'symbols':
        return holding.host.simulated.symbols();
      case 'call': {
        if (!(REMOTE_METHODS as readonly string[]).includes(request.method)) throw new Error(`unknown method ${request.method}`);
        const connection = holding.connections.connection(request.accountId);
        if (!connection) throw new VenueError('[NOT_CONNECTED]', `account ${request.accountId} has no venue session`);
        const method = connection[request.method] as (...args: unknown[]) => Promise<unknown>;
        return method.apply(connection, callArguments(request));
      }
    }
  }

  // ---- holding ----

  /** One term of the lease: claim the holder row, wait out an old holder's grace, start, hold until lost. */
  private async term(signal: AbortSignal, decided: () => void): Promise<void> {
    this.watching += 1;
    const previous = await this.claim();
    if (previous.instance !== this.deps.leases.instanceId || previous.epoch !== this.epoch) await this.letGo();
    // The previous holder may still serve while it has not read the claim: wait for it to let go, unless
    // it is no live instance any more (its lease session is gone: a crash, a restart).
    if (previous.instance !== null && previous.instance !== this.deps.leases.instanceId) {
      const live = await this.deps.leases.liveIds().catch(() => [previous.instance!]);
      if (live.includes(previous.instance)) {
        this.deps.log.info(`venue sessions: taking over from instance ${previous.instance}; waiting ${TAKEOVER_GRACE_MS} ms for it to let go`);
        await abortableSleep(TAKEOVER_GRACE_MS, signal);
      }
    }
    this.epoch = previous.newEpoch;
    await this.lettingGo;
    if (!this.holding && !signal.aborted) {
      this.starting = this.startHolding(signal);
      try {
        this.holding = await this.starting;
      } finally {
        this.starting = null;
      }
    }
    decided();
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    if (this.stopped) return;
    void this.watchHolder(++this.watching);
  }

  /**
   * The lease is lost (its session ended: a database blip, a failover, a lost network): keep serving
   * while the lease is tried again, as long as the holder row still names this instance; let go at
   * once when another instance claimed it (it waits TAKEOVER_GRACE_MS before it loads the venue), or
   * when the row could not be read for UNCONFIRMED_MS.
   */
  private async watchHolder(generation: number): Promise<void> {
    let confirmed = Date.now();
    while (generation === this.watching && this.holding && !this.stopped) {
      try {
        const row = await sql<{ instance: string }>`SELECT instance FROM venue_sessions_holder WHERE name = ${HOLDER_ROW}`.execute(this.deps.db);
        if (generation !== this.watching) return;
        if (row.rows[0]?.instance !== this.deps.leases.instanceId) {
          await this.letGo();
          return;
        }
        confirmed = Date.now();
      } catch {
        // Unreadable for long: another instance may have claimed the sessions while this one was cut off.
        // With no other instance known, the database is down for everyone: keep them (nobody can claim).
        const others = this.deps.leases.lastLive.some((id) => id !== this.deps.leases.instanceId);
        if (others && Date.now() - confirmed > UNCONFIRMED_MS) {
          await this.letGo();
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, WATCH_MS).unref());
    }
  }

  /** Writes this instance as the holder; answers who held it before and the epoch now. */
  private async claim(): Promise<{ instance: string | null; epoch: number | null; newEpoch: number }> {
    const me = this.deps.leases.instanceId;
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await sql<{
        instance: string;
        epoch: string;
      }>`SELECT instance, epoch FROM venue_sessions_holder WHERE name = ${HOLDER_ROW} FOR UPDATE`.execute(trx);
      const before = row.rows[0];
      const newEpoch = before ? (before.instance === me ? Number(before.epoch) : Number(before.epoch) + 1) : 1;
      await sql`INSERT INTO venue_sessions_holder (name, instance, url, epoch, since) VALUES (${HOLDER_ROW}, ${me}, ${this.ownUrl}, ${newEpoch}, now())
        ON CONFLICT (name) DO UPDATE SET instance = excluded.instance, url = excluded.url, epoch = excluded.epoch, since = now()`.execute(trx);
      return { instance: before?.instance ?? null, epoch: before ? Number(before.epoch) : null, newEpoch };
    });
  }

  private async writeHolder(): Promise<void> {
    await sql`UPDATE venue_sessions_holder SET url = ${this.ownUrl} WHERE name = ${HOLDER_ROW} AND instance = ${this.deps.leases.instanceId}`.execute(
      this.deps.db,
    );
  }

  private async lookUpHolder(): Promise<string | null> {
    if (this.holderUrl) return this.holderUrl;
    const row = await sql<{ url: string | null }>`SELECT url FROM venue_sessions_holder WHERE name = ${HOLDER_ROW}`.execute(this.deps.db);
    this.holderUrl = row.rows[0]?.url ?? null;
    return this.holderUrl;
  }

  /** Loads the venue as last saved and starts every Active account's session and the jobs; retried with backoff. */
  private async startHolding(signal: AbortSignal): Promise<Holding> {
    const backoff = new Backoff(200, 5000);
    for (;;) {
      try {
        return await this.startHoldingOnce();
      } catch (error) {
        if (signal.aborted || this.stopped) throw error;
        this.deps.log.warn(`venue sessions: starting failed (${describeError(error)}); trying again`);
        await abortableSleep(backoff.next(), signal);
      }
    }
  }

  private async startHoldingOnce(): Promise<Holding> {
    const { db, store, clock, log, waitForReadModels } = this.deps;
    const host = await VenueHost.start({
      db,
      clock,
      log: log.child({ component: 'venues' }),
      ticker: this.deps.ticker,
      ...(this.deps.venues ? { routing: this.deps.venues } : {}),
      orderTimings: this.orderTimings,
    });
    const connections = new AccountConnections({
      store,
      db,
      host,
      decryptPassword: this.deps.decryptPassword,
      ...(this.deps.encryptPassword ? { encryptPassword: this.deps.encryptPassword } : {}),
      clock,
      log: log.child({ component: 'connections' }),
      waitForReadModels: (position, readModels) => waitForReadModels(position, undefined, readModels),
    });
    connections.watch((accountId, id, event) => {
      for (const watcher of this.watchers) {
        try {
          watcher(accountId, id, event);
        } catch (error) {
          log.error(`a watcher of account ${accountId}'s venue changes failed`, error);
        }
      }
    });
    try {
      await connections.connectActiveAccounts();
    } catch (error) {
      await connections.stop().catch(() => undefined);
      await host.stop().catch(() => undefined);
      throw error;
    }
    const { readModelMarks } = this.deps;
    const dataCollector = new DataCollector({ store, db, connections, clock, log: log.child({ component: 'data-collector' }), readModelMarks });
    dataCollector.start();
    const maintenance = new MaintenanceWindowRunner({
      store,
      db,
      connections,
      clock,
      log: log.child({ component: 'maintenance-windows' }),
      waitForReadModels,
      readModelMarks,
    });
    maintenance.start();
    const protection = new ProtectionMonitor({
      store,
      db,
      connections,
      clock,
      zone: this.deps.timeZone,
      waitForReadModels,
      log: log.child({ component: 'protection' }),
      readModelMarks,
    });
    protection.start();
    const guardrails = new TradeGuardrailMonitor({
      store,
      db,
      connections,
      leases: this.deps.leases,
      clock,
      waitForReadModels,
      log: log.child({ component: 'trade-guardrails' }),
      rounds: this.deps.rounds,
      readModelMarks,
    });
    guardrails.start();
    this.holderUrl = null;
    return { host, connections, protection, maintenance, dataCollector, guardrails };
  }

  /** Stops the jobs and the sessions (without recording disconnections) and the venue. */
  private letGo(): Promise<void> {
    this.lettingGo = this.lettingGo.then(() => this.release());
    return this.lettingGo;
  }

  private async release(): Promise<void> {
    const holding = this.holding;
    this.holding = null;
    this.holderUrl = null;
    if (!holding) return;
    if (!this.stopped) this.deps.log.warn('venue sessions: this instance lets them go (the lease is held elsewhere)');
    await holding.guardrails.stop().catch(() => undefined);
    holding.dataCollector.stop();
    holding.maintenance.stop();
    await holding.protection.stop().catch(() => undefined);
    await holding.connections.stop().catch(() => undefined);
    await holding.host.stop().catch(() => undefined);
  }
}

const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
