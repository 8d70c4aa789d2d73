// The venues the service trades at, and what keeps the built-in simulated venue alive: its state is
// loaded at start, saved after every request before the request answers (an acknowledged trade
// survives a crash), and a ticker moves its clock every second so stops, pending orders, swaps and
// stop-outs happen without anyone asking.
//
// Every account type trades at the simulated venue until a real adapter is configured for it
// (ACCOUNT_TYPE_VENUES, engine/venues/registry.ts): then its accounts connect there with their own login.
// The simulated venue's login rule (documented in the OpenAPI text of actions/start):
//   - the venue login is `<loginServer>/<loginAccountNumber>`;
//   - the first connection to a login the venue does not know opens a demo account there with that
//     password: 10,000 in the account currency, leverage 1:100, netting when the server name contains
//     "netting" (case-insensitive), hedging otherwise; the account currency is the currency the server
//     name names ("Simulated-EUR-Demo": EUR; engine/venues/simulated/servers.ts), USD when it names none;
//   - every later connection must present the same password, or fails with [INVALID_CREDENTIALS].
import type { Kysely } from 'kysely';
import type {
  ClosedTrade,
  OrderRequest,
  PendingOrder,
  PlaceOrderResult,
  PositionChanges,
  Venue,
  VenueApplication,
  VenueConnection,
  VenueCredentials,
  VenuePosition,
} from './port.js';
import { type Clock, SimulatedVenue } from './simulated/simulatedVenue.js';
import { serverCurrency } from './simulated/servers.js';
import { HISTORY_KEPT } from './simulated/book.js';
import { SimulatedVenueStore } from './simulated/venueStore.js';
import { Recovery, type RecoveryLog } from '../../store/recovery.js';
import { VENUE_ADAPTERS } from './adapters.js';
import { timedConnection, VenueOrderTimings } from './latency.js';
import { NO_ROUTING, type RealVenue, type VenueAdapter, VenueRegistry, type VenueRouting } from './registry.js';

export const SIMULATED_VENUE_NAME = 'Simulated';
export const DEMO_BALANCE = 10_000;
export const DEMO_LEVERAGE = 100;
const TICK_MS = 1000;

export type VenueHostLog = RecoveryLog;

export interface VenueHostOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the venue's tables are not read models
  readonly db: Kysely<any>;
  readonly clock: () => Date;
  readonly log: VenueHostLog;
  /** Seed of the simulated price paths on first start; later starts continue the saved ones. */
  readonly seed?: string;
  /** Default true; specs that drive the clock by hand turn the ticker off. */
  readonly ticker?: boolean;
  /** Which account types trade at a real venue (ACCOUNT_TYPE_VENUES); default none: all at the simulated venue. */
  readonly routing?: VenueRouting;
  /** Default engine/venues/adapters.ts (specs may pass their own). */
  readonly adapters?: Readonly<Record<string, VenueAdapter>>;
  /** Where this host's order round trips are told; default its own. The venue sessions pass theirs, which outlives a host. */
  readonly orderTimings?: VenueOrderTimings;
}

/** What an account connects with. */
export interface AccountLogin {
  readonly accountTypeId: number;
  readonly loginServer: string;
  readonly loginAccountNumber: string;
  readonly password: string;
  /** A real venue's renewed credentials, to store (VenueCredentials.onRenewed). */
  readonly onRenewed?: (password: string) => Promise<void>;
  /** The brand's application (VenueCredentials.application). */
  readonly application?: VenueApplication;
}

/** Requests for one save: resolved once it is written. */
interface SaveBatch {
  readonly done: Promise<void>;
  readonly resolve: () => void;
}

export const simulatedLogin = (login: Pick<AccountLogin, 'loginServer' | 'loginAccountNumber'>): string => `${login.loginServer}/${login.loginAccountNumber}`;

export class VenueHost {
  /** The requests since the last save took its journal: the next save serves them all. */
  private batch: SaveBatch | null = null;
  /** The save under way, or about to start: null while none is. */
  private saving: Promise<void> | null = null;
  private readonly saveFailures: Recovery;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The order round trips of this host's connections (the service's /metrics listens, through the venue sessions). */
  readonly orderTimings: VenueOrderTimings;

  private constructor(
    readonly simulated: SimulatedVenue,
    private readonly store: SimulatedVenueStore,
    private readonly log: VenueHostLog,
    private readonly registry: VenueRegistry,
    orderTimings: VenueOrderTimings | undefined,
  ) {
    this.orderTimings = orderTimings ?? new VenueOrderTimings();
    this.saveFailures = new Recovery('saving the simulated venue', log, { action: 'saves again' });
  }

  static async start(options: VenueHostOptions): Promise<VenueHost> {
    await SimulatedVenueStore.migrate(options.db);
    const store = new SimulatedVenueStore(options.db);
    const clock: Clock = { now: () => options.clock().getTime() };
    const onListenerError = (error: unknown) => options.log.error('a venue change listener failed', error);
    // Only each account's last history entries stay in memory; the older ones are read from the store.
    const history = { kept: HISTORY_KEPT, older: (login: string, before: number) => store.olderHistory(SIMULATED_VENUE_NAME, login, before) };
    const saved = await store.load(SIMULATED_VENUE_NAME, HISTORY_KEPT);
    const simulated = saved
      ? SimulatedVenue.restore(saved, { clock, onListenerError, history })
      : SimulatedVenue.create({ clock, seed: options.seed ?? 'copy-trading-service', name: SIMULATED_VENUE_NAME, onListenerError, history });
    const registry = await VenueRegistry.start(options.routing ?? NO_ROUTING, options.adapters ?? VENUE_ADAPTERS, {
      clock: options.clock,
      log: options.log,
      db: options.db,
    });
    const host = new VenueHost(simulated, store, options.log, registry, options.orderTimings);
    if (!saved) await host.persist();
    if (options.ticker !== false) {
      const ticks = new Recovery('the simulated venue ticker', options.log, { action: 'ticks again every second' });
      host.timer = setInterval(() => {
        host
          .desk((venue) => venue.tick())
          .then(
            () => ticks.succeeded(),
            (error: unknown) => void ticks.noted(error),
          );
      }, TICK_MS);
      host.timer.unref();
    }
    return host;
  }

  /** The venue an account type trades at: its real venue when one is configured, else the simulated one. */
  venueFor(accountTypeId: number): Venue {
    return this.realVenueFor(accountTypeId) ?? this.simulatedVenue();
  }

  /**
   * Hears when a real venue says a login became reachable on its own (RealVenue.onReachable), with the
   * account types routed there. Answers the unsubscribe.
   */
  onReachable(listener: (accountTypeIds: readonly number[], loginServer: string, loginAccountNumber: string) => void): () => void {
    const stops = this.registry
      .venues()
      .map(({ venue, accountTypeIds }) => venue.onReachable?.((server, number) => listener(accountTypeIds, server, number)) ?? (() => undefined));
    return () => stops.forEach((stop) => stop());
  }

  /** The real venue an account type is routed to; null: it trades at the simulated venue. */
  realVenueFor(accountTypeId: number): RealVenue | null {
    return this.registry.venueFor(accountTypeId);
  }

  /** The simulated venue, whose every request answers once the state it produced is saved. */
  simulatedVenue(): Venue {
    return { name: this.simulated.name, connection: (credentials) => this.durable(this.simulated.connection(credentials)) };
  }

  /**
   * A connection for an account's login: at its account type's real venue with the account's own login
   * (loginAccountNumber, password, loginServer), or under the simulated venue's rule above (a first
   * login opens the demo account when it connects).
   */
  async connectionFor(login: AccountLogin): Promise<VenueConnection> {
    const real = this.realVenueFor(login.accountTypeId);
    if (real)
      return timedConnection(
        real.connection({
          login: login.loginAccountNumber,
          password: login.password,
          server: login.loginServer,
          ...(login.onRenewed ? { onRenewed: login.onRenewed } : {}),
          ...(login.application ? { application: login.application } : {}),
        }),
        real.name,
        this.orderTimings,
      );
    // The demo account is opened by the connect itself (one password hash, one save), when the login is new.
    const credentials: VenueCredentials = { login: simulatedLogin(login), password: login.password };
    const currency = serverCurrency(login.loginServer, this.simulated.accountCurrencies());
    const opening = {
      balance: DEMO_BALANCE,
      leverage: DEMO_LEVERAGE,
      marginMode: /netting/i.test(login.loginServer) ? 'netting' : 'hedging',
      ...(currency ? { currency } : {}),
    } as const;
    return timedConnection(this.durable(this.simulated.connection(credentials, opening)), 'simulated', this.orderTimings);
  }

  /** Works on the simulated dealer's desk (quotes, deposits, the clock) and saves what changed. */
  async desk<T>(work: (venue: SimulatedVenue) => T): Promise<T> {
    try {
      return work(this.simulated);
    } finally {
      await this.persist();
    }
  }

  /**
   * Resolves once everything the venue did before this call is saved. The save starts once the work
   * under way has run (setImmediate), not inside the call: a venue change asks for its save while the
   * venue delivers it, before its listeners hear it (AccountConnections), and a fan-out places its slave
   * orders in one run of the event loop; the journal is taken when the save starts and holds all that.
   * Every call until then shares one save and one promise.
   */
  persist(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    let resolve!: () => void;
    this.batch ??= { done: new Promise<void>((r) => (resolve = r)), resolve };
    this.saving ??= new Promise<void>((started) => setImmediate(started)).then(() => this.saveLoop());
    return this.batch.done;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.saving;
    this.stopped = true;
    await this.registry.stop();
  }

  /** One save at a time; requests that arrive meanwhile share the next one. */
  private async saveLoop(): Promise<void> {
    for (let batch = this.batch; batch; batch = this.batch) {
      this.batch = null;
      const served = [batch];
      for (;;) {
        const journal = this.simulated.journal();
        try {
          await this.store.save(this.simulated.name, this.simulated.catalogue(), journal);
          this.simulated.markSaved(journal);
          break;
        } catch (error) {
          await this.saveFailures.failed(error);
          // The journal taken again holds what was asked for meanwhile too.
          if (this.batch) served.push(this.batch);
          this.batch = null;
        }
      }
      this.saveFailures.succeeded();
      for (const done of served) done.resolve();
    }
    this.saving = null;
  }

  /**
   * Every request that changes the book answers only after the venue state it produced is saved.
   * Reads do not wait: what their catching up changed is saved by the ticker within a second, and
   * the recorder saves before it records any change.
   */
  private durable(inner: VenueConnection): VenueConnection {
    const saved = async <T>(work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } finally {
        await this.persist();
      }
    };
    return {
      login: inner.login,
      connect: () => saved(() => inner.connect()),
      disconnect: () => inner.disconnect(),
      isConnected: () => inner.isConnected(),
      accountInformation: () => inner.accountInformation(),
      positions: () => inner.positions(),
      history: (from, to) => inner.history(from, to),
      placeOrder: (request: OrderRequest, clientOrderId: string): Promise<PlaceOrderResult> => saved(() => inner.placeOrder(request, clientOrderId)),
      modifyPosition: (id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> =>
        saved(() => inner.modifyPosition(id, changes, clientRequestId)),
      closePosition: (id: string, volume?: number, clientRequestId?: string): Promise<ClosedTrade> =>
        saved(() => inner.closePosition(id, volume, clientRequestId)),
      cancelOrder: (id: string, clientRequestId?: string): Promise<PendingOrder> => saved(() => inner.cancelOrder(id, clientRequestId)),
      quote: (symbol) => inner.quote(symbol),
      symbolInfo: (symbol) => inner.symbolInfo(symbol),
      symbols: () => inner.symbols(),
      marginRequired: (symbol, side, volume) => inner.marginRequired(symbol, side, volume),
      subscribe: (listener) => inner.subscribe(listener),
    };
  }
}
