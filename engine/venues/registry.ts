// Which venue each account type trades at (README "Real venues").
//
// The built-in simulated venue is the default of every account type. The operator routes account types
// to real adapters with one environment variable, read and checked at start with the rest of the
// configuration (app/config.ts):
//
//   ACCOUNT_TYPE_VENUES=11=ccxt:binance,12=ccxt:binanceusdm,13=ccxt:bybit,14=ccxt:okx
//
// Each entry is `<account type id>=<adapter>:<target>`; the adapter is one of engine/venues/adapters.ts
// (one line per adapter), the target is what the adapter connects to (for ccxt, the exchange id). An
// account type listed nowhere trades at the simulated venue. Every account type listed for one
// `<adapter>:<target>` shares one venue instance.
//
// Per account, a real venue reads its login from the account: `loginAccountNumber` (the login or API
// key), `loginAccountPassword` (password or secret, stored sealed and decrypted only to connect) and
// `loginServer`, which selects the venue's environment where it has more than one (for ccxt: `live`,
// `sandbox` or `demo`; each adapter documents its own values). An adapter reads its own settings from
// environment variables of its own prefix (CCXT_..., checked at start by its `config`).
import type { Kysely } from 'kysely';
import type { Venue } from './port.js';

export interface VenueRoute {
  readonly accountTypeId: number;
  readonly adapter: string;
  readonly target: string;
}

export interface VenueLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error: unknown): void;
}

/** What an adapter's venues are given. */
export interface VenueContext {
  readonly clock: () => Date;
  readonly log: VenueLog;
  /** The read models, for adapters that check credentials of the service's own (the MetaTrader bridge's EA tokens). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- read by table name
  readonly db?: Kysely<any>;
}

/** A real venue: the port's Venue, plus what it runs of its own (sockets, servers, timers) to stop. */
export interface RealVenue extends Venue {
  /** True: the venue is the platform itself (not the simulated stand-in); account information's isNative. */
  readonly native: boolean;
  stop(): Promise<void>;
  /**
   * Tells `listener` when a login became reachable without the service asking (a MetaTrader terminal
   * attached and its book was read): an Active account of that login without a session connects then,
   * so a terminal started after the account (or the service) needs no restart. The login is the
   * account's `<loginServer>/<loginAccountNumber>`. Answers the unsubscribe.
   */
  onReachable?(listener: (loginServer: string, loginAccountNumber: string) => void): () => void;
}

/** One kind of real venue (ccxt, a MetaTrader bridge, cTrader...). */
export interface VenueAdapter<C = unknown> {
  /** Reads and checks the adapter's own environment variables; throws an Error whose message says what is wrong. */
  config(env: NodeJS.ProcessEnv): C;
  /** Throws when `target` is not one this adapter serves (checked at start). */
  checkTarget(target: string): void;
  /** The venue for `target`. */
  venue(target: string, config: C, context: VenueContext): Promise<RealVenue>;
}

/** The routing as configured, each adapter's settings checked. */
export interface VenueRouting {
  readonly routes: readonly VenueRoute[];
  /** The settings of each adapter named in the routes. */
  readonly adapterConfigs: Readonly<Record<string, unknown>>;
}

export const NO_ROUTING: VenueRouting = { routes: [], adapterConfigs: {} };

/** Parses ACCOUNT_TYPE_VENUES against the known adapters; throws an Error with a clear message. */
export const parseVenueRouting = (
  value: string | undefined,
  env: NodeJS.ProcessEnv,
  adapters: Readonly<Record<string, VenueAdapter>>,
  isAccountType: (id: number) => boolean,
): VenueRouting => {
  const text = value?.trim() ?? '';
  if (text === '') return NO_ROUTING;
  const routes: VenueRoute[] = [];
  for (const entry of text.split(',').map((s) => s.trim())) {
    const match = /^(\d+)=([a-z0-9-]+):([A-Za-z0-9_.-]+)$/.exec(entry);
    if (!match) throw new Error(`ACCOUNT_TYPE_VENUES: "${entry}" is not <account type id>=<adapter>:<target> (e.g. 11=ccxt:binance)`);
    const [, id, adapterName, target] = match as unknown as [string, string, string, string];
    const accountTypeId = Number(id);
    if (!isAccountType(accountTypeId)) throw new Error(`ACCOUNT_TYPE_VENUES: ${accountTypeId} is not an account type id (GET /types/accountTypes)`);
    if (routes.some((r) => r.accountTypeId === accountTypeId)) throw new Error(`ACCOUNT_TYPE_VENUES: account type ${accountTypeId} is routed twice`);
    const adapter = adapters[adapterName];
    if (!adapter) throw new Error(`ACCOUNT_TYPE_VENUES: unknown adapter "${adapterName}" (known: ${Object.keys(adapters).join(', ')})`);
    try {
      adapter.checkTarget(target);
    } catch (error) {
      throw new Error(`ACCOUNT_TYPE_VENUES: ${error instanceof Error ? error.message : String(error)}`);
    }
    routes.push({ accountTypeId, adapter: adapterName, target });
  }
  const adapterConfigs: Record<string, unknown> = {};
  for (const name of new Set(routes.map((r) => r.adapter))) adapterConfigs[name] = adapters[name]!.config(env);
  return { routes, adapterConfigs };
};

/** The real venues of the routed account types, started from a routing. */
export class VenueRegistry {
  private constructor(private readonly byType: ReadonlyMap<number, RealVenue>) {}

  static async start(routing: VenueRouting, adapters: Readonly<Record<string, VenueAdapter>>, context: VenueContext): Promise<VenueRegistry> {
    const byKey = new Map<string, RealVenue>();
    const byType = new Map<number, RealVenue>();
    for (const route of routing.routes) {
      const key = `${route.adapter}:${route.target}`;
      let venue = byKey.get(key);
      if (!venue) {
        const adapter = adapters[route.adapter];
        if (!adapter) throw new Error(`unknown venue adapter ${route.adapter}`);
        venue = await adapter.venue(route.target, routing.adapterConfigs[route.adapter], context);
        byKey.set(key, venue);
      }
      byType.set(route.accountTypeId, venue);
    }
    return new VenueRegistry(byType);
  }

  static empty(): VenueRegistry {
    return new VenueRegistry(new Map());
  }

  /** Every real venue with the account types routed to it. */
  venues(): { venue: RealVenue; accountTypeIds: number[] }[] {
    const byVenue = new Map<RealVenue, number[]>();
    for (const [type, venue] of this.byType) byVenue.set(venue, [...(byVenue.get(venue) ?? []), type]);
    return [...byVenue].map(([venue, accountTypeIds]) => ({ venue, accountTypeIds }));
  }

  /** The real venue account type `accountTypeId` trades at; null: the simulated venue. */
  venueFor(accountTypeId: number): RealVenue | null {
    return this.byType.get(accountTypeId) ?? null;
  }

  async stop(): Promise<void> {
    for (const venue of new Set(this.byType.values())) await venue.stop();
  }
}
