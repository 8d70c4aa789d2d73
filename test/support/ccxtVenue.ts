// What the ccxt adapter's unit specs share: a started fake exchange holding the account they trade
// (key-1 / secret-1, 10,000 USDT; OKX's passphrase pass-1), the adapter's venue pointed at it,
// `ccxtSpecHarness`, their whole per-test set-up and tear-down, and `until`, their wait for a condition.
import { expect } from 'chai';
import { ccxtAdapter } from '../../engine/venues/ccxt/adapter.js';
import type { CcxtConnection } from '../../engine/venues/ccxt/connection.js';
import type { RealVenue, VenueLog } from '../../engine/venues/registry.js';
import { type FakeDialect, FakeExchange } from './fakeExchange.js';

/** A started fake `dialect` exchange holding key-1 / secret-1 with 10,000 USDT (OKX: passphrase pass-1). */
export const startedFakeExchange = async (dialect: FakeDialect = 'binance'): Promise<FakeExchange> => {
  const fake = new FakeExchange(dialect);
  await fake.start();
  fake.addAccount('key-1', 'secret-1', { USDT: 10_000 }, dialect === 'okx' ? 'pass-1' : null);
  return fake;
};

/** Until `test` holds (checked every 25 ms), failing with `what` after `ms`: a spec waits for what it asserts on, never a fixed time. */
export const until = async (what: string, test: () => boolean, ms = 20_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!test() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  expect(test(), what).to.equal(true);
};

/** A log keeping info lines in `infos` and warnings and errors in `warnings`. */
export const keptLog = (infos: string[], warnings: string[]): VenueLog => ({
  info: (m) => infos.push(m),
  warn: (m) => warnings.push(m),
  error: (m) => warnings.push(m),
});

/**
 * The adapter's venue of `target` (a dialect, or okxswap) at `fake`: a 60 s poll unless `settings` say
 * otherwise, and the adapter's own 10 s request timeout (a shorter one timed requests out on a loaded
 * machine; a spec about a timeout sets its own and delays the answer well past it: `timeoutVenue`).
 */
export const ccxtVenueAt = (fake: FakeExchange, target: FakeDialect | 'okxswap', log: VenueLog, settings: Record<string, string> = {}) =>
  ccxtAdapter.venue(target, ccxtAdapter.config({ CCXT_BASE_URL: fake.url, CCXT_POLL_MS: '60000', ...settings }), {
    clock: () => new Date(),
    log,
  });

/** What `ccxtSpecHarness` starts each test with. */
export interface CcxtSpecOptions {
  /** The fake's dialect; none: nothing is started before a test, it calls `open` itself. */
  readonly dialect?: FakeDialect;
  /** The adapter's target when it is not the dialect (okxswap). */
  readonly target?: FakeDialect | 'okxswap';
  /** Adapter settings over `ccxtVenueAt`'s. */
  readonly settings?: Record<string, string>;
  /** The loginServer `connect` uses unless told (sandbox). */
  readonly server?: string;
}

/** A describe block's ccxt venue at a fresh fake exchange per test; connections made through it are closed after the test. */
export interface CcxtSpecHarness {
  /** The current test's fake exchange. */
  readonly fake: FakeExchange;
  /** The adapter's venue at it. */
  readonly venue: RealVenue;
  /** The venue log's info lines and warnings (and errors), emptied before each test. */
  readonly infos: string[];
  readonly warnings: string[];
  /** Starts a fresh fake exchange in `dialect` (key-1 as `startedFakeExchange` holds it) and the venue at it. */
  readonly open: (dialect: FakeDialect, target?: FakeDialect | 'okxswap') => Promise<void>;
  /** Replaces the venue by one at the same fake with `settings` over the harness's (for the rest of the test). */
  readonly venueWith: (settings: Record<string, string>) => Promise<void>;
  /**
   * Replaces the venue by one that times a request out after 3 s and makes the fake answer the next
   * placement 30 s late (after it applied it): a timeout after the order reached the exchange, whatever the load.
   */
  readonly timeoutVenue: () => Promise<void>;
  /** A connection (not yet connected) of `login`, `password` (key-1's secret, OKX: with its passphrase) at `server`. */
  readonly connection: (login?: string, password?: string, server?: string) => CcxtConnection;
  /** The same, connected. */
  readonly connect: (login?: string, password?: string, server?: string) => Promise<CcxtConnection>;
}

/**
 * Registers the set-up every ccxt adapter spec shares in the calling describe block: ccxt loaded once
 * up front (a large package the adapter imports when a venue first connects, so its import time does
 * not count against the first test), a fake exchange and venue per test (`options.dialect`), and every
 * connection made through the harness disconnected and the fake stopped after each test.
 */
export const ccxtSpecHarness = (options: CcxtSpecOptions = {}): CcxtSpecHarness => {
  let fake: FakeExchange | null = null;
  let venue: RealVenue | null = null;
  let dialect: FakeDialect = options.dialect ?? 'binance';
  const infos: string[] = [];
  const warnings: string[] = [];
  const connections: CcxtConnection[] = [];
  const opened = <T>(value: T | null): T => {
    if (value === null) throw new Error('ccxtSpecHarness: no fake exchange open in this test (give a dialect or call open)');
    return value;
  };
  let target: FakeDialect | 'okxswap' = dialect;
  const open = async (to: FakeDialect, as: FakeDialect | 'okxswap' = to): Promise<void> => {
    [dialect, target] = [to, as];
    fake = await startedFakeExchange(to);
    venue = await ccxtVenueAt(fake, target, keptLog(infos, warnings), options.settings);
  };
  const venueWith = async (settings: Record<string, string>): Promise<void> => {
    venue = await ccxtVenueAt(opened(fake), target, keptLog(infos, warnings), { ...options.settings, ...settings });
  };
  const connection = (login = 'key-1', password = dialect === 'okx' ? 'secret-1:pass-1' : 'secret-1', server = options.server ?? 'sandbox') => {
    const made = opened(venue).connection({ login, password, server }) as CcxtConnection;
    connections.push(made);
    return made;
  };

  before(async function () {
    this.timeout(300_000);
    await import('ccxt');
  });
  beforeEach(async () => {
    infos.length = 0;
    warnings.length = 0;
    if (options.dialect) await open(options.dialect, options.target);
  });
  afterEach(async () => {
    for (const made of connections.splice(0)) await made.disconnect();
    await fake?.stop();
    fake = null;
    venue = null;
  });

  return {
    get fake() {
      return opened(fake);
    },
    get venue() {
      return opened(venue);
    },
    infos,
    warnings,
    open,
    venueWith,
    timeoutVenue: async () => {
      await venueWith({ CCXT_TIMEOUT_MS: '3000' });
      opened(fake).delayNextOrderAnswerMs = 30_000;
    },
    connection,
    connect: async (login, password, server) => {
      const made = connection(login, password, server);
      await made.connect();
      return made;
    },
  };
};
