// The cTrader adapter (ACCOUNT_TYPE_VENUES=4=ctrader:openapi; 4 is the reference's cTrader account type):
// cTrader accounts through Spotware's Open API, JSON over WebSocket (connection.ts, protocol.ts). The
// one target is `openapi`. Settings (checked at start, README "cTrader"):
//   CTRADER_CLIENT_ID, CTRADER_CLIENT_SECRET  the operator's Open API application (both or neither). An
//     account's own (its ctraderClientId/Secret) beats its brand's (its white label's), which beats this
//     one (engine/venues/applications.ts); an account with none of the three is refused at start with
//     [INVALID_CREDENTIALS] (NO_APPLICATION), the service runs on
//   CTRADER_LIVE_URL         wss://live.ctraderapi.com:5036 (the JSON endpoint of live accounts)
//   CTRADER_DEMO_URL         wss://demo.ctraderapi.com:5036
//   CTRADER_REQUEST_TIMEOUT_MS  10000; one request's timeout (a placement that times out is looked up by its client order id)
//   CTRADER_HEARTBEAT_MS     10000; heartbeat period (a link silent for three is dropped and reopened)
//   CTRADER_RECONNECT_MAX_MS 30000; the longest wait between two reconnect attempts
//   CTRADER_TOKEN_RENEW_BEFORE_MS 86400000; an access token of known expiry is renewed this long before it
// Per account: loginAccountNumber = the cTrader account's number (traderLogin) or its ctidTraderAccountId,
// loginAccountPassword = the access token (`token` or the reference's `token|refreshToken`; token.ts),
// sealed as every password, and replaced by the renewed pair whenever the adapter renews it; loginServer = live or demo (or the reference's host form live.ctraderapi.com:5035 /
// demo.ctraderapi.com:5035: the host picks the environment; the adapter speaks JSON on 5036).
import type { RealVenue, VenueAdapter, VenueContext } from '../registry.js';
import { VenueError } from '../port.js';
import { type CTraderEnvironment, CTraderConnection, type CTraderSettings } from './connection.js';
import { NO_APPLICATION } from './link.js';
import { tokensOf } from './token.js';

export const CTRADER_TARGETS = ['openapi'] as const;

const integer = (name: string, value: string | undefined, fallback: number, min: number, max: number): number => {
  if (value === undefined || value.trim() === '') return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return Number(value);
};

const wsUrl = (name: string, value: string | undefined, fallback: string): string => {
  const url = value?.trim() || fallback;
  if (!/^wss?:\/\/[^/\s]+(\/\S*)?$/.test(url)) throw new Error(`${name} must be a ws:// or wss:// URL, got "${value}"`);
  return url;
};

/** The environment a loginServer names: live/demo, or a host of the reference's form; null: neither. */
export const environmentOf = (server: string | undefined): CTraderEnvironment | null => {
  const text = (server ?? '').trim().toLowerCase();
  if (text === 'live' || /^live\.ctraderapi\.com(:\d+)?$/.test(text)) return 'live';
  if (text === 'demo' || /^demo\.ctraderapi\.com(:\d+)?$/.test(text)) return 'demo';
  return null;
};

export const ctraderAdapter: VenueAdapter<CTraderSettings> = {
  config: (env) => {
    const clientId = env.CTRADER_CLIENT_ID?.trim() ?? '';
    const clientSecret = env.CTRADER_CLIENT_SECRET?.trim() ?? '';
    if (!clientId !== !clientSecret)
      throw new Error('ctrader: CTRADER_CLIENT_ID and CTRADER_CLIENT_SECRET (the Open API application) go together: set both or neither');
    return {
      application: clientId ? { clientId, clientSecret } : null,
      liveUrl: wsUrl('CTRADER_LIVE_URL', env.CTRADER_LIVE_URL, 'wss://live.ctraderapi.com:5036'),
      demoUrl: wsUrl('CTRADER_DEMO_URL', env.CTRADER_DEMO_URL, 'wss://demo.ctraderapi.com:5036'),
      requestTimeoutMs: integer('CTRADER_REQUEST_TIMEOUT_MS', env.CTRADER_REQUEST_TIMEOUT_MS, 10_000, 100, 120_000),
      heartbeatMs: integer('CTRADER_HEARTBEAT_MS', env.CTRADER_HEARTBEAT_MS, 10_000, 100, 60_000),
      reconnectMaxMs: integer('CTRADER_RECONNECT_MAX_MS', env.CTRADER_RECONNECT_MAX_MS, 30_000, 500, 600_000),
      tokenRenewBeforeMs: integer('CTRADER_TOKEN_RENEW_BEFORE_MS', env.CTRADER_TOKEN_RENEW_BEFORE_MS, 86_400_000, 1000, 2_592_000_000),
    };
  },
  checkTarget: (target) => {
    if (!(CTRADER_TARGETS as readonly string[]).includes(target)) throw new Error(`ctrader: the target is ${CTRADER_TARGETS.join(', ')}, got "${target}"`);
  },
  venue: (target, settings, context: VenueContext): Promise<RealVenue> => {
    const venue: RealVenue = {
      name: `ctrader:${target}`,
      native: true,
      connection: (credentials) => {
        const environment = environmentOf(credentials.server);
        const tokens = tokensOf(credentials.password);
        const connection = new CTraderConnection(
          {
            login: credentials.login,
            tokens,
            environment: environment ?? 'demo',
            ...(credentials.onRenewed ? { onRenewed: credentials.onRenewed } : {}),
            ...(credentials.application ? { application: credentials.application } : {}),
          },
          settings,
          context.log,
          context.clock,
        );
        // No application, an unknown environment or an empty token is refused at connect, as a wrong token
        // is; nothing is sent.
        if (!credentials.application && !settings.application) {
          connection.connect = () => Promise.reject(new VenueError('[INVALID_CREDENTIALS]', NO_APPLICATION));
        } else if (!environment) {
          connection.connect = () =>
            Promise.reject(new VenueError('[INVALID_CREDENTIALS]', `loginServer must be live or demo for cTrader, got "${credentials.server ?? ''}"`));
        } else if (!tokens.accessToken || !/^\d+$/.test(credentials.login.trim())) {
          connection.connect = () =>
            Promise.reject(
              new VenueError('[INVALID_CREDENTIALS]', 'cTrader needs the account number in loginAccountNumber and its access token in loginAccountPassword'),
            );
        }
        return connection;
      },
      stop: () => Promise.resolve(),
    };
    return Promise.resolve(venue);
  },
};
