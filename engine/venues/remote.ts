// The venue sessions of another instance (app/venueSessions.ts): with more than one instance of the
// service, one of them (the holder of the lease "venue-sessions") holds every account's venue session,
// the simulated venue and the recorder; the others reach those sessions over HTTP, on the holder's own
// listener under /internal/venue-sessions, authenticated by a token derived from the shared
// credentials key. A remote connection behaves as the local one: the same methods, the same answers,
// the same VenueError refusals; `subscribe` is the holder's alone (its recorder records every change).
import http from 'node:http';
import https from 'node:https';
import { DomainError, type DomainErrorKind } from '../../domain/shared/errors.js';
import type { SymbolInfo, VenueConnection } from './port.js';
import { VenueError, type VenueErrorCode } from './port.js';

/** The path of the holder's endpoint, outside the REST API's prefix. */
export const VENUE_SESSIONS_PATH = '/internal/venue-sessions';
/** The header that carries the instances' shared token. */
export const INSTANCE_TOKEN_HEADER = 'x-instance-token';

/** One call to the holder. */
export type VenueSessionsRequest =
  | {
      readonly op: 'call';
      readonly accountId: string;
      readonly method: RemoteMethod;
      /** JSON has no undefined: an absent argument travels as null and its index in `absent`. */
      readonly args: readonly unknown[];
      readonly absent?: readonly number[];
    }
  | { readonly op: 'connect'; readonly accountId: string }
  | { readonly op: 'disconnect'; readonly accountId: string; readonly reason: 'stopped' | 'deleted' | 'reconnect' }
  | { readonly op: 'recorded'; readonly accountId: string }
  | { readonly op: 'connected' }
  | { readonly op: 'symbols' };

/** The methods of a connection that travel. */
export const REMOTE_METHODS = [
  'accountInformation',
  'positions',
  'history',
  'placeOrder',
  'modifyPosition',
  'closePosition',
  'cancelOrder',
  'quote',
  'symbolInfo',
  'symbols',
  'marginRequired',
] as const;
export type RemoteMethod = (typeof REMOTE_METHODS)[number];

export type SerializedError =
  | { readonly type: 'venue'; readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> }
  | { readonly type: 'domain'; readonly kind: string; readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> }
  | { readonly type: 'error'; readonly message: string };

export type VenueSessionsAnswer = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: SerializedError };

export const serializeError = (error: unknown): SerializedError => {
  if (error instanceof VenueError) return { type: 'venue', code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  if (error instanceof DomainError)
    return { type: 'domain', kind: error.kind, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  return { type: 'error', message: error instanceof Error ? error.message : String(error) };
};

const deserializeError = (error: SerializedError): Error => {
  if (error.type === 'venue') return new VenueError(error.code as VenueErrorCode, error.message, error.details);
  if (error.type === 'domain') return new DomainError(error.kind as DomainErrorKind, error.code, error.message, error.details);
  return new Error(error.message);
};

/**
 * The holder cannot be reached, or is no longer the holder (the venue sessions are moving to another
 * instance): the caller tries again later. The API answers 503 [VENUE_SESSIONS_UNAVAILABLE] with
 * Retry-After (api/errors.ts reads `temporarilyUnavailable`).
 */
export class VenueSessionsUnavailable extends Error {
  readonly temporarilyUnavailable = true;
  readonly code = '[VENUE_SESSIONS_UNAVAILABLE]';
  readonly retryAfterSeconds = 1;
  constructor(message: string) {
    super(message);
    this.name = 'VenueSessionsUnavailable';
  }
}

/** The arguments of a call as they were given: the absent ones undefined again. */
export const callArguments = (request: { readonly args: readonly unknown[]; readonly absent?: readonly number[] }): unknown[] => {
  const args = [...request.args];
  for (const i of request.absent ?? []) args[i] = undefined;
  return args;
};

export interface RemoteVenueSessionsDeps {
  /** The holder's base URL now (null: none known). */
  readonly holderUrl: () => Promise<string | null>;
  /** The holder changed or cannot be reached: forget the cached URL. */
  readonly forgetHolder: () => void;
  readonly token: string;
  /** How long one call may take (default 30 s). */
  readonly timeoutMs?: number;
}

const agents = { http: new http.Agent({ keepAlive: true, maxSockets: 64 }), https: new https.Agent({ keepAlive: true, maxSockets: 64 }) };

/** The client side: calls to the holder, and connections that are such calls. */
export class RemoteVenueSessions {
  /** The accounts with a session at the holder, as it last said (refreshed by `refreshConnected`). */
  private connectedIds = new Set<string>();

  constructor(private readonly deps: RemoteVenueSessionsDeps) {}

  async call(request: VenueSessionsRequest): Promise<unknown> {
    const base = await this.deps.holderUrl();
    if (!base) throw new VenueSessionsUnavailable('no instance holds the venue sessions now');
    let answer: { status: number; body: string };
    try {
      answer = await post(`${base}${VENUE_SESSIONS_PATH}`, JSON.stringify(request), this.deps.token, this.deps.timeoutMs ?? 30_000);
    } catch (error) {
      this.deps.forgetHolder();
      throw new VenueSessionsUnavailable(
        `the instance holding the venue sessions (${base}) cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (answer.status !== 200) {
      this.deps.forgetHolder();
      throw new VenueSessionsUnavailable(`the instance at ${base} does not hold the venue sessions (${answer.status})`);
    }
    const parsed = JSON.parse(answer.body) as VenueSessionsAnswer;
    if (!parsed.ok) throw deserializeError(parsed.error);
    if (request.op === 'connect') this.connectedIds.add(request.accountId);
    if (request.op === 'disconnect') this.connectedIds.delete(request.accountId);
    return parsed.value;
  }

  /** The symbols of the built-in venue's catalogue, from the holder. */
  async symbols(): Promise<SymbolInfo[]> {
    return (await this.call({ op: 'symbols' })) as SymbolInfo[];
  }

  /** Asks the holder which accounts have a session (what `connection` answers from). */
  async refreshConnected(): Promise<void> {
    const ids = (await this.call({ op: 'connected' })) as string[];
    this.connectedIds = new Set(ids);
  }

  isConnected(accountId: string): boolean {
    return this.connectedIds.has(accountId);
  }

  /** The accounts with a session at the holder, as it last said. */
  connectedAccountIds(): string[] {
    return [...this.connectedIds];
  }

  /** A connection to the account's session at the holder, or null when it has none. */
  connection(accountId: string): VenueConnection | null {
    if (!this.connectedIds.has(accountId)) return null;
    const call = (method: RemoteMethod, ...args: unknown[]) =>
      this.call({
        op: 'call',
        accountId,
        method,
        args: args.map((arg) => (arg === undefined ? null : arg)),
        absent: args.flatMap((arg, i) => (arg === undefined ? [i] : [])),
      });
    const typed =
      <M extends RemoteMethod>(method: M) =>
      (...args: unknown[]) =>
        call(method, ...args) as ReturnType<VenueConnection[M]>;
    return {
      login: accountId,
      connect: async () => undefined,
      disconnect: async () => undefined,
      isConnected: () => this.connectedIds.has(accountId),
      accountInformation: typed('accountInformation'),
      positions: typed('positions'),
      history: typed('history'),
      placeOrder: typed('placeOrder'),
      modifyPosition: typed('modifyPosition'),
      closePosition: typed('closePosition'),
      cancelOrder: typed('cancelOrder'),
      quote: typed('quote'),
      symbolInfo: typed('symbolInfo'),
      symbols: typed('symbols'),
      marginRequired: typed('marginRequired'),
      subscribe: () => {
        throw new Error('venue changes are recorded by the instance holding the venue sessions');
      },
    };
  }
}

const post = (url: string, body: string, token: string, timeoutMs: number): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const request = (secure ? https : http).request(
      target,
      {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [INSTANCE_TOKEN_HEADER]: token },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', reject);
    request.end(body);
  });
