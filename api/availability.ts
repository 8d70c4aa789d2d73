// What the API does when it cannot serve everyone: while the database is unreachable it answers 503
// [DATABASE_UNAVAILABLE] at once; under more load than it can take it queues a bounded number of
// requests and sheds the rest with 503 [SERVICE_BUSY]. Both carry Retry-After. Trading requests
// (orders, positions, closes) have slots and a queue of their own, so a flood of reads never starves a
// master's trade, whose copies wait on it.
import type { Request, RequestHandler } from 'express';
import type { Services } from '../app/services.js';
import { ApiError } from './errors.js';

type DatabaseHealth = Services['health'];

export const databaseUnavailable = (health: Pick<DatabaseHealth, 'retryAfterSeconds'>): ApiError =>
  new ApiError(503, '[DATABASE_UNAVAILABLE]', 'the database cannot be reached right now; nothing was changed, try again shortly', undefined, {
    'Retry-After': String(health.retryAfterSeconds),
  });

/** Answers 503 at once while the database is known to be down (no request waits on a dead pool). */
export const databaseGate =
  (health: Pick<DatabaseHealth, 'available' | 'retryAfterSeconds'>): RequestHandler =>
  (_req, _res, next) => {
    next(health.available ? undefined : databaseUnavailable(health));
  };

export interface LaneLimits {
  /** Requests of the lane served at once. */
  readonly concurrent: number;
  /** Requests of the lane waiting for a slot; more are shed. */
  readonly queued: number;
  /** How long a request may wait for a slot before it is shed. */
  readonly maxWaitMs: number;
}

export interface SheddingOptions {
  readonly reads: LaneLimits;
  /** Changes that are not trading (accounts, copiers, features, keys, ...): few at once, a patient queue. */
  readonly writes: LaneLimits;
  readonly trading: LaneLimits;
  readonly retryAfterSeconds: number;
}

export const DEFAULT_SHEDDING: SheddingOptions = {
  // Fewer reads at once than the pool has connections: the engine and trading always find one.
  reads: { concurrent: 8, queued: 128, maxWaitMs: 1000 },
  // A change waits longer than a read before it is shed: a client writing 50 changes at once (a script
  // configuring its copiers) is served in turn rather than refused after a second; reads still cannot
  // starve them, nor they trading.
  writes: { concurrent: 4, queued: 256, maxWaitMs: 10_000 },
  trading: { concurrent: 8, queued: 256, maxWaitMs: 10_000 },
  retryAfterSeconds: 1,
};

/** A counting semaphore with a bounded FIFO queue whose waiters give up after a deadline. */
class Lane {
  private active = 0;
  private readonly waiting: { grant: () => void; timer: NodeJS.Timeout }[] = [];

  constructor(private readonly limits: LaneLimits) {}

  /** Resolves with a release function, or null when the request is to be shed. */
  acquire(): Promise<(() => void) | null> {
    if (this.active < this.limits.concurrent) return Promise.resolve(this.slot());
    if (this.waiting.length >= this.limits.queued) return Promise.resolve(null);
    return new Promise((resolve) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer);
          resolve(this.slot());
        },
        timer: setTimeout(() => {
          const index = this.waiting.indexOf(entry);
          if (index >= 0) this.waiting.splice(index, 1);
          resolve(null);
        }, this.limits.maxWaitMs),
      };
      this.waiting.push(entry);
    });
  }

  private slot(): () => void {
    this.active += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      const next = this.waiting.shift();
      next?.grant();
    };
  }
}

const TRADING_PATH = /\/(positions|orders|closeAllPositions|pendingOrders)(\/|$)/;

/** A request that may change something: any method but GET, HEAD and OPTIONS. */
const isChange = (req: Request): boolean => req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS';

/** Trading: anything that places, changes or closes an order or a position. */
export const isTradingRequest = (req: Request): boolean => isChange(req) && TRADING_PATH.test(req.path);

export const loadShedding = (options: SheddingOptions = DEFAULT_SHEDDING): RequestHandler => {
  const reads = new Lane(options.reads);
  const writes = new Lane(options.writes);
  const trading = new Lane(options.trading);
  return (req, res, next) => {
    const lane = isTradingRequest(req) ? trading : isChange(req) ? writes : reads;
    // Watched from arrival: a client that leaves while queued must not hold the slot it is granted later.
    let gone = false;
    let held: (() => void) | null = null;
    const leave = (): void => {
      gone = true;
      held?.();
    };
    res.once('finish', leave);
    res.once('close', leave);
    // acquire() never rejects: a full lane resolves to null, which answers 503 below.
    void lane.acquire().then((release) => {
      if (release && gone) {
        release();
        return;
      }
      if (!release) {
        // Backpressure on a client that floods: its connection is not read again until Retry-After has
        // passed, so one ignoring it costs a 503 a second rather than the whole event loop.
        res.once('finish', () => {
          req.socket.pause();
          setTimeout(() => req.socket.resume(), options.retryAfterSeconds * 1000).unref();
        });
        next(
          new ApiError(503, '[SERVICE_BUSY]', 'the service has more requests than it can take right now; nothing was changed, try again shortly', undefined, {
            'Retry-After': String(options.retryAfterSeconds),
          }),
        );
        return;
      }
      held = release;
      next();
    });
  };
};
