// Staying up when the database blinks. A long-running consumer (copy engine, projection runner,
// webhook dispatcher, outbox, queues, monitors, schedulers) that fails waits a capped, jittered
// backoff and starts again from its checkpoint; its log says so once when it starts failing and once
// when it resumes, not once per attempt (an outage of a minute is not six hundred lines).
import { setTimeout as sleep } from 'node:timers/promises';

/** What a consumer logs through (app/logger.ts's Logger fits); fields become structured members of the line. */
export interface RecoveryLog {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, error?: unknown, fields?: Readonly<Record<string, unknown>>): void;
}

/** SQLSTATE classes and codes that mean the server or the connection went away, not the statement. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006', '08007']);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|terminating connection|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed and is not queryable|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|server closed the connection unexpectedly|Connection refused/i;

/**
 * Whether an error says the database cannot be reached (refused, terminated, restarting), as opposed
 * to a statement that failed on a live server. Looks through `cause` and AggregateError's `errors`.
 */
export const isDatabaseUnavailable = (error: unknown, depth = 0): boolean => {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_SQLSTATES.has(e.code) || UNAVAILABLE_ERRNOS.has(e.code))) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
};

export const describeError = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || (error instanceof AggregateError ? error.errors.map(describeError).join('; ') : error.name);
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(error);
};

/** Exponential delays from `initialMs` doubling to `maxMs`, each drawn from its upper half (jitter). */
export class Backoff {
  private attempt = 0;

  constructor(
    readonly initialMs = 100,
    readonly maxMs = 5000,
  ) {}

  next(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt += 1;
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }

  reset(): void {
    this.attempt = 0;
  }
}

/**
 * Runs `attempt` until it succeeds or `stopped()` says to give up, sleeping a backoff (250 ms doubling
 * to 5 s) between tries; never rejects. The listening connections (append signal, queue wake) connect so.
 */
export const retryUntilDone = async (attempt: () => Promise<void>, stopped: () => boolean): Promise<void> => {
  const backoff = new Backoff(250, 5000);
  while (!stopped()) {
    try {
      await attempt();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, backoff.next()).unref());
    }
  }
};

export interface RecoveryOptions {
  /** What the consumer does after a failure, for the log: "resubscribes from its checkpoint". */
  readonly action?: string;
  readonly initialMs?: number;
  readonly maxMs?: number;
}

/**
 * The failures of one consumer. `failed` logs the first failure of a run of failures (and any later
 * one whose cause reads differently), then sleeps the next backoff; `noted` logs the same way without
 * sleeping (for consumers on a timer); `succeeded` ends the run and says so.
 */
export class Recovery {
  private readonly backoff: Backoff;
  private failures = 0;
  private since = 0;
  private lastCause: string | null = null;
  private readonly action: string;

  constructor(
    readonly name: string,
    private readonly log: RecoveryLog,
    options: RecoveryOptions = {},
  ) {
    this.backoff = new Backoff(options.initialMs ?? 100, options.maxMs ?? 5000);
    this.action = options.action ?? 'tries again';
  }

  get failing(): boolean {
    return this.failures > 0;
  }

  /** Logs the failure (once per run of failures with the same cause) and returns the delay to wait. */
  noted(error: unknown): number {
    const delay = this.backoff.next();
    const cause = describeError(error);
    if (this.failures === 0) this.since = Date.now();
    this.failures += 1;
    if (cause !== this.lastCause) {
      this.lastCause = cause;
      const message = `${this.name} failed: ${cause}; it ${this.action} with backoff (up to ${this.backoff.maxMs / 1000} s between attempts)`;
      const fields = { consumer: this.name, state: 'failing', databaseUnavailable: isDatabaseUnavailable(error) };
      if (fields.databaseUnavailable) this.log.warn(message, fields);
      else this.log.error(message, error, fields);
    }
    return delay;
  }

  /** Notes the failure, then waits its backoff delay (cut short when `stopped` turns true). */
  async failed(error: unknown, stopped: () => boolean = () => false): Promise<void> {
    const delay = this.noted(error);
    const step = 50;
    for (let waited = 0; waited < delay && !stopped(); waited += step) await sleep(Math.min(step, delay - waited));
  }

  succeeded(): void {
    if (this.failures === 0) return;
    const seconds = ((Date.now() - this.since) / 1000).toFixed(1);
    this.log.info(`${this.name} resumed after ${this.failures} failed attempt${this.failures === 1 ? '' : 's'} over ${seconds} s`, {
      consumer: this.name,
      state: 'resumed',
      failedAttempts: this.failures,
    });
    this.failures = 0;
    this.lastCause = null;
    this.backoff.reset();
  }
}
