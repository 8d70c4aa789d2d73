// The MetaTrader bridge as a venue (port.ts): one connection per account login, served by the login's
// ledger (server.ts). The venue login is `<loginServer>/<loginAccountNumber>` like the simulated
// venue's; the account's password is not used (the terminal holds the broker login; the EA's token is
// the credential). connect() opens when the account's terminal is attached and its book read, and
// answers at once when it is not.
import type {
  AccountInformation,
  ClosedTrade,
  HistoryEntry,
  OrderRequest,
  PendingOrder,
  PlaceOrderResult,
  PositionChanges,
  Quote,
  Side,
  SymbolInfo,
  Venue,
  VenueConnection,
  VenueCredentials,
  VenuePosition,
} from '../port.js';
import { isPendingOrderRequest, VenueError } from '../port.js';
import { historyOf, toOrder, toPosition, toTrade } from './book.js';
import {
  tagOf,
  type BookResult,
  type HistoryResult,
  type MtAccount,
  type MtOrder,
  type MtPosition,
  type MtQuote,
  type MtSymbol,
  type MtTrade,
  type OpenResult,
} from './protocol.js';
import type { Ledger, MtBridgeServer, TerminalState } from './server.js';

export const MT_BRIDGE_VENUE_NAME = 'MetaTrader bridge';
/** How long a refused terminal makes an account's start answer [INVALID_CREDENTIALS]. */
const REFUSAL_REMEMBERED_MS = 90_000;

export class MtBridgeVenue implements Venue {
  readonly name = MT_BRIDGE_VENUE_NAME;
  constructor(readonly server: MtBridgeServer) {}

  connection(credentials: VenueCredentials): VenueConnection {
    const login = credentials.server ? `${credentials.server}/${credentials.login}` : credentials.login;
    return new MtBridgeConnection(this.server, this.server.ledger(login), credentials.server ? credentials.login : (login.split('/').pop() ?? login));
  }

  /** The terminal's state for an account login (`<loginServer>/<loginAccountNumber>`). */
  state(login: string): TerminalState {
    return this.server.ledger(login).state;
  }
}

export class MtBridgeConnection implements VenueConnection {
  private open = false;

  constructor(
    private readonly server: MtBridgeServer,
    private readonly ledger: Ledger,
    private readonly accountNumber: string,
  ) {}

  get login(): string {
    return this.ledger.key;
  }

  state(): TerminalState {
    return this.ledger.state;
  }

  /** The terminal's state in words (waiting for it, connected, disconnected since...): AccountDTO.statusMessage. */
  get statusMessage(): string {
    return this.ledger.state.statusMessage;
  }

  /**
   * Opens at once when the account's terminal is attached (waiting, at most MT_BRIDGE_ATTACH_TIMEOUT_MS,
   * only for the book of a terminal that just attached). Without a terminal it answers at once: a
   * recent refusal of the account's terminal is [INVALID_CREDENTIALS]; otherwise [NOT_CONNECTED], and
   * the account waits for its terminal (state "waiting for the terminal") and connects when it attaches
   * (RealVenue.onReachable).
   */
  async connect(): Promise<void> {
    if (this.ledger.terminal && (await this.ledger.waitForTerminal(this.server.attachTimeoutMs))) {
      this.open = true;
      return;
    }
    const refusal = this.server.refusal(this.ledger.key, this.accountNumber, REFUSAL_REMEMBERED_MS);
    if (refusal) throw new VenueError('[INVALID_CREDENTIALS]', `the MetaTrader terminal was refused: ${refusal}`);
    throw new VenueError(
      '[NOT_CONNECTED]',
      `waiting for the terminal: no MetaTrader terminal is attached for ${this.ledger.key}; run the bridge EA with an account-level API key of this account`,
    );
  }

  disconnect(): Promise<void> {
    this.open = false;
    return Promise.resolve();
  }

  isConnected(): boolean {
    return this.open && this.ledger.terminal !== null && this.ledger.synced;
  }

  private live(): void {
    if (!this.open) throw new VenueError('[NOT_CONNECTED]', 'the connection is not open');
    if (!this.ledger.terminal) throw new VenueError('[NOT_CONNECTED]', `the MetaTrader terminal of ${this.ledger.key} is not connected`);
  }

  async accountInformation(): Promise<AccountInformation> {
    this.live();
    const terminal = this.ledger.terminal!;
    const a = await this.ledger.call<MtAccount>({ op: 'account' });
    const items = this.ledger.bookItems();
    const { hello } = terminal;
    return {
      login: this.ledger.key,
      currency: hello.currency,
      leverage: hello.leverage,
      marginMode: hello.marginMode,
      balance: a.balance,
      credit: a.credit,
      equity: a.equity,
      margin: a.margin,
      freeMargin: a.freeMargin,
      marginLevel: a.marginLevel,
      stopOutLevel: a.stopOutLevel,
      unrealizedProfit: a.profit,
      openPositionsCount: items.filter((i) => i.kind === 'position').length,
      pendingOrdersCount: items.filter((i) => i.kind === 'order').length,
      connected: this.isConnected(),
      // ACCOUNT_TRADE_MODE: a contest account is no live money either.
      environment: hello.tradeMode === 'real' ? 'LIVE' : 'DEMO',
    };
  }

  async positions(): Promise<readonly VenuePosition[]> {
    this.live();
    const book = await this.ledger.call<BookResult>({ op: 'book' });
    return [...book.positions.map((p: MtPosition) => toPosition(p, this.ledger.tags)), ...book.orders.map((o: MtOrder) => toOrder(o, this.ledger.tags))];
  }

  async history(from: string, to: string): Promise<readonly HistoryEntry[]> {
    this.live();
    const result = await this.ledger.call<HistoryResult>({ op: 'history', from, to });
    return historyOf(result.trades, result.balances, this.ledger.tags);
  }

  /** Once per client order id: a repeat (or a resend after a timeout) answers the first result; the EA finds the tag and places nothing. */
  placeOrder(request: OrderRequest, clientOrderId: string): Promise<PlaceOrderResult> {
    return this.once(`open/${clientOrderId}`, async () => {
      this.live();
      const tag = tagOf(clientOrderId);
      this.ledger.tags.set(tag, clientOrderId);
      const result = await this.ledger.call<OpenResult>({
        op: 'open',
        tag,
        symbol: request.symbol,
        orderType: request.orderType,
        volume: request.volume,
        ...(isPendingOrderRequest(request) ? { price: request.openPrice } : {}),
        stopLoss: request.stopLoss ?? null,
        takeProfit: request.takeProfit ?? null,
        expiry: isPendingOrderRequest(request) ? (request.expiry ?? null) : null,
        magic: request.magicNumber ?? null,
      });
      if (result.existing)
        this.server.log.info(`${this.ledger.key}: order ${clientOrderId} was already at the terminal (${result.order}); nothing placed again`);
      return result.status === 'filled'
        ? { status: 'filled', orderId: result.order, clientOrderId, positionId: result.position, price: result.price, volume: result.volume, time: result.time }
        : { status: 'placed', orderId: result.order, clientOrderId, openPrice: result.price, volume: result.volume, time: result.time };
    });
  }

  modifyPosition(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> {
    return this.once(clientRequestId && `modify/${clientRequestId}`, async () => {
      this.live();
      const result = await this.ledger.call<{ position?: MtPosition; order?: MtOrder }>({
        op: 'modify',
        tag: clientRequestId ? tagOf(clientRequestId) : null,
        id,
        ...(changes.volume !== undefined ? { volume: changes.volume } : {}),
        ...(changes.openPrice !== undefined ? { price: changes.openPrice } : {}),
        ...(changes.stopLoss !== undefined ? { stopLoss: changes.stopLoss } : {}),
        ...(changes.takeProfit !== undefined ? { takeProfit: changes.takeProfit } : {}),
      });
      if (result.position) return toPosition(result.position, this.ledger.tags);
      if (result.order) return toOrder(result.order, this.ledger.tags);
      throw new VenueError('[POSITION_NOT_FOUND]', `no position or order ${id}`);
    });
  }

  closePosition(id: string, volume?: number, clientRequestId?: string): Promise<ClosedTrade> {
    return this.once(clientRequestId && `close/${clientRequestId}`, async () => {
      this.live();
      const trade = await this.ledger.call<MtTrade>({ op: 'close', tag: clientRequestId ? tagOf(clientRequestId) : null, id, volume: volume ?? null });
      return toTrade(trade, this.ledger.tags);
    });
  }

  cancelOrder(id: string, clientRequestId?: string): Promise<PendingOrder> {
    return this.once(clientRequestId && `cancel/${clientRequestId}`, async () => {
      this.live();
      const order = await this.ledger.call<MtOrder>({ op: 'cancel', tag: clientRequestId ? tagOf(clientRequestId) : null, id });
      return toOrder(order, this.ledger.tags);
    });
  }

  async quote(symbol: string): Promise<Quote> {
    this.live();
    return this.ledger.call<MtQuote>({ op: 'quote', symbol });
  }

  async symbolInfo(symbol: string): Promise<SymbolInfo> {
    const found = (await this.symbols()).find((s) => s.symbol === symbol);
    if (!found) throw new VenueError('[SYMBOL_NOT_FOUND]', `the terminal offers no symbol ${symbol}`);
    return found;
  }

  async symbols(): Promise<readonly SymbolInfo[]> {
    this.live();
    return this.ledger.call<MtSymbol[]>({ op: 'symbols' });
  }

  async marginRequired(symbol: string, side: Side, volume: number): Promise<number> {
    this.live();
    const result = await this.ledger.call<{ margin: number }>({ op: 'margin', symbol, side, volume });
    return result.margin;
  }

  subscribe(listener: Parameters<VenueConnection['subscribe']>[0]): () => void {
    return this.ledger.subscribe(listener);
  }

  /** A request with a client id runs once: repeats share its promise; a failure is forgotten so a retry may try again. */
  private once<T>(key: string | undefined, work: () => Promise<T>): Promise<T> {
    if (!key) return work();
    const earlier = this.ledger.requests.get(key);
    if (earlier) return earlier as Promise<T>;
    const run = work();
    this.ledger.requests.set(key, run);
    run.catch(() => this.ledger.requests.delete(key));
    return run;
  }
}
