// Leases on partitions of background work (issue 14 item 3): a partition (the read models, the copy
// engine, the webhook dispatcher) is worked by one instance of the service at a time. A lease is a
// PostgreSQL session-level advisory lock held on one connection of its own per instance: the lock lives
// as long as that session, so an instance that dies (SIGKILL, a lost network) lets its leases go when
// its backend ends, and another instance's next attempt takes them over.
//
// The holder checks its session every `heartbeatMs`; a session that stops answering (a restarted or
// unreachable server) ends every lease it held: each holder's `AbortSignal` fires, its work stops, and
// it tries to win the lease again on a new session. Work that was cut short is safe to do again by the
// next holder: each partition's own checkpoint and deterministic ids make repeats no-ops.
//
// The heartbeat's statement is the read of the live instances (below), not a `SELECT 1` beside it: one
// statement a heartbeat confirms the session and keeps the live instances fresh for every round and
// handover check of the instance (an idle instance made two statements a second, it makes one). A beat
// whose read shows the live instances changed (one died, one came) ends the pause of every round and
// standby at once, so a dead instance's partitions are taken no later than when each round read for
// itself. Any answer of the lease session counts as it answering (`sessionFresh`).
//
// A set of partitions worked by every live instance together (the copy engine's, by master account)
// is held with `holdShare`: each instance holds its fair share, ceil(partitions / live instances), takes
// unheld partitions up to it and lets its surplus go when another instance appears. The live instances
// are the lease sessions in pg_stat_activity (application_name `ct-leases:<instance id>`): a session
// ends with its process, and an unreachable one within `idle_session_timeout` (10 s), so a dead
// instance's partitions are taken by the others at their next round (every `retryMs`).
//
// Fencing: every time an instance wins a lease, the lease's epoch in `lease_epochs` goes up by one and
// the work is handed that epoch (its fencing token). An advisory lock alone ends when a session dies,
// while the old holder may still be finishing an item (it learns of the loss at its next heartbeat);
// what must never be done twice checks the token where it commits: a checkpoint is saved only while the
// epoch is still the saver's (`fencedCheckpointSql`), and the copy engine's outcomes are appended only
// while its partition's fence stream is where the term left it (engine/copy/fence.ts).
//
// Spreading: the leases named in `spread` (the projection runner, the webhook dispatcher, the retention
// jobs: work every instance offers to do) each have a preferred owner among the live instances
// (rendezvous hashing of the lease name and the instance ids). An instance that is not the preferred
// one tries such a lease only after HANDOVER_ROUNDS attempts (so a free lease still finds an owner if
// the preferred one does not take it), and a holder hands it over (its work ends, the lease is let go)
// when another live instance is preferred. A dead instance's leases go to the preferred survivor.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { AnyKysely } from './checkpoints.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, type RecoveryLog } from '../recovery.js';

export interface LeaseOptions {
  /** How often a standby instance tries to win a lease someone else holds. */
  readonly retryMs?: number;
  /** How often the holding session is checked; a check that fails or hangs this long ends the leases. */
  readonly heartbeatMs?: number;
  /** This instance's id in pg_stat_activity (default: random). */
  readonly instanceId?: string;
  /** The leases spread over the live instances (see above); the others go to whoever wins them first. */
  readonly spread?: readonly string[];
  /** False for tools (npm run project): they hold leases but do not count as an instance of the service. */
  readonly member?: boolean;
}

/** A tool's lease session: holds leases, is no instance of the service. */
export const TOOL_SESSION_PREFIX = 'ct-tool:';
/** Attempts a non-preferred instance lets pass before it tries a spread lease itself. */
const HANDOVER_ROUNDS = 3;

/** The fencing tokens: one row per lease, its epoch raised by every win. */
export const LEASE_EPOCHS_TABLE = 'lease_epochs';

/**
 * Saves a processor checkpoint only while `lease` is still at `epoch` (the saver's term); answers
 * whether it was saved. The epoch row is read FOR SHARE: a win that raises the epoch waits for the
 * save, and a save after the win sees the new epoch and changes nothing.
 */
export const saveCheckpointFenced = async (db: AnyKysely, name: string, position: string | null, lease: string, epoch: number): Promise<boolean> => {
  const result = await sql`INSERT INTO processor_checkpoints (name, position, updated)
    SELECT ${name}, ${position}, now() WHERE EXISTS (SELECT 1 FROM ${sql.raw(LEASE_EPOCHS_TABLE)} WHERE name = ${lease} AND epoch = ${epoch} FOR SHARE)
    ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated = excluded.updated`.execute(db as unknown as Kysely<unknown>);
  return Number(result.numAffectedRows ?? 0n) > 0;
};

/** The rendezvous score of an instance for a lease: the highest live one is preferred. */
const score = (lease: string, instance: string): number => {
  let hash = 0x811c9dc5;
  const key = `${lease}\u0000${instance}`;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};

/** The live instance preferred for `lease` (null: none live). */
export const preferredOwner = (lease: string, live: readonly string[]): string | null => {
  let best: string | null = null;
  for (const id of live) if (best === null || score(lease, id) > score(lease, best) || (score(lease, id) === score(lease, best) && id < best)) best = id;
  return best;
};

/** The application_name prefix of every instance's lease session: the live instances. */
export const LEASE_SESSION_PREFIX = 'ct-leases:';

/** A share of partitions held (holdShare): `decided` resolves once the first round has taken what it could. */
export interface HeldShare {
  readonly decided: Promise<void>;
  release(): Promise<void>;
}

/** The work of one partition of a share while its lease is held, with the term's fencing token. */
export type ShareWork = (name: string, signal: AbortSignal, epoch: number) => Promise<void>;

/**
 * The work of one partition while its lease is held: it ends when `signal` aborts (or on its own).
 * `epoch` is this term's fencing token (lease_epochs).
 */
export type LeasedWork = (signal: AbortSignal, epoch: number) => Promise<void>;

const lockKey = (name: string): string => `lease:${name}`;

/** One instance's leases: one session, any number of named partitions. */
export class Leases {
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client> | null = null;
  private readonly held = new Map<string, AbortController>();
  private readonly holders = new Set<Promise<void>>();
  private heartbeat: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly retryMs: number;
  private readonly heartbeatMs: number;
  /** This instance's id (the lease session's application_name after the prefix). */
  readonly instanceId: string;
  private readonly spread: ReadonlySet<string>;
  private readonly member: boolean;
  /** The live instances as last read, and when (one query per retryMs for every lease). */
  private liveCache: { at: number; ids: Promise<readonly string[]> } | null = null;
  /** The live instances as last read successfully (empty before the first read). */
  lastLive: readonly string[] = [];
  /** The epoch each held lease was won at. */
  private readonly epochs = new Map<string, number>();
  /** When the lease session last answered a statement (a heartbeat, a live read, a win), Date.now(); 0: never. */
  private confirmedAt = 0;
  /** Raised when a read shows other live instances than the one before: the pauses end at once. */
  private liveGeneration = 0;
  /** The live read on its way (sent, not answered yet): a heartbeat waits for it instead of sending another. */
  private liveInFlight: Promise<readonly string[]> | null = null;

  constructor(
    private readonly connectionString: string,
    private readonly log: RecoveryLog,
    options: LeaseOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.instanceId = options.instanceId ?? randomUUID();
    this.spread = new Set(options.spread ?? []);
    this.member = options.member ?? true;
  }

  /**
   * Whether the lease session answered within the last three heartbeats. While it lives, its advisory
   * locks are held by nobody else; it may end any moment after (a process paused, a lost network), so
   * work that must not overlap a later holder's checks this just before it acts (the copy engine's
   * early placement, engine/copy/early.ts) and still relies on fencing for what it commits.
   */
  get sessionFresh(): boolean {
    return this.client !== null && Date.now() - this.confirmedAt <= this.heartbeatMs * 3;
  }

  /** The fencing token of a lease this instance holds now (undefined: not held). */
  epochOf(name: string): number | undefined {
    return this.held.has(name) ? this.epochs.get(name) : undefined;
  }

  /** The ids of the live instances of the service (their lease sessions), cached for `retryMs`. */
  liveIds(): Promise<readonly string[]> {
    if (this.liveCache && Date.now() - this.liveCache.at < this.retryMs) return this.liveCache.ids;
    return this.readLive();
  }

  /** Reads the live instances now (the cache starts again from this read). */
  private readLive(): Promise<readonly string[]> {
    const ids = (async (): Promise<readonly string[]> => {
      const client = await this.session();
      const result = await this.query<{ id: string }>(
        client,
        `SELECT DISTINCT substr(application_name, length($1) + 1) AS id FROM pg_stat_activity
          WHERE datname = current_database() AND application_name LIKE $1 || '%' ORDER BY 1`,
        [LEASE_SESSION_PREFIX],
      );
      const live = result.rows.map((r) => r.id);
      if (live.join('\u0000') !== this.lastLive.join('\u0000')) this.liveGeneration += 1;
      this.lastLive = live;
      return live;
    })();
    ids.catch(() => void (this.liveCache?.ids === ids && (this.liveCache = null)));
    this.liveCache = { at: Date.now(), ids };
    this.liveInFlight = ids;
    ids.finally(() => this.liveInFlight === ids && (this.liveInFlight = null)).catch(() => undefined);
    return ids;
  }

  /** Whether another live instance is preferred for the spread lease `name` (false for any other lease). */
  private async preferredElsewhere(name: string): Promise<boolean> {
    if (!this.spread.has(name)) return false;
    const live = await this.liveIds();
    const preferred = preferredOwner(name, live);
    return preferred !== null && preferred !== this.instanceId && (this.member ? live.includes(this.instanceId) : true);
  }

  /** The partitions this instance holds now, of those named. */
  heldOf(names: readonly string[]): string[] {
    return names.filter((name) => this.held.has(name));
  }

  /**
   * Works this instance's fair share of the partitions `names` (see above): every `retryMs` a round
   * counts the live instances, lets surplus partitions go (their work is aborted and awaited first) and
   * tries unheld ones up to the share, starting at an offset of this instance's own so that instances do
   * not all contend for the same partitions. Returns at once; `release` ends every partition's work.
   */
  holdShare(names: readonly string[], work: ShareWork): HeldShare {
    let released = false;
    const ended = () => this.stopped || released;
    const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
    const offset = [...this.instanceId].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) >>> 0, 7) % Math.max(1, names.length);
    const order = [...names.slice(offset), ...names.slice(0, offset)];
    let onDecided: () => void = () => undefined;
    const decided = new Promise<void>((resolve) => (onDecided = resolve));
    const begin = (name: string, epoch: number): void => {
      const controller = new AbortController();
      this.held.set(name, controller);
      this.epochs.set(name, epoch);
      this.startHeartbeat();
      const done = (async () => {
        try {
          await work(name, controller.signal, epoch);
        } catch (error) {
          this.log.error(`${name}: its work ended with an error while leased`, error, { lease: name });
        } finally {
          if (this.held.get(name) === controller) this.held.delete(name);
          await this.unlock(name);
          running.delete(name);
        }
      })();
      running.set(name, { controller, done });
    };
    const round = async (): Promise<void> => {
      const live = Math.max(1, await this.liveInstances());
      const share = Math.ceil(names.length / live);
      const mine = order.filter((name) => running.has(name));
      if (mine.length > share) {
        const surplus = mine.slice(share);
        for (const name of surplus) running.get(name)?.controller.abort();
        await Promise.all(surplus.map((name) => running.get(name)?.done));
        this.log.info(`gave ${surplus.length} partitions back for another instance (share ${share} of ${names.length}, ${live} instances)`, {
          leases: surplus,
          state: 'released',
        });
        return;
      }
      const taken: string[] = [];
      for (const name of order) {
        if (running.size >= share || ended()) break;
        if (running.has(name)) continue;
        const epoch = await this.tryLock(name);
        if (epoch !== null) {
          if (ended()) {
            await this.unlock(name);
            break;
          }
          begin(name, epoch);
          taken.push(name);
        }
      }
      if (taken.length > 0)
        this.log.info(`took ${taken.length} partitions (share ${share} of ${names.length}, ${live} instances)`, { leases: taken, state: 'leased' });
    };
    const loop = (async () => {
      while (!ended()) {
        try {
          await round();
        } catch (error) {
          this.sessionFailed(error);
        }
        onDecided();
        await this.pause(ended);
      }
      onDecided();
      for (const { controller } of running.values()) controller.abort();
      await Promise.all([...running.values()].map((r) => r.done));
    })();
    this.holders.add(loop);
    void loop.finally(() => this.holders.delete(loop));
    return {
      decided,
      release: async () => {
        released = true;
        for (const { controller } of running.values()) controller.abort();
        await loop;
      },
    };
  }

  /** How many instances have a lease session now (at least this one, once it has a session). */
  async liveInstances(): Promise<number> {
    return (await this.liveIds()).length;
  }

  /** Whether this instance holds the lease on `name` now. */
  holds(name: string): boolean {
    return this.held.has(name);
  }

  /**
   * Works the partition `name` whenever this instance holds its lease: tries to win it, runs `work`
   * until the lease is lost or the leases stop, lets it go, and tries again. Returns at once; `release`
   * ends the work and the attempts, and resolves once the lease is let go.
   */
  hold(name: string, work: LeasedWork, onStandby: () => void = () => undefined): { release(): Promise<void> } {
    let released = false;
    const holder = this.holdLoop(name, work, () => released, onStandby);
    this.holders.add(holder);
    void holder.finally(() => this.holders.delete(holder));
    return {
      release: async () => {
        released = true;
        this.held.get(name)?.abort();
        await holder;
      },
    };
  }

  /** Ends every lease (their work is aborted and awaited) and closes the session. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const controller of this.held.values()) controller.abort();
    await Promise.all([...this.holders]);
    this.endSession();
  }

  private async holdLoop(name: string, work: LeasedWork, released: () => boolean, onStandby: () => void): Promise<void> {
    let waiting = false;
    let deferred = 0;
    const ended = () => this.stopped || released();
    while (!ended()) {
      let won: number | null | 'unreachable' | 'deferred' = null;
      try {
        // A spread lease preferred elsewhere: leave it to that instance for a few rounds.
        if (deferred < HANDOVER_ROUNDS && (await this.preferredElsewhere(name))) {
          deferred += 1;
          won = 'deferred';
        } else won = await this.tryLock(name);
      } catch (error) {
        this.sessionFailed(error);
        won = 'unreachable';
      }
      if (typeof won !== 'number') {
        if (!waiting && won !== 'unreachable')
          this.log.info(`${name}: another instance holds the lease; this one stands by`, { lease: name, state: 'standby' });
        if (won === null) deferred = 0;
        waiting = true;
        onStandby();
        await this.pause(ended);
        continue;
      }
      deferred = 0;
      // Released (or stopped) while the attempt was on its way: let the lease go at once, else the work
      // would start with a signal nobody aborts any more and the release would wait for it to end.
      if (ended()) {
        await this.unlock(name);
        break;
      }
      if (waiting) this.log.info(`${name}: lease taken over`, { lease: name, state: 'leased', epoch: won });
      waiting = false;
      const controller = new AbortController();
      this.held.set(name, controller);
      this.epochs.set(name, won);
      this.startHeartbeat();
      const handover = this.spread.has(name) ? this.watchHandover(name, controller) : null;
      try {
        await work(controller.signal, won);
      } catch (error) {
        this.log.error(`${name}: its work ended with an error while leased`, error, { lease: name });
      } finally {
        handover?.stop();
        this.held.delete(name);
        await this.unlock(name);
      }
      if (!ended() && controller.signal.aborted) await this.pause(ended);
    }
  }

  /** While a spread lease is held: hand it over when another live instance is preferred for it. */
  private watchHandover(name: string, controller: AbortController): { stop(): void } {
    let stopped = false;
    void (async () => {
      while (!stopped && !controller.signal.aborted && !this.stopped) {
        await this.pause(() => stopped || controller.signal.aborted || this.stopped);
        if (stopped || controller.signal.aborted || this.stopped) return;
        const elsewhere = await this.preferredElsewhere(name).catch(() => false);
        if (elsewhere && !stopped && !controller.signal.aborted) {
          this.log.info(`${name}: handing the lease over to the instance preferred for it`, { lease: name, state: 'handover' });
          controller.abort();
        }
      }
    })();
    return { stop: () => (stopped = true) };
  }

  /** Waits `retryMs`, cut short when `ended` turns true or a read shows other live instances. */
  private async pause(ended: () => boolean): Promise<void> {
    const step = 50;
    const generation = this.liveGeneration;
    for (let waited = 0; waited < this.retryMs && !ended() && generation === this.liveGeneration; waited += step)
      await sleep(Math.min(step, this.retryMs - waited));
  }

  /** The last statement sent on each session: the next waits for it (see `query`). */
  private readonly lastStatement = new WeakMap<pg.Client, Promise<unknown>>();

  /**
   * A statement on the lease session, after the ones sent before it: the heartbeat, lease attempts and
   * the live-instance read share the session, and pg's own queue for a client's concurrent queries is
   * deprecated (it warned in every run and goes in pg 9). The order is the same as that queue's.
   */
  private query<R extends pg.QueryResultRow>(client: pg.Client, text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const before = this.lastStatement.get(client) ?? Promise.resolve();
    const statement = before.then(async () => {
      const result = await client.query<R>(text, values);
      // An answer is an answer: whatever the statement, the session lived when it came.
      if (this.client === client) this.confirmedAt = Date.now();
      return result;
    });
    this.lastStatement.set(
      client,
      statement.catch(() => undefined),
    );
    return statement;
  }

  private async session(): Promise<pg.Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.connectionString,
        connectionTimeoutMillis: 10_000,
        application_name: `${this.member ? LEASE_SESSION_PREFIX : TOOL_SESSION_PREFIX}${this.instanceId}`,
        keepAlive: true,
      });
      client.on('error', (error) => this.sessionFailed(error));
      try {
        await client.connect();
        // A session whose instance stopped talking (a lost network) ends, and its leases with it.
        // (PostgreSQL 14 and newer; on 13 a lost network ends the session at the TCP keepalive's pace.)
        await client.query(`SET idle_session_timeout = '${Math.max(10_000, this.heartbeatMs * 10, this.retryMs * 10)}ms'`).catch(() => undefined);
        await client.query(`BEGIN; SELECT pg_advisory_xact_lock(hashtext('${LEASE_EPOCHS_TABLE}'));
          CREATE TABLE IF NOT EXISTS ${LEASE_EPOCHS_TABLE} (name text PRIMARY KEY, epoch bigint NOT NULL, instance text NOT NULL, since timestamptz NOT NULL DEFAULT now());
          COMMIT`);
      } catch (error) {
        client.removeAllListeners('error');
        client.on('error', () => undefined);
        throw error;
      }
      this.client = client;
      return client;
    })().finally(() => (this.connecting = null));
    return this.connecting;
  }

  /** Tries the lease: its new epoch when won (the fencing token of this term), null when held elsewhere. */
  private async tryLock(name: string): Promise<number | null> {
    const client = await this.session();
    const result = await this.query<{ ok: boolean }>(client, 'SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [lockKey(name)]);
    if (result.rows[0]?.ok !== true) return null;
    try {
      const raised = await this.query<{ epoch: string }>(
        client,
        `INSERT INTO ${LEASE_EPOCHS_TABLE} (name, epoch, instance) VALUES ($1, 1, $2)
           ON CONFLICT (name) DO UPDATE SET epoch = ${LEASE_EPOCHS_TABLE}.epoch + 1, instance = excluded.instance, since = now()
           RETURNING epoch`,
        [name, this.instanceId],
      );
      return Number(raised.rows[0]!.epoch);
    } catch (error) {
      await this.unlock(name);
      throw error;
    }
  }

  private async unlock(name: string): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      await this.query(client, 'SELECT pg_advisory_unlock(hashtext($1))', [lockKey(name)]);
    } catch (error) {
      this.sessionFailed(error);
    }
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * One heartbeat: the live instances read on the lease session (a read already on its way is waited
   * for instead: it is answered no earlier than a statement sent now would be). No answer within three
   * heartbeats, or a failure, ends the session and its leases.
   */
  private async beat(): Promise<void> {
    const client = this.client;
    if (!client || this.held.size === 0) return;
    const timeout = sleep(this.heartbeatMs * 3, 'timeout' as const);
    try {
      const answer = await Promise.race([(this.liveInFlight ?? this.readLive()).then(() => 'ok' as const), timeout]);
      if (answer === 'timeout') throw new Error(`the lease session did not answer within ${this.heartbeatMs * 3} ms`);
    } catch (error) {
      if (this.client === client) this.sessionFailed(error);
    }
  }

  /** The session is gone or unsure: every lease it held ends now; the next attempt opens a new one. */
  private sessionFailed(error: unknown): void {
    if (this.held.size > 0 && !this.stopped) {
      this.log.warn(`the lease session failed (${describeError(error)}): ${[...this.held.keys()].join(', ')} stop until their leases are won again`, {
        leases: [...this.held.keys()],
        state: 'lost',
      });
    }
    for (const controller of this.held.values()) controller.abort();
    this.endSession();
  }

  private endSession(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
    }
  }
}
