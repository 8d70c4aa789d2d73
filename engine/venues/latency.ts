// Per-venue order round trips for the operator's /metrics (api/metrics.ts): every order request an
// account's connection sends (place, modify, close, cancel) is timed from the call to its answer, with
// the kind of venue it went to (`simulated`, or the real venue's name: `ccxt:bybit`,
// `MetaTrader bridge`...) and its outcome (`ok`, `refused`: a VenueError, `error`: anything else, a
// timeout or a lost link). The timings are told to the listeners of the service whose venue host made
// the connection (VenueHost.orderTimings): several services in one process count only their own.
import type { VenueConnection } from './port.js';
import { VenueError } from './port.js';

export type TimedOperation = 'placeOrder' | 'modifyPosition' | 'closePosition' | 'cancelOrder';

export interface VenueOrderTiming {
  readonly venue: string;
  readonly operation: TimedOperation;
  readonly seconds: number;
  readonly outcome: 'ok' | 'refused' | 'error';
}

const TIMED: ReadonlySet<string> = new Set<TimedOperation>(['placeOrder', 'modifyPosition', 'closePosition', 'cancelOrder']);

/** The timed order requests of one service's connections, told to that service's listeners. */
export class VenueOrderTimings {
  private readonly listeners = new Set<(timing: VenueOrderTiming) => void>();

  /** Hears every timed order request of this service's connections. Answers the unsubscribe. */
  listen(listener: (timing: VenueOrderTiming) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  tell(timing: VenueOrderTiming): void {
    for (const listener of this.listeners) {
      try {
        listener(timing);
      } catch {
        // A metrics listener never breaks trading.
      }
    }
  }
}

type Method = (...args: unknown[]) => unknown;

/**
 * `connection` with its order requests timed into `timings` (everything else, its own extras included,
 * passes through). Each method's wrapper is made once per connection and answered again while the
 * connection holds the same method: the copy engine asks a slave's connection for several methods per
 * copy, and a new bound function each time was a measurable part of a fan-out's CPU.
 */
export const timedConnection = <C extends VenueConnection>(connection: C, venue: string, timings: VenueOrderTimings): C => {
  const wrappers = new Map<string | symbol, { readonly method: Method; readonly wrapper: Method }>();
  return new Proxy(connection, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const method = value as Method;
      const made = wrappers.get(property);
      if (made?.method === method) return made.wrapper;
      const wrapper = wrap(target, property, method, venue, timings);
      wrappers.set(property, { method, wrapper });
      return wrapper;
    },
  });
};

const wrap = (target: VenueConnection, property: string | symbol, method: Method, venue: string, timings: VenueOrderTimings): Method => {
  if (typeof property !== 'string' || !TIMED.has(property)) return method.bind(target);
  const operation = property as TimedOperation;
  return async (...args: unknown[]) => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const result: unknown = await method.apply(target, args);
      timings.tell({ venue, operation, seconds: seconds(), outcome: 'ok' });
      return result;
    } catch (error) {
      timings.tell({ venue, operation, seconds: seconds(), outcome: error instanceof VenueError ? 'refused' : 'error' });
      throw error;
    }
  };
};
