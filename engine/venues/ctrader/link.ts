// The link of one cTrader account (connection.ts): the WebSocket to the Open API's JSON endpoint, its
// heartbeat, its reconnect with backoff, and requests matched to their answers by clientMsgId. What a
// session does once the link is open (authenticate, read the account and its book) and what the
// account makes of the events it hears are the subclass's (account.ts).
//
// - A heartbeat (ProtoHeartbeatEvent) goes out every CTRADER_HEARTBEAT_MS, with a WebSocket ping; a
//   link silent for three of them is dropped.
// - A dropped link is reopened with backoff (0.5 s doubling to CTRADER_RECONNECT_MAX_MS); meanwhile the
//   account says it is disconnected (`connected: false`, statusMessage with the last error, logs).
// - A request waits for the frame with its clientMsgId; ProtoOAErrorRes, ProtoOAOrderErrorEvent and a
//   rejected order fail it (CTraderFailure), no answer in CTRADER_REQUEST_TIMEOUT_MS or a link closed
//   first fail it with a CTraderTimeout (it may or may not have run).
import { createHash } from 'node:crypto';
import WebSocket from 'ws';
import type { TokenPair } from './token.js';
import type { VenueErrorCode } from '../port.js';
import { VenueError } from '../port.js';
import {
  ERROR_CODES,
  EXECUTION,
  type Frame,
  parseFrame,
  PT,
  type ProtoOAErrorRes,
  type ProtoOAExecutionEvent,
  type ProtoOAOrderErrorEvent,
  TRANSIENT_CODES,
} from './protocol.js';

export type CTraderEnvironment = 'live' | 'demo';

/** An Open API application (OAuth client). */
export interface CTraderApplication {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Why an account with no application of its own, none of its brand's and none configured is refused. */
export const NO_APPLICATION =
  'no cTrader Open API application for this account: set ctraderClientId and ctraderClientSecret on the account or in its brand’s white label, or CTRADER_CLIENT_ID and CTRADER_CLIENT_SECRET for the service';

export interface CTraderSettings {
  /** The operator's application (CTRADER_CLIENT_ID / _SECRET); null: none, every account needs its own or its brand's. */
  readonly application: CTraderApplication | null;
  /** The JSON endpoints (wss://live.ctraderapi.com:5036, wss://demo.ctraderapi.com:5036). */
  readonly liveUrl: string;
  readonly demoUrl: string;
  readonly requestTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly reconnectMaxMs: number;
  /** Renew an access token whose expiry is known this long before it (CTRADER_TOKEN_RENEW_BEFORE_MS). */
  readonly tokenRenewBeforeMs: number;
}

export interface CTraderLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface CTraderLogin {
  /** traderLogin or ctidTraderAccountId. */
  readonly login: string;
  /** The token pair as the account's password holds it (token.ts). */
  readonly tokens: TokenPair;
  readonly environment: CTraderEnvironment;
  /** The account's own or its brand's Open API application (VenueCredentials.application); unset: CTRADER_CLIENT_ID / _SECRET. */
  readonly application?: CTraderApplication;
  /** Stores a renewed pair as the account's password (VenueCredentials.onRenewed); unset: kept in memory only. */
  readonly onRenewed?: (password: string) => Promise<void>;
}

export const FIRST_BACKOFF_MS = 500;

/** A refusal or failure the endpoint answered (ProtoOAErrorRes, ProtoOAOrderErrorEvent, a rejected order). */
export class CTraderFailure extends Error {
  constructor(
    readonly errorCode: string,
    description: string,
  ) {
    super(`${errorCode}${description ? `: ${description}` : ''}`);
    this.name = 'CTraderFailure';
  }
}

/** No answer in time, or the link closed before the answer: the request may or may not have run. */
export class CTraderTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CTraderTimeout';
  }
}

/** True: try again later (after looking up what may have run). */
export const isTransient = (error: unknown): boolean =>
  error instanceof CTraderTimeout || (error instanceof CTraderFailure && (TRANSIENT_CODES.has(error.errorCode) || !ERROR_CODES[error.errorCode]));

/** The VenueError of a refusal; a transient failure comes back as it is. */
export const venueErrorOf = (error: unknown): unknown => {
  if (!(error instanceof CTraderFailure)) return error;
  const code = ERROR_CODES[error.errorCode];
  if (!code || TRANSIENT_CODES.has(error.errorCode)) return error;
  return new VenueError(code as VenueErrorCode, `cTrader refused: ${error.message}`);
};

/** The cTrader clientOrderId of an engine id: the id itself up to 50 characters, else a digest. */
export const ctraderClientOrderId = (id: string): string =>
  id.length <= 50 && /^[\x20-\x7e]+$/.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 40);

export const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

interface Waiter {
  readonly accept: (frame: Frame) => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export abstract class CTraderLink {
  readonly login: string;
  /** What the link is doing, with its last error: account information and AccountDTO.statusMessage. */
  statusMessage = 'not connected';
  protected socket: WebSocket | null = null;
  protected connected = false;
  /** disconnect() was called (or connect() never succeeded): no reconnects. */
  protected closed = true;
  private readonly waiters = new Map<string, Waiter>();
  private messageCounter = 0;
  private heartbeat: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private lastHeard = 0;

  constructor(
    protected readonly account: CTraderLogin,
    protected readonly settings: CTraderSettings,
    protected readonly log: CTraderLog,
    protected readonly clock: () => Date,
  ) {
    this.login = account.login;
  }

  get environment(): CTraderEnvironment {
    return this.account.environment;
  }

  /** Authenticates on a link just opened and reads what the account needs (`first`: the first session of connect()). */
  protected abstract session(first: boolean): Promise<void>;
  /** A frame heard on the link, after the request it answers (if any) was served. */
  protected abstract onEvent(frame: Frame): void;
  /** Resolves once the work under way on the link (reading the book) is done, before disconnecting. */
  protected abstract settle(): Promise<void>;

  async connect(): Promise<void> {
    if (this.connected) return;
    this.closed = false;
    try {
      await this.open();
      await this.session(true);
    } catch (error) {
      this.closed = true;
      this.drop();
      this.statusMessage = `not connected: ${describe(error)}`;
      throw venueErrorOf(error);
    }
    this.connected = true;
    this.statusMessage = 'connected';
  }

  async disconnect(): Promise<void> {
    this.closed = true;
    this.connected = false;
    this.statusMessage = 'disconnected';
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    await this.settle().catch(() => undefined);
    this.drop();
  }

  isConnected(): boolean {
    return this.connected;
  }

  private url(): string {
    return this.account.environment === 'live' ? this.settings.liveUrl : this.settings.demoUrl;
  }

  /** Opens the WebSocket; the handlers below keep it. */
  private open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(this.url(), { handshakeTimeout: this.settings.requestTimeoutMs });
      this.socket = socket;
      let opened = false;
      socket.on('open', () => {
        opened = true;
        this.lastHeard = Date.now();
        this.startHeartbeat();
        resolve();
      });
      socket.on('pong', () => {
        this.lastHeard = Date.now();
      });
      socket.on('message', (data) => {
        this.lastHeard = Date.now();
        const frame = parseFrame(data.toString());
        if (frame) this.onFrame(frame);
      });
      socket.on('error', (error) => {
        if (!opened) reject(new CTraderTimeout(`cannot reach cTrader at ${this.url()}: ${error.message}`));
      });
      socket.on('close', () => {
        if (!opened) reject(new CTraderTimeout(`cTrader at ${this.url()} closed the link`));
        this.onClose(socket);
      });
    });
  }

  private onClose(socket: WebSocket): void {
    if (this.socket !== socket) return;
    this.socket = null;
    this.stopHeartbeat();
    this.failWaiters();
    if (this.closed || !this.connected) return;
    this.connected = false;
    this.statusMessage = 'link to cTrader lost; reconnecting';
    this.log.warn(`cTrader account ${this.login}: the link closed; reconnecting with backoff`);
    this.scheduleReconnect(0);
  }

  private scheduleReconnect(attempt: number): void {
    if (this.closed) return;
    const delay = Math.min(FIRST_BACKOFF_MS * 2 ** attempt, this.settings.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.reconnect(attempt);
    }, delay);
    this.reconnectTimer.unref();
  }

  private async reconnect(attempt: number): Promise<void> {
    if (this.closed) return;
    try {
      await this.open();
      await this.session(false);
      if (this.closed) return this.drop();
      this.connected = true;
      this.statusMessage = 'connected';
      this.log.info(`cTrader account ${this.login}: reconnected after ${attempt + 1} attempt(s); what changed meanwhile was read again`);
    } catch (error) {
      this.drop();
      const refused = error instanceof VenueError || (error instanceof CTraderFailure && ERROR_CODES[error.errorCode] === '[INVALID_CREDENTIALS]');
      this.statusMessage = refused ? `cTrader refuses the login: ${describe(error)}` : `reconnecting: ${describe(error)}`;
      if (attempt === 0 || refused) this.log.warn(`cTrader account ${this.login}: reconnecting failed (${describe(error)}); trying again with backoff`);
      this.scheduleReconnect(attempt + 1);
    }
  }

  /** Closes the socket without a reconnect of its own (the caller decides). */
  protected drop(): void {
    const socket = this.socket;
    this.socket = null;
    this.stopHeartbeat();
    if (socket) {
      socket.removeAllListeners('close');
      socket.on('error', () => undefined);
      socket.terminate();
    }
    this.failWaiters();
  }

  /** Ends the link from this side (an ended session, an invalidated token): the close reconnects. */
  protected terminate(): void {
    this.socket?.terminate();
  }

  private failWaiters(): void {
    for (const [id, waiter] of this.waiters) {
      clearTimeout(waiter.timer);
      this.waiters.delete(id);
      waiter.reject(new CTraderTimeout('the link to cTrader closed before the answer'));
    }
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeat = setInterval(() => {
      const socket = this.socket;
      if (!socket) return;
      if (Date.now() - this.lastHeard > 3 * this.settings.heartbeatMs) {
        this.log.warn(`cTrader account ${this.login}: nothing heard for ${3 * this.settings.heartbeatMs} ms; dropping the link`);
        socket.terminate();
        return;
      }
      // The Open API's own heartbeat keeps the session open; a WebSocket ping proves the link answers.
      this.send({ payloadType: PT.HEARTBEAT_EVENT, payload: {} });
      socket.ping();
    }, this.settings.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private send(frame: Frame): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) throw new CTraderTimeout('the link to cTrader is not open');
    socket.send(JSON.stringify(frame));
  }

  /**
   * Sends a request and waits for the frame with its clientMsgId that `accept` takes (answers a value
   * other than undefined). ProtoOAErrorRes, ProtoOAOrderErrorEvent and a rejected order with the id
   * fail it with a CTraderFailure; no answer within CTRADER_REQUEST_TIMEOUT_MS with a CTraderTimeout.
   */
  protected exchange<T>(payloadType: number, payload: object, accept: (frame: Frame) => T | undefined): Promise<T> {
    const clientMsgId = `ct-${++this.messageCounter}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(clientMsgId);
        reject(new CTraderTimeout(`no answer from cTrader to ${payloadType} within ${this.settings.requestTimeoutMs} ms`));
      }, this.settings.requestTimeoutMs);
      this.waiters.set(clientMsgId, { accept, resolve: resolve as (value: unknown) => void, reject, timer });
      try {
        this.send({ clientMsgId, payloadType, payload });
      } catch (error) {
        clearTimeout(timer);
        this.waiters.delete(clientMsgId);
        reject(error as Error);
      }
    });
  }

  protected request<T>(payloadType: number, payload: object, answerType: number): Promise<T> {
    return this.exchange(payloadType, payload, (frame) => (frame.payloadType === answerType ? ((frame.payload ?? {}) as T) : undefined));
  }

  private onFrame(frame: Frame): void {
    const waiter = frame.clientMsgId ? this.waiters.get(frame.clientMsgId) : undefined;
    if (waiter && frame.clientMsgId) {
      const failure = failureOf(frame);
      const value = failure ? undefined : waiter.accept(frame);
      if (failure || value !== undefined) {
        clearTimeout(waiter.timer);
        this.waiters.delete(frame.clientMsgId);
        if (failure) waiter.reject(failure);
        else waiter.resolve(value);
      }
    }
    this.onEvent(frame);
  }

  /** Waits until the link is back (or closed for good), at most `timeoutMs`. */
  protected waitConnected(timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    return new Promise<void>((resolve) => {
      const check = () => {
        if (this.connected || this.closed || Date.now() > until) resolve();
        else setTimeout(check, 50);
      };
      check();
    });
  }
}

/** The failure a frame answers, if it is one. */
const failureOf = (frame: Frame): CTraderFailure | null => {
  if (frame.payloadType === PT.ERROR_RES) {
    const error = frame.payload as ProtoOAErrorRes;
    return new CTraderFailure(error.errorCode, error.description ?? '');
  }
  if (frame.payloadType === PT.ORDER_ERROR_EVENT) {
    const error = frame.payload as ProtoOAOrderErrorEvent;
    return new CTraderFailure(error.errorCode, error.description ?? '');
  }
  if (frame.payloadType === PT.EXECUTION_EVENT) {
    const event = frame.payload as ProtoOAExecutionEvent;
    if (event.executionType === EXECUTION.ORDER_REJECTED) return new CTraderFailure(event.errorCode ?? 'INVALID_REQUEST', 'the order was rejected');
  }
  return null;
};
