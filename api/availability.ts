// What the API does when it cannot serve everyone: while the database is unreachable it answers 503
// [DATABASE_UNAVAILABLE] at once; under more load than it can take it queues a bounded number of
// requests and sheds the rest with 503 [SERVICE_BUSY]. Both carry Retry-After. Trading requests
// (orders, positions, closes) have slots and a queue of their own, so a flood of reads never starves a
// master's trade, whose copies wait on it.
import type { Request, RequestHandler, Response } from 'express';
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

/**
 * Requests of a lane parked on a shared statement at most (LaneTurn.park); past this, a request keeps its
 * slot while it waits.
 */
const MAX_PARKED = 512;

/** A counting semaphore with a bounded FIFO queue whose waiters give up after a deadline. */
class Lane {
  private active = 0;
  /** Requests that gave their slot back while they wait on a statement shared with others. */
  parked = 0;
  private readonly waiting: { grant: () => void; timer: NodeJS.Timeout }[] = [];

  constructor(private readonly limits: LaneLimits) {}

  /** A slot's release function when one is free now, else null (the request must queue: acquire). */
  tryAcquire(): (() => void) | null {
    return this.active < this.limits.concurrent ? this.slot() : null;
  }

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

/**
 * A request's slot in its lane (issue 16). A read that waits on a statement it shares with other requests
 * and that holds no connection of its own (the kept account answers' stamp check, api/accounts/answers.ts)
 * gives its slot back meanwhile, so the requests behind it reach the same statement instead of queueing
 * for slots (under load, a lane of 8 made groups of about 4 and shed reads that had waited a second).
 * If it then needs a connection after all (the answer must be read again) it takes a slot again, or is
 * shed with 503 [SERVICE_BUSY] as any request the lane cannot take.
 */
export interface LaneTurn {
  /** Gives the slot back until `resume`; false (the slot is kept) when too many are parked already. */
  park(): boolean;
  /** Takes a slot again after `park` (nothing when the slot was kept); throws 503 [SERVICE_BUSY] when shed. */
  resume(): Promise<void>;
}

/** The lane turn of a request that went through loadShedding, if any. */
export const laneTurnOf = (locals: Record<string, unknown>): LaneTurn | null => (locals.laneTurn as LaneTurn | undefined) ?? null;

const TRADING_PATH = /\/(positions|orders|closeAllPositions|pendingOrders)(\/|$)/;

/** A request that may change something: any method but GET, HEAD and OPTIONS. */
const isChange = (req: Request): boolean => req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS';

/** Trading: anything that places, changes or closes an order or a position. */
export const isTradingRequest = (req: Request): boolean => isChange(req) && TRADING_PATH.test(req.path);

/**
 * A request's turn in its lane (see LaneTurn): one object per request, its methods shared (issue 16: a
 * read's closures here were about 5 % of the bytes allocated per GET /accounts/{accountId}).
 */
class Turn implements LaneTurn {
  /** The response finished or the connection closed: a slot granted later is given back at once. */
  private gone = false;
  private held: (() => void) | null = null;
  /** Parked (park) and counted in the lane's parked requests until resumed or gone. */
  private parked = false;
  /** Listens for the response's end: watched from arrival, so a client that leaves while queued holds no slot it is granted later. */
  readonly leave = (): void => {
    this.gone = true;
    this.unpark();
    this.held?.();
  };

  constructor(
    private readonly lane: Lane,
    private readonly req: Request,
    private readonly res: Response,
    private readonly retryAfterSeconds: number,
  ) {}

  /** Given the slot `release` gives back; false when the client is gone (the slot is given back at once). */
  admit(release: () => void): boolean {
    if (this.gone) {
      release();
      return false;
    }
    this.held = release;
    return true;
  }

  /** The refusal of a request the lane cannot take. */
  shed(): ApiError {
    const { req, res, retryAfterSeconds } = this;
    // Backpressure on a client that floods: its connection is not read again until Retry-After has
    // passed, so one ignoring it costs a 503 a second rather than the whole event loop.
    res.once('finish', () => {
      req.socket.pause();
      setTimeout(() => req.socket.resume(), retryAfterSeconds * 1000).unref();
    });
    return new ApiError(503, '[SERVICE_BUSY]', 'the service has more requests than it can take right now; nothing was changed, try again shortly', undefined, {
      'Retry-After': String(retryAfterSeconds),
    });
  }

  park(): boolean {
    if (this.parked || !this.held || this.lane.parked >= MAX_PARKED) return false;
    this.parked = true;
    this.lane.parked += 1;
    this.held();
    this.held = null;
    return true;
  }

  async resume(): Promise<void> {
    if (this.held || this.gone) return;
    this.unpark();
    const again = await this.lane.acquire();
    if (again && this.gone) again();
    else if (again) this.held = again;
    else throw this.shed();
  }

  private unpark(): void {
    if (!this.parked) return;
    this.parked = false;
    this.lane.parked -= 1;
  }
}

export const loadShedding = (options: SheddingOptions = DEFAULT_SHEDDING): RequestHandler => {
  const reads = new Lane(options.reads);
  const writes = new Lane(options.writes);
  const trading = new Lane(options.trading);
  return (req, res, next) => {
    const lane = isTradingRequest(req) ? trading : isChange(req) ? writes : reads;
    const turn = new Turn(lane, req, res, options.retryAfterSeconds);
    res.once('finish', turn.leave);
    res.once('close', turn.leave);
    const admitted = (release: (() => void) | null): void => {
      if (!release) return next(turn.shed());
      if (!turn.admit(release)) return;
      res.locals.laneTurn = turn;
      next();
    };
    // A free slot is taken at once; otherwise the request queues (acquire never rejects: a full lane
    // resolves to null, which answers 503).
    const free = lane.tryAcquire();
    if (free) admitted(free);
    else void lane.acquire().then(admitted);
  };
};
