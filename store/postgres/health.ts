// Whether the database can be reached, as the API and the operator see it. A connection-level error
// anywhere (a pool, a client, a request) makes it look: one probe on a connection of its own decides.
// While the probe fails the database is down: the API answers 503 [DATABASE_UNAVAILABLE] at once,
// the log says so once, and the probe goes on every second until it answers, which the log says too.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { describeError, isDatabaseUnavailable, type RecoveryLog } from '../recovery.js';
import type { ConnectionFaults } from './pool.js';

const PROBE_TIMEOUT_MS = 2000;
const PROBE_INTERVAL_MS = 1000;

export class DatabaseHealth extends EventEmitter implements ConnectionFaults {
  private downSince: number | null = null;
  private probing: Promise<boolean> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly connectionString: string,
    private readonly log: RecoveryLog,
  ) {
    super();
  }

  get available(): boolean {
    return this.downSince === null;
  }

  /** Seconds a client should wait before trying again while the database is down. */
  get retryAfterSeconds(): number {
    return 2;
  }

  /** A connection-level error was seen: make sure (one probe at a time) whether the database is down. */
  observe(error: unknown): void {
    if (this.closed || !isDatabaseUnavailable(error) || this.downSince !== null) return;
    // A probe never rejects: an unreachable database resolves to false.
    void this.probe().then((up) => {
      if (!up) this.markDown(error);
    });
  }

  /**
   * Whether `error` says the database cannot be reached (observed, as `observe` does): a request that
   * failed so is answered 503 [DATABASE_UNAVAILABLE], not 500.
   */
  unreachableBecause(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    this.observe(error);
    return true;
  }

  /** One probe: a fresh connection and SELECT 1, bounded in time. */
  probe(): Promise<boolean> {
    this.probing ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    })().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private markDown(error: unknown): void {
    if (this.closed || this.downSince !== null) return;
    this.downSince = Date.now();
    this.log.warn(`the database is unreachable (${describeError(error)}); the API answers 503 until it is back`);
    this.emit('down');
    const again = (): void => {
      if (this.closed) return;
      this.timer = setTimeout(() => {
        void this.probe().then((up) => (up ? this.markUp() : again()));
      }, PROBE_INTERVAL_MS);
      this.timer.unref();
    };
    again();
  }

  private markUp(): void {
    if (this.downSince === null) return;
    const seconds = ((Date.now() - this.downSince) / 1000).toFixed(1);
    this.downSince = null;
    this.log.info(`the database is reachable again after ${seconds} s`);
    this.emit('up');
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
