// A MetaTrader terminal with the bridge EA, in TypeScript, for the tests: it speaks the bridge protocol
// (engine/venues/mtBridge/PROTOCOL.md) exactly as ea/CopyTradeBridge.mq5 does, and its "broker" is an
// account at a simulated venue (the dealer the terminal is logged in to). Like the EA it connects out,
// says hello with its token, reconnects with backoff, sends its book after every change of the
// account, answers requests, and places nothing for an `open` whose tag a position, order or closed
// trade already carries. Test controls: drop the link, go offline, swallow the next replies.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type {
  BalanceOperation,
  ClosedTrade,
  OpenPosition,
  OrderRequest,
  PendingOrder,
  VenueChange,
  VenueConnection,
  VenueErrorCode,
} from '../../engine/venues/port.js';
import { VenueError } from '../../engine/venues/port.js';
import type { SimulatedVenue } from '../../engine/venues/simulated/simulatedVenue.js';
import {
  line,
  MT_BRIDGE_PROTOCOL,
  parseLines,
  type Command,
  type HelloMessage,
  type MtBalance,
  type MtOrder,
  type MtPosition,
  type MtTrade,
  type OpenResult,
} from '../../engine/venues/mtBridge/protocol.js';

export interface FakeTerminalOptions {
  readonly url: string;
  readonly token: string;
  /** The MT login the terminal reports (ACCOUNT_LOGIN). */
  readonly login: string;
  readonly server?: string;
  readonly platform?: 'MT4' | 'MT5';
  readonly tradeMode?: HelloMessage['tradeMode'];
  /** The simulated venue standing for the broker, and the account's login there. */
  readonly broker: SimulatedVenue;
  readonly brokerLogin: string;
  readonly brokerPassword: string;
  /** First reconnect delay; doubles to maxBackoffMs. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
}

/** The Trading API's codes as the MT5 retcodes the EA would answer. */
const RETCODE: Readonly<Partial<Record<VenueErrorCode, number>>> = {
  '[INVALID_REQUEST]': 10013,
  '[INVALID_VOLUME]': 10014,
  '[INVALID_PRICE]': 10015,
  '[INVALID_STOPS]': 10016,
  '[INVALID_EXPIRATION]': 10022,
  '[NOT_ENOUGH_MONEY]': 10019,
  '[MARKET_CLOSED]': 10018,
  '[POSITION_NOT_FOUND]': 10036,
  '[ORDER_NOT_FOUND]': 10013,
  '[SYMBOL_NOT_FOUND]': 4301,
};

export class FakeTerminal {
  /** Every state the link went through: 'connecting', 'welcome', 'refused: [CODE] message', 'closed'. */
  readonly events: string[] = [];
  /** Requests seen, by op. */
  readonly requests: Command[] = [];
  /** The next n requests of these ops are executed but get no reply (a timeout after the order reached the venue). */
  swallow: { op: Command['op']; count: number } | null = null;
  private socket: WebSocket | null = null;
  private broker!: VenueConnection;
  private stopped = false;
  private offline = false;
  private attempt = 0;
  private timer: NodeJS.Timeout | null = null;
  private welcomed = false;
  private pendingTrades: MtTrade[] = [];
  private pendingBalances: MtBalance[] = [];
  private flushQueued = false;
  /** Results of tagged modify/close/cancel, as the EA keeps them (in memory; MT5 also finds close tags in its deals). */
  private readonly done = new Map<string, unknown>();
  private welcomeWaiters: (() => void)[] = [];

  private url: string;

  constructor(private readonly options: FakeTerminalOptions) {
    this.url = options.url;
  }

  /** The service moved (a restart on another port): the next reconnect goes there. */
  setUrl(url: string): void {
    this.url = url;
  }

  async start(): Promise<void> {
    this.broker = this.options.broker.connection({ login: this.options.brokerLogin, password: this.options.brokerPassword });
    await this.broker.connect();
    this.broker.subscribe((change) => this.onBrokerChange(change));
    this.open();
  }

  /** Resolves at the next welcome (or now, when welcomed). */
  welcome(): Promise<void> {
    if (this.welcomed) return Promise.resolve();
    return new Promise((resolve) => this.welcomeWaiters.push(resolve));
  }

  get isWelcomed(): boolean {
    return this.welcomed;
  }

  /** Cuts the link as a network failure would; reconnects with backoff unless `offline` is set. */
  drop(): void {
    this.socket?.terminate();
  }

  /** The terminal stops (or resumes) trying to reach the service. */
  setOffline(offline: boolean): void {
    this.offline = offline;
    if (offline) this.drop();
    else if (!this.socket && !this.timer) this.open();
  }

  /** A trade placed by hand in the terminal (no tag). */
  manualTrade(request: OrderRequest) {
    return this.options.broker.terminalTrade(this.options.brokerLogin, request);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close();
      });
    }
    await this.broker.disconnect();
  }

  private open(): void {
    if (this.stopped || this.offline) return;
    this.events.push('connecting');
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.on('open', () => {
      this.attempt = 0;
      const hello: HelloMessage = {
        type: 'hello',
        protocol: MT_BRIDGE_PROTOCOL,
        token: this.options.token,
        platform: this.options.platform ?? 'MT5',
        login: this.options.login,
        server: this.options.server ?? 'FakeBroker-Demo',
        company: 'Fake Broker Ltd',
        currency: 'USD',
        leverage: 100,
        marginMode: 'hedging',
        tradeMode: this.options.tradeMode ?? 'demo',
        build: 4000,
      };
      socket.send(line(hello));
    });
    socket.on('message', (data) => {
      for (const message of parseLines(data.toString())) void this.onMessage(message);
    });
    socket.on('close', () => {
      this.welcomed = false;
      this.socket = null;
      this.events.push('closed');
      if (this.stopped || this.offline || this.events.some((e) => e.startsWith('refused'))) return;
      // Backoff: 1, 2, 4... times backoffMs, at most maxBackoffMs (the EA: 1 s doubling to 30 s).
      const delay = Math.min((this.options.backoffMs ?? 50) * 2 ** this.attempt++, this.options.maxBackoffMs ?? 1000);
      this.timer = setTimeout(() => {
        this.timer = null;
        this.open();
      }, delay);
    });
    socket.on('error', () => undefined);
  }

  private send(message: object): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(line(message));
  }

  private async onMessage(message: Record<string, unknown>): Promise<void> {
    switch (message.type) {
      case 'welcome':
        this.welcomed = true;
        this.events.push('welcome');
        for (const resolve of this.welcomeWaiters.splice(0)) resolve();
        return;
      case 'error':
        this.events.push(`refused: ${String(message.code)} ${String(message.message)}`);
        return;
      case 'ping':
        this.send({ type: 'pong' });
        return;
      case 'request':
        await this.onRequest(message as unknown as { id: string } & Command);
        return;
      default:
    }
  }

  private async onRequest(request: { id: string } & Command): Promise<void> {
    this.requests.push(request);
    let reply: object;
    try {
      reply = { type: 'reply', id: request.id, ok: true, result: await this.execute(request) };
    } catch (error) {
      const code = error instanceof VenueError ? error.code : '[INVALID_REQUEST]';
      reply = { type: 'reply', id: request.id, ok: false, retcode: RETCODE[code] ?? 10013, message: error instanceof Error ? error.message : String(error) };
    }
    if (this.swallow && this.swallow.op === request.op && this.swallow.count > 0) {
      this.swallow.count--;
      return;
    }
    this.send(reply);
  }

  private async execute(command: Command): Promise<unknown> {
    const b = this.broker;
    switch (command.op) {
      case 'account': {
        const a = await b.accountInformation();
        return {
          balance: a.balance,
          credit: a.credit,
          equity: a.equity,
          margin: a.margin,
          freeMargin: a.freeMargin,
          marginLevel: a.marginLevel,
          stopOutLevel: a.stopOutLevel,
          profit: a.unrealizedProfit,
        };
      }
      case 'book':
        return this.book();
      case 'history': {
        const entries = await b.history(command.from, command.to);
        return {
          trades: entries.filter((e): e is ClosedTrade => e.kind === 'trade').map(mtTrade),
          balances: entries.filter((e): e is BalanceOperation => e.kind === 'balance').map(mtBalance),
        };
      }
      case 'open': {
        const existing = await this.findTag(command.tag);
        if (existing) return existing;
        const base = {
          symbol: command.symbol,
          volume: command.volume,
          stopLoss: command.stopLoss,
          takeProfit: command.takeProfit,
          comment: command.tag,
          magicNumber: command.magic,
        };
        const request: OrderRequest =
          command.orderType === 'buy' || command.orderType === 'sell'
            ? { ...base, orderType: command.orderType }
            : { ...base, orderType: command.orderType, openPrice: command.price ?? 0, expiry: command.expiry };
        const placed = await b.placeOrder(request, randomUUID());
        const result: OpenResult =
          placed.status === 'filled'
            ? { status: 'filled', order: placed.orderId, position: placed.positionId, price: placed.price, volume: placed.volume, time: placed.time }
            : { status: 'placed', order: placed.orderId, price: placed.openPrice, volume: placed.volume, time: placed.time };
        return result;
      }
      case 'modify':
        return this.tagged(command.tag, async () => {
          const changed = await b.modifyPosition(command.id, {
            ...(command.volume !== undefined ? { volume: command.volume } : {}),
            ...(command.price !== undefined ? { openPrice: command.price } : {}),
            ...(command.stopLoss !== undefined ? { stopLoss: command.stopLoss } : {}),
            ...(command.takeProfit !== undefined ? { takeProfit: command.takeProfit } : {}),
          });
          return changed.kind === 'position' ? { position: mtPosition(changed) } : { order: mtOrder(changed) };
        });
      case 'close':
        return this.tagged(command.tag, async () => mtTrade(await b.closePosition(command.id, command.volume ?? undefined)));
      case 'cancel':
        return this.tagged(command.tag, async () => mtOrder(await b.cancelOrder(command.id)));
      case 'symbols':
        return b.symbols();
      case 'quote':
        return b.quote(command.symbol);
      case 'margin':
        return { margin: await b.marginRequired(command.symbol, command.side, command.volume) };
      default:
        throw new VenueError('[INVALID_REQUEST]', 'unknown op');
    }
  }

  private async tagged(tag: string | null, work: () => Promise<unknown>): Promise<unknown> {
    if (tag && this.done.has(tag)) return this.done.get(tag);
    const result = await work();
    if (tag) this.done.set(tag, result);
    return result;
  }

  /** The EA's duplicate check: an open position or order, or a closed trade, with this comment. */
  private async findTag(tag: string): Promise<OpenResult | null> {
    for (const item of await this.broker.positions()) {
      if (item.comment !== tag) continue;
      return item.kind === 'position'
        ? { status: 'filled', order: item.id, position: item.id, price: item.openPrice, volume: item.volume, time: item.openTime, existing: true }
        : { status: 'placed', order: item.id, price: item.openPrice, volume: item.volume, time: item.openTime, existing: true };
    }
    const week = new Date(Date.now() - 7 * 86_400_000).toISOString();
    for (const entry of await this.broker.history(week, new Date(Date.now() + 86_400_000).toISOString())) {
      if (entry.kind === 'trade' && entry.comment === tag) {
        return {
          status: 'filled',
          order: entry.positionId,
          position: entry.positionId,
          price: entry.openPrice,
          volume: entry.volume,
          time: entry.openTime,
          existing: true,
        };
      }
    }
    return null;
  }

  private async book(): Promise<{ positions: MtPosition[]; orders: MtOrder[] }> {
    const items = await this.broker.positions();
    return {
      positions: items.filter((i): i is OpenPosition => i.kind === 'position').map(mtPosition),
      orders: items.filter((i): i is PendingOrder => i.kind === 'order').map(mtOrder),
    };
  }

  /** OnTradeTransaction: the closed volumes and balance operations, then the book, in one message. */
  private onBrokerChange(change: VenueChange): void {
    if (change.type === 'positionClosed' || change.type === 'positionPartiallyClosed') this.pendingTrades.push(mtTrade(change.trade));
    if (change.type === 'balanceChanged') this.pendingBalances.push(mtBalance(change.operation));
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      if (!this.welcomed) return; // the service asks for the book and the history when the link is back
      const trades = this.pendingTrades.splice(0);
      const balances = this.pendingBalances.splice(0);
      void Promise.all([this.book(), this.broker.accountInformation()]).then(([book, a]) =>
        this.send({
          type: 'book',
          ...book,
          trades,
          balances,
          account: {
            balance: a.balance,
            credit: a.credit,
            equity: a.equity,
            margin: a.margin,
            freeMargin: a.freeMargin,
            marginLevel: a.marginLevel,
            stopOutLevel: a.stopOutLevel,
            profit: a.unrealizedProfit,
          },
        }),
      );
    });
  }
}

const mtPosition = (p: OpenPosition): MtPosition => ({
  id: p.id,
  symbol: p.symbol,
  side: p.orderType,
  volume: p.volume,
  openPrice: p.openPrice,
  openTime: p.openTime,
  stopLoss: p.stopLoss,
  takeProfit: p.takeProfit,
  currentPrice: p.currentPrice,
  profit: p.profit,
  swap: p.swap,
  commission: p.commission,
  comment: p.comment,
  magic: p.magicNumber,
});

const mtOrder = (o: PendingOrder): MtOrder => ({
  id: o.id,
  symbol: o.symbol,
  type: o.orderType,
  volume: o.volume,
  openPrice: o.openPrice,
  openTime: o.openTime,
  stopLoss: o.stopLoss,
  takeProfit: o.takeProfit,
  expiry: o.expiry,
  currentPrice: o.currentPrice,
  comment: o.comment,
  magic: o.magicNumber,
});

const mtTrade = (t: ClosedTrade): MtTrade => ({
  id: t.id,
  positionId: t.positionId,
  symbol: t.symbol,
  side: t.orderType,
  volume: t.volume,
  openPrice: t.openPrice,
  openTime: t.openTime,
  closePrice: t.closePrice,
  closeTime: t.closeTime,
  profit: t.profit,
  swap: t.swap,
  commission: t.commission,
  reason: t.reason,
  stopLoss: t.stopLoss ?? null,
  takeProfit: t.takeProfit ?? null,
  comment: t.comment,
  magic: t.magicNumber,
});

const mtBalance = (b: BalanceOperation): MtBalance => ({ id: b.id, time: b.time, amount: b.amount, comment: b.comment });
