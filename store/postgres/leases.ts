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
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, type RecoveryLog } from '../recovery.js';

export interface LeaseOptions {
  /** How often a standby instance tries to win a lease someone else holds. */
  readonly retryMs?: number;
  /** How often the holding session is checked; a check that fails or hangs this long ends the leases. */
  readonly heartbeatMs?: number;
}

/** The work of one partition while its lease is held: it ends when `signal` aborts (or on its own). */
export type LeasedWork = (signal: AbortSignal) => Promise<void>;

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

  constructor(
    private readonly connectionString: string,
    private readonly log: RecoveryLog,
    options: LeaseOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 1000;
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
    const ended = () => this.stopped || released();
    while (!ended()) {
      let won: boolean | 'unreachable' = false;
      try {
        won = await this.tryLock(name);
      } catch (error) {
        this.sessionFailed(error);
        won = 'unreachable';
      }
      if (won !== true) {
        if (!waiting && won === false) this.log.info(`${name}: another instance holds the lease; this one stands by`, { lease: name, state: 'standby' });
        waiting = true;
        onStandby();
        await this.pause(ended);
        continue;
      }
      // Released (or stopped) while the attempt was on its way: let the lease go at once, else the work
      // would start with a signal nobody aborts any more and the release would wait for it to end.
      if (ended()) {
        await this.unlock(name);
        break;
      }
      if (waiting) this.log.info(`${name}: lease taken over`, { lease: name, state: 'leased' });
      waiting = false;
      const controller = new AbortController();
      this.held.set(name, controller);
      this.startHeartbeat();
      try {
        await work(controller.signal);
      } catch (error) {
        this.log.error(`${name}: its work ended with an error while leased`, error, { lease: name });
      } finally {
        this.held.delete(name);
        await this.unlock(name);
      }
      if (!ended() && controller.signal.aborted) await this.pause(ended);
    }
  }

  /** Waits `retryMs`, cut short when `ended` turns true. */
  private async pause(ended: () => boolean): Promise<void> {
    const step = 50;
    for (let waited = 0; waited < this.retryMs && !ended(); waited += step) await sleep(Math.min(step, this.retryMs - waited));
  }

  private async session(): Promise<pg.Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 10_000 });
      client.on('error', (error) => this.sessionFailed(error));
      try {
        await client.connect();
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

  private async tryLock(name: string): Promise<boolean> {
    const client = await this.session();
    const result = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [lockKey(name)]);
    return result.rows[0]?.ok === true;
  }

  private async unlock(name: string): Promise<void> {
    const client = this.client;
    if (!client) return;
    try {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(name)]);
    } catch (error) {
      this.sessionFailed(error);
    }
  }

  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
  }

  private async beat(): Promise<void> {
    const client = this.client;
    if (!client || this.held.size === 0) return;
    const timeout = sleep(this.heartbeatMs * 3, 'timeout' as const);
    try {
      const answer = await Promise.race([client.query('SELECT 1').then(() => 'ok' as const), timeout]);
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
