// The service's end of the MetaTrader bridge (PROTOCOL.md): a WebSocket endpoint the Expert Advisors
// connect out to. A terminal says hello with an account-level API key of the service account it trades
// for; the key must be live and the terminal logged in to that account's loginAccountNumber, or the
// terminal is told [INVALID_CREDENTIALS] and closed. An accepted terminal is that account's venue: its
// book is kept here per account login (a Ledger, which outlives the terminal's connection) and turned
// into the port's changes (book.ts); requests go to it with an id and wait for the reply.
//
// The EA reconnects with backoff (1 s doubling to 30 s); while it is away the ledger says so
// (`state()`: connected false and why), and when it comes back the ledger asks for its book and the
// history since the last book it saw, and delivers what changed meanwhile, once.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { VenueChange, VenueChangeListener } from '../port.js';
import { VenueError } from '../port.js';
import { bookItems, diffBooks, toBalance, toOrder, toPosition, toTrade, type Book } from './book.js';
import {
  CLOSE_INVALID_CREDENTIALS,
  CLOSE_PROTOCOL_ERROR,
  CLOSE_REPLACED,
  CLOSE_SERVER_STOPPING,
  line,
  MT_BRIDGE_PROTOCOL,
  parseLines,
  retcodeError,
  type BookMessage,
  type BookResult,
  type Command,
  type HelloMessage,
  type HistoryResult,
  type ReplyMessage,
} from './protocol.js';

/** The service account an EA's token stands for. */
export interface BridgeAccount {
  readonly accountId: string;
  readonly loginServer: string;
  readonly loginAccountNumber: string;
}

/** Why a token is refused, or the account it opens. */
export type Authentication = { readonly ok: true; readonly account: BridgeAccount } | { readonly ok: false; readonly message: string };

export interface MtBridgeLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface MtBridgeOptions {
  /** Checks an EA's token (an account-level API key, app/mtBridge.ts). */
  readonly authenticate: (token: string) => Promise<Authentication>;
  readonly log: MtBridgeLog;
  readonly clock?: () => Date;
  /** Default 10 s; a terminal silent for three pings is dropped. */
  readonly heartbeatMs?: number;
  /** How long a request waits for the terminal's reply before it is sent again (same id, same tag). Default 10 s. */
  readonly requestTimeoutMs?: number;
  /** How many times a request is sent before it fails with [NOT_CONNECTED]. Default 3. */
  readonly requestAttempts?: number;
  /** How long connecting an account waits for the book of a terminal that just attached (none attached: no wait). Default 30 s. */
  readonly attachTimeoutMs?: number;
}

/** What the API and the logs show of an account's terminal. */
export interface TerminalState {
  readonly connected: boolean;
  readonly statusMessage: string;
  readonly platform: 'MT4' | 'MT5' | null;
  readonly tradeMode: HelloMessage['tradeMode'] | null;
  readonly since: string | null;
}

interface Pending {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** One connected terminal. */
class Terminal {
  private nextId = 1;
  readonly pending = new Map<string, Pending>();
  constructor(
    readonly socket: WebSocket,
    readonly hello: HelloMessage,
    readonly account: BridgeAccount,
  ) {}

  send(message: object): void {
    this.socket.send(line(message));
  }

  /** Sends a request; resolves with the reply's result, rejects with its VenueError, or never (the caller times out). */
  request(command: Command, id = `r${this.nextId++}`): { id: string; reply: Promise<unknown> } {
    const reply = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.send({ type: 'request', id, ...command });
    return { id, reply };
  }

  answer(reply: ReplyMessage): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (reply.ok) waiting.resolve(reply.result);
    else
      waiting.reject(
        new VenueError(retcodeError(reply.retcode), reply.message ?? `the terminal refused (retcode ${String(reply.retcode)})`, { retcode: reply.retcode }),
      );
  }

  gone(): void {
    for (const waiting of this.pending.values()) waiting.reject(new VenueError('[NOT_CONNECTED]', 'the terminal disconnected before it answered'));
    this.pending.clear();
  }
}

/** An account login's terminal over time: the last book seen, the changes delivered, the listeners. */
export class Ledger {
  terminal: Terminal | null = null;
  book: Book | null = null;
  /** When the last book was seen: the history asked for after a reconnect starts a minute before. */
  lastBookAt: string | null = null;
  readonly seenTrades = new Set<string>();
  readonly seenBalances = new Set<string>();
  /** Tags this service sent, to their client order ids (non-UUID ids cannot be read back from a tag). */
  readonly tags = new Map<string, string>();
  /** placeOrder and friends by client id: a repeat answers the first promise. */
  readonly requests = new Map<string, Promise<unknown>>();
  private readonly listeners = new Set<VenueChangeListener>();
  private readonly attachWaiters = new Set<() => void>();
  private sequence: number;
  private work: Promise<unknown> = Promise.resolve();
  state: TerminalState = {
    connected: false,
    statusMessage: 'waiting for the terminal: run the bridge EA with the account token',
    platform: null,
    tradeMode: null,
    since: null,
  };
  refusal: { at: number; message: string } | null = null;
  /** False from attach until the first book is in: books the terminal sends meanwhile wait. */
  synced = false;

  constructor(
    readonly key: string,
    private readonly server: MtBridgeServer,
  ) {
    // Sequence numbers start at the clock's milliseconds: the ids of repeatable changes (recorder.ts)
    // stay unique across restarts of the service.
    this.sequence = server.now().getTime();
  }

  get login(): string {
    return this.key;
  }

  subscribe(listener: VenueChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs `job` after the ledger's earlier jobs (books are diffed one at a time). */
  serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.work.then(job);
    this.work = run.catch(() => undefined);
    return run;
  }

  waitForTerminal(timeoutMs: number): Promise<boolean> {
    if (this.terminal && this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.attachWaiters.delete(done);
        resolve(this.terminal !== null && this.synced);
      };
      const timer = setTimeout(done, timeoutMs);
      this.attachWaiters.add(done);
    });
  }

  notifyAttached(): void {
    for (const waiter of [...this.attachWaiters]) waiter();
  }

  emit(changes: ReturnType<typeof diffBooks>): void {
    const now = this.server.now().toISOString();
    for (const draft of changes) {
      const change = { ...draft, at: draft.at ?? now, login: this.key, sequence: ++this.sequence } as VenueChange;
      for (const listener of this.listeners) {
        try {
          listener(change);
        } catch (error) {
          this.server.log.warn(`a change listener of ${this.key} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
  }

  /** The terminal's answer to a command, sent again on timeout with the same id while it stays attached. */
  async call<T>(command: Command): Promise<T> {
    const { attempts, timeoutMs } = this.server.requestPolicy;
    let id: string | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const terminal = this.terminal;
      if (!terminal) throw new VenueError('[NOT_CONNECTED]', `the terminal of ${this.key} is not connected`);
      const sent = terminal.request(command, id);
      id = sent.id;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      try {
        const outcome = await Promise.race([sent.reply, timeout]);
        if (outcome !== 'timeout') return outcome as T;
      } finally {
        clearTimeout(timer);
      }
      terminal.pending.delete(id);
      this.server.log.warn(`the terminal of ${this.key} did not answer ${command.op} ${id} within ${timeoutMs} ms (attempt ${attempt} of ${attempts})`);
    }
    throw new VenueError('[NOT_CONNECTED]', `the terminal of ${this.key} did not answer ${command.op} after ${attempts} attempts`);
  }

  /** A book the terminal sent, or answered: diffed against the last one, changes delivered. */
  async absorb(message: Pick<BookMessage, 'positions' | 'orders' | 'trades' | 'balances'>): Promise<void> {
    const tags = this.tags;
    const after: Book = { positions: message.positions.map((p) => toPosition(p, tags)), orders: message.orders.map((o) => toOrder(o, tags)) };
    const trades = message.trades.filter((t) => !this.seenTrades.has(t.id)).map((t) => toTrade(t, tags));
    const balances = message.balances.filter((b) => !this.seenBalances.has(b.id)).map(toBalance);
    trades.sort((a, b) => a.closeTime.localeCompare(b.closeTime));
    for (const t of trades) this.seenTrades.add(t.id);
    for (const b of balances) this.seenBalances.add(b.id);
    const before = this.book;
    this.book = after;
    this.lastBookAt = this.server.now().toISOString();
    if (!before) return; // the first book of this run: AccountConnections reconciles it with the read models
    this.emit(diffBooks({ before, after, trades, balances, now: this.lastBookAt, warn: (m) => this.server.log.warn(`${this.key}: ${m}`) }));
  }

  /** After (re)attach: the book, and with a book seen before, the history since, then what changed. */
  async sync(terminal: Terminal): Promise<void> {
    // With a book seen before: the history from a minute before it. Without: the last day's, only to
    // know it (a later reconnect's history overlaps it).
    const since = new Date((this.lastBookAt ? Date.parse(this.lastBookAt) : this.server.now().getTime() - 86_400_000) - 60_000).toISOString();
    const book = await this.call<BookResult>({ op: 'book' });
    const history = await this.call<HistoryResult>({ op: 'history', from: since, to: this.server.now().toISOString() });
    if (this.terminal !== terminal) return;
    if (!this.book) {
      // Nothing seen before in this run: remember what exists, deliver nothing.
      for (const t of history.trades) this.seenTrades.add(t.id);
      for (const b of history.balances) this.seenBalances.add(b.id);
    }
    await this.absorb({ ...book, ...history });
    this.synced = true;
    this.state = { ...this.state, connected: true, statusMessage: `connected: ${terminal.hello.platform} ${terminal.hello.login} at ${terminal.hello.server}` };
    this.server.log.info(`MetaTrader bridge: ${this.key} ${this.state.statusMessage}`);
    this.notifyAttached();
    this.server.reached(this.key);
  }

  bookItems() {
    return this.book ? bookItems(this.book) : [];
  }
}

export class MtBridgeServer {
  readonly log: MtBridgeLog;
  readonly now: () => Date;
  readonly requestPolicy: { readonly timeoutMs: number; readonly attempts: number };
  readonly attachTimeoutMs: number;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly ledgers = new Map<string, Ledger>();
  private readonly reachedListeners = new Set<(key: string) => void>();
  /** Refusals of terminals whose token named no account, by the MT login they reported. */
  private readonly refusedLogins = new Map<string, { at: number; message: string }>();
  private readonly heartbeatMs: number;
  private httpServer: http.Server | https.Server | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly alive = new WeakMap<WebSocket, number>();

  constructor(private readonly options: MtBridgeOptions) {
    this.log = options.log;
    this.now = options.clock ?? (() => new Date());
    this.requestPolicy = { timeoutMs: options.requestTimeoutMs ?? 10_000, attempts: options.requestAttempts ?? 3 };
    this.attachTimeoutMs = options.attachTimeoutMs ?? 30_000;
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.wss.on('connection', (socket: WebSocket) => this.accept(socket));
    this.heartbeat = setInterval(() => this.ping(), this.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Listens on a port of its own (MT_BRIDGE_PORT); answers the bound port. */
  async listen(port: number, host = '0.0.0.0', tls: { readonly cert: string; readonly key: string } | null = null): Promise<number> {
    const answer = (_req: http.IncomingMessage, res: http.ServerResponse) =>
      res.writeHead(426, { 'content-type': 'text/plain' }).end('the MetaTrader bridge speaks WebSocket\n');
    const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, answer) : http.createServer(answer);
    server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.httpServer = server;
    return (server.address() as AddressInfo).port;
  }

  /** Takes a WebSocket upgrade request (from listen's server, or another http server's `upgrade` event). */
  upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  /** Hears every login whose terminal attached and was read (RealVenue.onReachable). */
  onReached(listener: (key: string) => void): () => void {
    this.reachedListeners.add(listener);
    return () => this.reachedListeners.delete(listener);
  }

  reached(key: string): void {
    for (const listener of this.reachedListeners) {
      try {
        listener(key);
      } catch (error) {
        this.log.warn(`a listener of ${key}'s terminal failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  ledger(key: string): Ledger {
    let ledger = this.ledgers.get(key);
    if (!ledger) {
      ledger = new Ledger(key, this);
      this.ledgers.set(key, ledger);
    }
    return ledger;
  }

  /** The refusal of a terminal for this login within the last `withinMs`, if any. */
  refusal(key: string, loginAccountNumber: string, withinMs: number): string | null {
    const cutoff = this.now().getTime() - withinMs;
    const byKey = this.ledgers.get(key)?.refusal;
    if (byKey && byKey.at >= cutoff) return byKey.message;
    const byLogin = this.refusedLogins.get(loginAccountNumber);
    return byLogin && byLogin.at >= cutoff ? byLogin.message : null;
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    for (const client of this.wss.clients) client.close(CLOSE_SERVER_STOPPING, 'the service is stopping');
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    if (this.httpServer) {
      const server = this.httpServer;
      this.httpServer = null;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private ping(): void {
    const now = Date.now();
    for (const client of this.wss.clients) {
      const last = this.alive.get(client) ?? now;
      if (now - last > 3 * this.heartbeatMs) {
        client.terminate();
        continue;
      }
      client.send(line({ type: 'ping' }));
    }
  }

  private accept(socket: WebSocket): void {
    let terminal: Terminal | null = null;
    let ledger: Ledger | null = null;
    let helloSeen = false;
    this.alive.set(socket, Date.now());
    const refuse = (code: string, message: string, close: number) => {
      socket.send(line({ type: 'error', code, message }));
      socket.close(close, code);
    };
    socket.on('message', (data, isBinary) => {
      this.alive.set(socket, Date.now());
      if (isBinary) return refuse('[INVALID_REQUEST]', 'the bridge speaks text frames of JSON lines', CLOSE_PROTOCOL_ERROR);
      let messages: Record<string, unknown>[];
      try {
        messages = parseLines(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
      } catch (error) {
        return refuse('[INVALID_REQUEST]', `not a JSON line: ${error instanceof Error ? error.message : String(error)}`, CLOSE_PROTOCOL_ERROR);
      }
      for (const message of messages) {
        if (!helloSeen) {
          if (message.type !== 'hello') return refuse('[INVALID_REQUEST]', 'the first message must be hello', CLOSE_PROTOCOL_ERROR);
          helloSeen = true;
          void this.hello(socket, message as unknown as HelloMessage, refuse).then((attached) => {
            if (attached) ({ terminal, ledger } = attached);
          });
          continue;
        }
        if (message.type === 'pong') continue;
        if (!terminal || !ledger) continue; // before the welcome: a book waits for the sync anyway
        if (message.type === 'reply') terminal.answer(message as unknown as ReplyMessage);
        else if (message.type === 'book') {
          const current = ledger;
          const book = message as unknown as BookMessage;
          void current
            .serial(async () => {
              if (current.synced && current.terminal === terminal) await current.absorb(book);
            })
            .catch((error: unknown) => this.log.warn(`${current.key}: a book could not be read: ${String(error)}`));
        }
      }
    });
    socket.on('close', () => {
      if (!terminal || !ledger) return;
      terminal.gone();
      if (ledger.terminal !== terminal) return;
      ledger.terminal = null;
      ledger.synced = false;
      ledger.state = { ...ledger.state, connected: false, statusMessage: `disconnected at ${this.now().toISOString()}: waiting for the terminal to reconnect` };
      this.log.warn(`MetaTrader bridge: ${ledger.key} ${ledger.state.statusMessage}`);
    });
    socket.on('error', (error) => this.log.warn(`MetaTrader bridge: socket error: ${error.message}`));
  }

  private async hello(
    socket: WebSocket,
    hello: HelloMessage,
    refuse: (code: string, message: string, close: number) => void,
  ): Promise<{ terminal: Terminal; ledger: Ledger } | null> {
    if (hello.protocol !== MT_BRIDGE_PROTOCOL) {
      refuse('[INVALID_REQUEST]', `protocol ${String(hello.protocol)} is not spoken here (${MT_BRIDGE_PROTOCOL} is)`, CLOSE_PROTOCOL_ERROR);
      return null;
    }
    const login = String(hello.login);
    const refused = (message: string, key: string | null) => {
      const at = this.now().getTime();
      if (key) this.ledger(key).refusal = { at, message };
      else this.refusedLogins.set(login, { at, message });
      this.log.warn(`MetaTrader bridge: terminal ${login} refused: ${message}`);
      refuse('[INVALID_CREDENTIALS]', message, CLOSE_INVALID_CREDENTIALS);
      return null;
    };
    const auth = typeof hello.token === 'string' ? await this.options.authenticate(hello.token) : { ok: false as const, message: 'hello carries no token' };
    if (!auth.ok) return refused(auth.message, null);
    const { account } = auth;
    const key = `${account.loginServer}/${account.loginAccountNumber}`;
    if (login !== account.loginAccountNumber) {
      return refused(`the token belongs to an account with login ${account.loginAccountNumber}, the terminal is logged in to ${login}`, key);
    }
    const ledger = this.ledger(key);
    ledger.refusal = null;
    const terminal = new Terminal(socket, hello, account);
    const previous = ledger.terminal;
    ledger.terminal = terminal;
    ledger.synced = false;
    if (previous) {
      previous.gone();
      previous.socket.close(CLOSE_REPLACED, 'another terminal attached for this account');
    }
    ledger.state = {
      connected: false,
      statusMessage: 'terminal attached: reading its book',
      platform: hello.platform,
      tradeMode: hello.tradeMode,
      since: this.now().toISOString(),
    };
    terminal.send({ type: 'welcome', protocol: MT_BRIDGE_PROTOCOL, accountId: account.accountId, heartbeatSeconds: Math.round(this.heartbeatMs / 1000) });
    void ledger
      .serial(() => ledger.sync(terminal))
      .catch((error: unknown) => {
        this.log.warn(`MetaTrader bridge: ${key}: reading the book failed: ${error instanceof Error ? error.message : String(error)}`);
        if (ledger.terminal === terminal) socket.close(CLOSE_PROTOCOL_ERROR, 'the book could not be read');
      });
    return { terminal, ledger };
  }
}
