// The ccxt adapter (ACCOUNT_TYPE_VENUES=<type>=ccxt:<target>): crypto exchanges through ccxt, one
// venue per target (CCXT_TARGETS: a ccxt exchange id, or a name of ours for one market type of it,
// okxswap for OKX's swaps). Settings (checked at start):
//   CCXT_BASE_URL     unset; an http(s) origin every REST and WebSocket URL of the exchanges is moved to
//                     (a local fake exchange in the tests, a forwarding proxy in a closed network)
//   CCXT_POLL_MS      2000; how often each account's orders are read for changes (fills, closes, cancels)
//   CCXT_TIMEOUT_MS   10000; one request's timeout (a placement that times out is looked up by its client id)
//   CCXT_STREAM       on; `off`: no private order stream (stream.ts), every exchange polled only
//   CCXT_STREAM_POLL_MS 30000; how often the orders are read while the order stream is live (the reconciliation)
// ccxt itself is loaded only when a type is routed to it.
import type { Exchange } from 'ccxt';
import type { RealVenue, VenueAdapter, VenueContext } from '../registry.js';
import { type CcxtMarketSetup, type CcxtMode, CcxtConnection, type CcxtSettings } from './connection.js';
import { VenueError } from '../port.js';
import { ccxtIdOf } from './link.js';

/** The exchanges this adapter serves, each verified against test/support/fakeExchange.ts in its dialect. */
export const CCXT_TARGETS: Readonly<Record<string, Omit<CcxtMarketSetup, 'exchangeId'>>> = {
  binance: { marketTypes: ['spot'], currency: 'USDT' },
  binanceusdm: { marketTypes: ['linear'], currency: 'USDT' },
  bybit: { marketTypes: ['linear'], currency: 'USDT', lookUpByList: true, feesOnOrders: true },
  okx: { marketTypes: ['spot'], currency: 'USDT', feesOnOrders: true },
  // OKX's USDT-margined perpetual swaps through ccxt's okx class: cross margin (ccxt's default tdMode), net
  // positions, one lot is one contract of ctVal coins (BTC-USDT-SWAP: 0.01 BTC); the balance OKX gives is its equity.
  okxswap: { ccxtId: 'okx', marketTypes: ['swap'], currency: 'USDT', feesOnOrders: true, balanceIsEquity: true },
};

const MODES: Readonly<Record<string, CcxtMode>> = { live: 'live', sandbox: 'sandbox', testnet: 'sandbox', demo: 'demo' };

const integer = (name: string, value: string | undefined, fallback: number, min: number, max: number): number => {
  if (value === undefined || value.trim() === '') return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return Number(value);
};

const onOff = (name: string, value: string | undefined): boolean => {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'on' || v === 'true') return true;
  if (v === 'off' || v === 'false') return false;
  throw new Error(`${name} must be on or off, got "${value}"`);
};

export const ccxtAdapter: VenueAdapter<CcxtSettings> = {
  config: (env) => {
    const baseUrl = env.CCXT_BASE_URL?.trim() ? env.CCXT_BASE_URL.trim().replace(/\/+$/, '') : null;
    if (baseUrl && !/^https?:\/\/[^/]+$/.test(baseUrl)) throw new Error(`CCXT_BASE_URL must be http(s)://host[:port], got "${env.CCXT_BASE_URL}"`);
    return {
      baseUrl,
      pollMs: integer('CCXT_POLL_MS', env.CCXT_POLL_MS, 2000, 100, 600_000),
      timeoutMs: integer('CCXT_TIMEOUT_MS', env.CCXT_TIMEOUT_MS, 10_000, 100, 120_000),
      stream: onOff('CCXT_STREAM', env.CCXT_STREAM),
      streamPollMs: integer('CCXT_STREAM_POLL_MS', env.CCXT_STREAM_POLL_MS, 30_000, 100, 3_600_000),
    };
  },
  checkTarget: (target) => {
    if (!CCXT_TARGETS[target]) throw new Error(`ccxt: "${target}" is not one of ${Object.keys(CCXT_TARGETS).join(', ')}`);
  },
  venue: (target, settings, context: VenueContext): Promise<RealVenue> => {
    const setup: CcxtMarketSetup = { exchangeId: target, ...CCXT_TARGETS[target]! };
    const load = async () => {
      const ccxt = (await import('ccxt')) as unknown as Record<string, new (config: Record<string, unknown>) => Exchange>;
      const type = ccxt[ccxtIdOf(setup)];
      if (!type) throw new Error(`ccxt has no exchange ${ccxtIdOf(setup)}`);
      return type;
    };
    const venue: RealVenue = {
      name: `ccxt:${target}`,
      native: true,
      connection: (credentials) => {
        const server = (credentials.server ?? '').trim().toLowerCase();
        const mode = MODES[server] ?? null;
        const connection = new CcxtConnection(
          load,
          setup,
          { apiKey: credentials.login, secret: credentials.password, mode: mode ?? 'live' },
          settings,
          context.log,
          context.clock,
        );
        if (mode) return connection;
        // An unknown environment is refused at connect, as a wrong key is; nothing is sent to the exchange.
        connection.connect = () =>
          Promise.reject(
            new VenueError('[INVALID_CREDENTIALS]', `loginServer must be live, sandbox (testnet) or demo for ${target}, got "${credentials.server ?? ''}"`),
          );
        return connection;
      },
      stop: () => Promise.resolve(),
    };
    return Promise.resolve(venue);
  },
};
