// The MetaTrader bridge as a venue adapter (engine/venues/registry.ts): route the MT4 and MT5 account
// types to it with ACCOUNT_TYPE_VENUES=1=mtbridge:8765,2=mtbridge:8765 (the target is the port the
// bridge listens on; both types share the one listener). Its settings (README "MetaTrader bridge"):
//   MT_BRIDGE_HOST             listen address, default 0.0.0.0
//   MT_BRIDGE_TLS_CERT_FILE,   PEM files: the bridge speaks wss:// (both or neither)
//   MT_BRIDGE_TLS_KEY_FILE
//   MT_BRIDGE_ATTACH_TIMEOUT_MS   how long starting an account waits for the book of a terminal that just attached, default 30000
//   MT_BRIDGE_REQUEST_TIMEOUT_MS  how long a request waits for the terminal before it is sent again, default 10000
// An EA authenticates with an account-level API key of the account it trades for (POST /apiKeys with
// level ACCOUNT): live (neither revoked nor expired), of an account not deleted, whose loginAccountNumber
// is the terminal's login.
import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { hashApiKey } from '../../../domain/apiKey/secret.js';
import { keyWithLastUse } from '../../../projections/apiKeys/queries.js';
import type { RealVenue, VenueAdapter, VenueContext } from '../registry.js';
import { MtBridgeServer, type Authentication } from './server.js';
import { MtBridgeVenue } from './venue.js';

export interface MtBridgeConfig {
  readonly host: string;
  readonly tls: { readonly cert: string; readonly key: string } | null;
  readonly attachTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

const integer = (name: string, value: string | undefined, fallback: number, min: number, max: number): number => {
  if (value === undefined || value.trim() === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the adapter reads two read models by name
type ReadModelsByName = Kysely<any>;

/** Checks an EA's token against the account-level API keys and the accounts read model. */
export const accountTokenAuthenticator =
  (db: ReadModelsByName, clock: () => Date) =>
  async (token: string): Promise<Authentication> => {
    // The key as the HTTP API reads it (with its customer's block: a blocked customer's keys are suspended, not revoked).
    const key = await keyWithLastUse(db, hashApiKey(token));
    if (!key) return { ok: false, message: 'the API key is unknown' };
    if (key.level !== 'ACCOUNT' || !key.account_id)
      return { ok: false, message: 'the bridge takes an account-level API key (of the account the terminal trades for)' };
    if (key.revoked_at) return { ok: false, message: 'the API key was revoked' };
    if (key.expires_at && new Date(key.expires_at) <= clock()) return { ok: false, message: 'the API key has expired' };
    if (key.customer_blocked) return { ok: false, message: "the customer who owns the key's project is blocked" };
    const account: { id: string; login_server: string; login_account_number: string; deleted: Date | string | null } | undefined = await db
      .selectFrom('accounts')
      .select(['id', 'login_server', 'login_account_number', 'deleted'])
      .where('id', '=', key.account_id)
      .executeTakeFirst();
    if (!account || account.deleted) return { ok: false, message: "the API key's account does not exist" };
    return { ok: true, account: { accountId: account.id, loginServer: account.login_server, loginAccountNumber: account.login_account_number } };
  };

/** The bridge venue, with what it runs (its listener) to stop. */
export class MtBridgeRealVenue extends MtBridgeVenue implements RealVenue {
  readonly native = true;
  constructor(
    server: MtBridgeServer,
    readonly port: number,
  ) {
    super(server);
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  /** A terminal attached and its book was read: the ledger key is `<loginServer>/<loginAccountNumber>` (venue.ts). */
  onReachable(listener: (loginServer: string, loginAccountNumber: string) => void): () => void {
    return this.server.onReached((key) => {
      const at = key.lastIndexOf('/');
      listener(at < 0 ? '' : key.slice(0, at), at < 0 ? key : key.slice(at + 1));
    });
  }
}

export const mtBridgeAdapter: VenueAdapter<MtBridgeConfig> = {
  config(env) {
    const certFile = env.MT_BRIDGE_TLS_CERT_FILE?.trim() || null;
    const keyFile = env.MT_BRIDGE_TLS_KEY_FILE?.trim() || null;
    if (Boolean(certFile) !== Boolean(keyFile)) throw new Error('MT_BRIDGE_TLS_CERT_FILE and MT_BRIDGE_TLS_KEY_FILE go together');
    let tls: MtBridgeConfig['tls'] = null;
    if (certFile && keyFile) {
      try {
        tls = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
      } catch (error) {
        throw new Error(`MT_BRIDGE_TLS_*_FILE: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return {
      host: env.MT_BRIDGE_HOST?.trim() || '0.0.0.0',
      tls,
      attachTimeoutMs: integer('MT_BRIDGE_ATTACH_TIMEOUT_MS', env.MT_BRIDGE_ATTACH_TIMEOUT_MS, 30_000, 100, 600_000),
      requestTimeoutMs: integer('MT_BRIDGE_REQUEST_TIMEOUT_MS', env.MT_BRIDGE_REQUEST_TIMEOUT_MS, 10_000, 50, 120_000),
    };
  },
  checkTarget(target) {
    const port = Number(target);
    if (!/^\d+$/.test(target) || port > 65535)
      throw new Error(`mtbridge: the target is the port the bridge listens on (0 to 65535; 0 picks a free one), got "${target}"`);
  },
  async venue(target, config, context: VenueContext) {
    if (!context.db) throw new Error('mtbridge: the venue needs the read models to check the EA tokens');
    const server = new MtBridgeServer({
      authenticate: accountTokenAuthenticator(context.db, context.clock),
      log: context.log,
      clock: context.clock,
      attachTimeoutMs: config.attachTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
    });
    const port = await server.listen(Number(target), config.host, config.tls);
    context.log.info(`MetaTrader bridge listening on ${config.tls ? 'wss' : 'ws'}://${config.host}:${port}`);
    return new MtBridgeRealVenue(server, port);
  },
};
