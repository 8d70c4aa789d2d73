// The link of a ccxt connection to its exchange (connection.ts): the ccxt client made from the
// account's credentials and mode with every URL moved to CCXT_BASE_URL when set, and the poll's
// schedule with its backoff and the connected state it gives.
import type { Exchange } from 'ccxt';
import type { CcxtLog, CcxtMarketSetup, CcxtMode, CcxtSettings } from './connection.js';

export type ExchangeClass = new (config: Record<string, unknown>) => Exchange;

/** Failed polls in a row after which the connection says it is disconnected. */
export const DISCONNECTED_AFTER = 3;
export const MAX_BACKOFF_MS = 60_000;

/** Moves every URL of a ccxt `urls` tree to `base` (keeps the paths). */
export const rebase = (tree: unknown, base: string): unknown => {
  if (typeof tree === 'string') {
    const ws = base.replace(/^http/, 'ws');
    return tree.replace(/^https?:\/\/[^/]+/, base).replace(/^wss?:\/\/[^/]+/, ws);
  }
  if (Array.isArray(tree)) return tree.map((t) => rebase(t, base));
  if (tree && typeof tree === 'object') return Object.fromEntries(Object.entries(tree).map(([k, v]) => [k, rebase(v, base)]));
  return tree;
};

/** The ccxt exchange class (and REST dialect) of a setup: its own id unless it names another (okxswap: okx). */
export const ccxtIdOf = (setup: Pick<CcxtMarketSetup, 'exchangeId' | 'ccxtId'>): string => setup.ccxtId ?? setup.exchangeId;

export const splitOnce = (value: string, separator: string): [string, string | undefined] => {
  const at = value.indexOf(separator);
  return at < 0 ? [value, undefined] : [value.slice(0, at), value.slice(at + separator.length)];
};

/** The ccxt client of an account (not yet asked anything). */
export const openExchange = (
  ExchangeType: ExchangeClass,
  setup: CcxtMarketSetup,
  credentials: { apiKey: string; secret: string; mode: CcxtMode },
  settings: CcxtSettings,
): Exchange => {
  const [secret, passphrase] = ccxtIdOf(setup) === 'okx' ? splitOnce(credentials.secret, ':') : [credentials.secret, undefined];
  const exchange = new ExchangeType({
    apiKey: credentials.apiKey,
    secret,
    ...(passphrase !== undefined ? { password: passphrase } : {}),
    enableRateLimit: true,
    timeout: settings.timeoutMs,
    options: { fetchMarkets: { types: [...setup.marketTypes] }, fetchMargins: false, fetchCurrencies: false, adjustForTimeDifference: false },
  });
  exchange.has.fetchCurrencies = false;
  if (credentials.mode === 'sandbox') exchange.setSandboxMode(true);
  // Demo trading where ccxt has demo URLs (Binance futures, Bybit); OKX's demo trading is what ccxt
  // calls its sandbox (the x-simulated-trading header).
  const urls = exchange.urls as unknown as Record<string, unknown>;
  if (credentials.mode === 'demo') {
    if (urls.demo !== undefined) exchange.enableDemoTrading(true);
    else exchange.setSandboxMode(true);
  }
  if (settings.baseUrl) {
    for (const key of ['api', 'test', 'demo'] as const) {
      if (urls[key] !== undefined) urls[key] = rebase(urls[key], settings.baseUrl);
    }
  }
  return exchange;
};

/**
 * The poll: every pollMs while the exchange answers (nextMs: slower while the order stream is live).
 * When it does not (network, outage, a key revoked), the next polls back off (pollMs doubled per
 * failure, at most a minute); after
 * DISCONNECTED_AFTER failures in a row the link says it is disconnected until a poll succeeds again.
 */
export class PollSchedule {
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  /** A poll is running now. */
  private polling = false;
  /** Polls failed in a row (0: the exchange answers). */
  failures = 0;
  /** Why the last poll failed, while polls fail (null: the exchange answers). */
  lastError: string | null = null;

  constructor(
    private readonly login: string,
    private readonly pollMs: number,
    private readonly log: CcxtLog,
    private readonly poll: () => Promise<void>,
    private readonly setConnected: (connected: boolean) => void,
    private readonly isConnected: () => boolean,
    /** The wait after a poll that succeeded (slower while the order stream is live, stream.ts). */
    private readonly nextMs: () => number = () => pollMs,
  ) {}

  start(): void {
    this.stopped = false;
    this.failures = 0;
    this.lastError = null;
    this.schedule(this.nextMs());
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The next poll at the current pace (nextMs) when none runs now: the order stream just went down. */
  reschedule(): void {
    if (this.stopped || this.polling || this.failures > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(this.nextMs());
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.polling = true;
      void this.poll()
        .finally(() => (this.polling = false))
        .then(
          () => {
            if (this.failures > 0) this.log.info(`${this.login}: the exchange answers again after ${this.failures} failed polls; connected`);
            this.failures = 0;
            this.lastError = null;
            if (!this.stopped) this.setConnected(true);
            this.schedule(this.nextMs());
          },
          (error: unknown) => {
            this.failures += 1;
            this.lastError = describe(error);
            if (this.failures === 1) this.log.warn(`${this.login}: polling the exchange failed (${describe(error)}); trying again with backoff`);
            if (this.failures === DISCONNECTED_AFTER && this.isConnected()) {
              this.setConnected(false);
              this.log.warn(`${this.login}: ${DISCONNECTED_AFTER} polls failed in a row (${describe(error)}); disconnected until the exchange answers again`);
            }
            this.schedule(Math.min(this.pollMs * 2 ** this.failures, MAX_BACKOFF_MS));
          },
        );
    }, delayMs);
    this.timer.unref();
  }
}

export const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
