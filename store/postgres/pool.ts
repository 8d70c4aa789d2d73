// Every pool of the service comes from here, so no pg client is ever without an 'error' listener. A
// pooled client that loses its server while checked out (a transaction, an advisory lock, a long read
// of `$all`) emits 'error' besides rejecting its query; pg-pool listens only while the client is idle,
// and an unheard 'error' event ends the process (issue 13: terminated backends crashed the service).
import pg from 'pg';

/** Told of every connection-level error a pool or its clients see (DatabaseHealth). */
export interface ConnectionFaults {
  observe(error: unknown): void;
}

/** How long a request may wait for a connection: a hung server answers 503, not never. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long a connection may sit idle in the pool before it is closed. pg's default, 10 s, closed the
 * connections the background loops had opened in a busier moment between their rounds (most look every
 * one to five seconds), and the next such moment opened them again: a backend started, authenticated
 * and ended for nothing. A minute keeps a pool's working set open across those gaps and still gives
 * back what a burst opened once the burst is over. A server or pooler that ends idle sessions sooner is
 * no fault: a pooled connection that drops is reported (below) and replaced at its next use.
 */
export const POOL_IDLE_TIMEOUT_MS = 60_000;

/**
 * `settings`: PostgreSQL settings of every session of the pool (`{ synchronous_commit: 'off' }`), sent
 * as the connection's startup options.
 */
export const createPool = (connectionString: string, max: number, faults?: ConnectionFaults, settings: Readonly<Record<string, string>> = {}): pg.Pool => {
  const options = Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    ...(options ? { options } : {}),
  });
  const report = (error: unknown): void => faults?.observe(error);
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', report));
  return pool;
};
