// A cTrader Open API endpoint in TypeScript, for the tests: a local WebSocket server speaking the JSON
// protocol of engine/venues/ctrader/protocol.ts (`{clientMsgId, payloadType, payload}` frames) the way
// Spotware's proxies do for the messages the adapter uses: application auth (tokens are issued to one
// application, as cTrader's OAuth does: another application's link is refused them), the token's account list,
// account auth, token refresh (ProtoOARefreshTokenReq: a new pair, the old one stops working), trader,
// assets, symbols (volumes in cents of units, lotSize), spots (1/100 000), reconcile, market, limit and
// stop orders, cancels, amendments of orders and of positions' stop loss and take profit, position
// closes (the account's book: fakeCTraderBook.ts), deal and order lists, heartbeats, and errors as
// ProtoOAErrorRes / ProtoOAOrderErrorEvent. A hedged USD account, one position per order. Test controls:
// prices (which trigger pending orders and stops), a close or an order made "in cTrader" by hand,
// deposits and withdrawals (ProtoOACashFlowHistoryListReq, DEPOSIT_WITHDRAW events), dropping every
// link, refusing links, swallowing the answer to the next order (it is executed, the requester hears
// nothing), and expiring an access token (with or without ProtoOAAccountsTokenInvalidatedEvent).
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  EXECUTION,
  type Frame,
  int,
  type Int64,
  ORDER_TYPE,
  parseFrame,
  PT,
  type ProtoOADepositWithdraw,
  type ProtoOAOrder,
  type ProtoOAPosition,
  type ProtoOASymbol,
  TRADE_SIDE,
} from '../../engine/venues/ctrader/protocol.js';
import { type FakeBookContext, FakeCTraderAccount, FakeOrderError, type FakeSymbolSpec, newOrderOf, type Requester } from './fakeCTraderBook.js';

export type { FakeSymbolSpec };

export const FAKE_ASSETS = [
  { assetId: 1, name: 'USD', digits: 2 },
  { assetId: 2, name: 'EUR', digits: 2 },
  { assetId: 3, name: 'BTC', digits: 8 },
];

/** EURUSD: lot 100 000 units, minimum and step 1 000 units (0.01 lot). BTCUSD: lot 1 unit, minimum and step 0.01 unit. */
export const fakeSymbols = (): FakeSymbolSpec[] => [
  {
    symbolId: 1,
    name: 'EURUSD',
    digits: 5,
    lotSize: 10_000_000,
    minVolume: 100_000,
    stepVolume: 100_000,
    maxVolume: 10_000_000_000,
    baseAssetId: 2,
    quoteAssetId: 1,
    bid: 1.085,
    ask: 1.0852,
  },
  {
    symbolId: 101,
    name: 'BTCUSD',
    digits: 2,
    lotSize: 100,
    minVolume: 1,
    stepVolume: 1,
    maxVolume: 10_000,
    baseAssetId: 3,
    quoteAssetId: 1,
    bid: 65000,
    ask: 65010,
  },
];

interface Session {
  readonly socket: WebSocket;
  appAuthed: boolean;
  /** The application the link authenticated (its clientId). */
  app: string;
  /** The accounts authorized on the link, with the access token each was authorized with. */
  readonly accounts: Map<number, string>;
  readonly spots: Set<number>;
}

interface Tokens {
  /** The application the pair was issued to: another application's link is refused the token. */
  readonly app: string;
  access: string;
  refresh: string;
  /** Access tokens that no longer work (expired, or replaced by a refresh). */
  readonly dead: Set<string>;
  renewals: number;
}

export interface FakeCTraderOptions {
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** The server's time (ms); defaults to Date.now. */
  readonly clock?: () => number;
}

export class FakeCTrader {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly symbols = fakeSymbols();
  /** Every request frame seen, by payload type. */
  readonly requests: number[] = [];
  /** Every request frame seen. */
  readonly frames: Frame[] = [];
  /** Refuse new links (close them at once) while true. */
  down = false;
  /** The next new order is executed, and its requester hears nothing about it (a lost answer). */
  swallowNextOrderAnswer = false;
  /**
   * The ProtoOAErrorRes code a refresh token the endpoint does not know answers. Spotware's
   * ProtoOAErrorCode lists none of its own for it; CH_ACCESS_TOKEN_INVALID by default, set to try others.
   */
  refreshRefusalCode = 'CH_ACCESS_TOKEN_INVALID';
  /** expiresIn (seconds) of the pairs a refresh answers. */
  tokenLifetimeSeconds = 2_628_000;
  private server: WebSocketServer | null = null;
  private readonly sessions = new Set<Session>();
  private readonly accounts = new Map<number, FakeCTraderAccount>();
  private readonly tokens = new Map<number, Tokens>();
  private readonly cashFlows = new Map<number, ProtoOADepositWithdraw[]>();
  /** clientId → clientSecret of the applications the endpoint accepts. */
  private readonly applications = new Map<string, string>();
  private nextId = 1000;
  private readonly now: () => number;

  constructor(options: FakeCTraderOptions = {}) {
    this.clientId = options.clientId ?? 'app-id';
    this.clientSecret = options.clientSecret ?? 'app-secret';
    this.applications.set(this.clientId, this.clientSecret);
    this.now = options.clock ?? Date.now;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error('the fake cTrader is not started');
    return `ws://127.0.0.1:${address.port}`;
  }

  async start(): Promise<void> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (socket) => {
      if (this.down) return socket.terminate();
      const session: Session = { socket, appAuthed: false, app: '', accounts: new Map(), spots: new Set() };
      this.sessions.add(session);
      socket.on('message', (data) => {
        const frame = parseFrame(data.toString());
        if (frame) this.onFrame(session, frame);
      });
      socket.on('close', () => this.sessions.delete(session));
      socket.on('error', () => undefined);
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    for (const session of this.sessions) session.socket.terminate();
    this.sessions.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Another Open API application (a brand's own) the endpoint accepts, besides the one of the options. */
  addApplication(clientId: string, clientSecret: string): void {
    this.applications.set(clientId, clientSecret);
  }

  /** `clientId`: the application its tokens are issued to (the fake's own by default). */
  addAccount(account: {
    ctid: number;
    traderLogin: number;
    token: string;
    refreshToken?: string;
    isLive?: boolean;
    balance?: number;
    clientId?: string;
  }): void {
    const context: FakeBookContext = {
      symbols: this.symbols,
      now: this.now,
      nextId: () => this.nextId++,
      announce: (owner, requester, events) => this.announce(owner, requester, events),
    };
    this.accounts.set(
      account.ctid,
      new FakeCTraderAccount(account.ctid, account.traderLogin, account.isLive ?? false, Math.round((account.balance ?? 10_000) * 100), context),
    );
    this.tokens.set(account.ctid, {
      app: account.clientId ?? this.clientId,
      access: account.token,
      refresh: account.refreshToken ?? `refresh-of-${account.token}`,
      dead: new Set(),
      renewals: 0,
    });
  }

  /** Drops every link (the adapter should reconnect). */
  dropAll(): void {
    for (const session of this.sessions) session.socket.terminate();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The orders of an account, oldest first (a pending order that filled or was cancelled once, in its last state). */
  ordersOf(ctid: number): readonly ProtoOAOrder[] {
    return this.account(ctid).orders;
  }

  positionsOf(ctid: number): readonly ProtoOAPosition[] {
    return this.account(ctid).openPositions();
  }

  pendingOf(ctid: number): readonly ProtoOAOrder[] {
    return [...this.account(ctid).pending.values()];
  }

  /** The account's token pair now, and how many times it was renewed. */
  tokensOf(ctid: number): { readonly accessToken: string; readonly refreshToken: string; readonly renewals: number } {
    const tokens = this.tokenState(ctid);
    return { accessToken: tokens.access, refreshToken: tokens.refresh, renewals: tokens.renewals };
  }

  /**
   * The account's access token stops working (its refresh token still does): requests of links that
   * authorized the account with it answer OA_AUTH_TOKEN_EXPIRED, and with `notify` those links hear
   * ProtoOAAccountsTokenInvalidatedEvent first.
   */
  expireToken(ctid: number, notify = false): void {
    const tokens = this.tokenState(ctid);
    tokens.dead.add(tokens.access);
    if (!notify) return;
    for (const session of this.sessions) {
      if (session.accounts.get(ctid) === tokens.access)
        this.push(session, PT.ACCOUNTS_TOKEN_INVALIDATED_EVENT, { ctidTraderAccountIds: [ctid], reason: 'the access token expired' });
    }
  }

  setPrice(name: string, bid: number, ask: number): void {
    const symbol = this.symbolNamed(name);
    symbol.bid = bid;
    symbol.ask = ask;
    for (const session of this.sessions) {
      if (!session.spots.has(symbol.symbolId)) continue;
      for (const ctid of session.accounts.keys()) this.push(session, PT.SPOT_EVENT, this.spot(ctid, symbol));
    }
    for (const account of this.accounts.values()) account.priceMoved(symbol);
  }

  /** A market order placed by the user in cTrader (no clientOrderId). */
  openManually(ctid: number, name: string, side: 'buy' | 'sell', volumeCents: number): number {
    const order = this.account(ctid).fill(
      {
        symbolId: this.symbolNamed(name).symbolId,
        orderType: ORDER_TYPE.MARKET,
        tradeSide: side === 'buy' ? TRADE_SIDE.BUY : TRADE_SIDE.SELL,
        volume: volumeCents,
      },
      null,
      null,
    );
    return int(order.positionId);
  }

  /**
   * A deposit (amount > 0) or withdrawal (< 0) the broker books on the account, `at` ms (now by
   * default): the balance moves, ProtoOACashFlowHistoryListReq lists it, and links that authorized the
   * account hear it as a DEPOSIT_WITHDRAW execution event. Answers its balanceHistoryId.
   */
  cashFlow(ctid: number, amount: number, options: { at?: number; note?: string; operationType?: number } = {}): number {
    const account = this.account(ctid);
    const delta = Math.round(Math.abs(amount) * 100);
    account.balance += amount < 0 ? -delta : delta;
    const operation: ProtoOADepositWithdraw = {
      operationType: options.operationType ?? (amount < 0 ? 1 : 0),
      balanceHistoryId: this.nextId++,
      balance: account.balance,
      delta,
      changeBalanceTimestamp: options.at ?? this.now(),
      moneyDigits: 2,
      ...(options.note !== undefined ? { externalNote: options.note } : {}),
    };
    this.cashFlowsOf(ctid).push(operation);
    this.announce(account, null, [{ executionType: EXECUTION.DEPOSIT_WITHDRAW, depositWithdraw: operation }]);
    return int(operation.balanceHistoryId);
  }

  /** A close made by the user in cTrader (all of the position by default). */
  closeManually(ctid: number, positionId: number, volumeCents?: number): void {
    const account = this.account(ctid);
    const position = account.positions.get(positionId);
    if (!position) throw new Error(`position ${positionId} is not open`);
    account.close(position.id, volumeCents ?? position.volume, null);
  }

  // ------------------------------------------------------------------ the protocol

  private onFrame(session: Session, frame: Frame): void {
    this.requests.push(frame.payloadType);
    this.frames.push(frame);
    const id = frame.clientMsgId;
    const p = (frame.payload ?? {}) as Record<string, unknown>;
    const reply = (payloadType: number, payload: object) => this.push(session, payloadType, payload, id);
    const error = (errorCode: string, description: string, ctid?: number) =>
      reply(PT.ERROR_RES, { errorCode, description, ...(ctid !== undefined ? { ctidTraderAccountId: ctid } : {}) });
    if (frame.payloadType === PT.HEARTBEAT_EVENT) return reply(PT.HEARTBEAT_EVENT, {});
    if (frame.payloadType === PT.APPLICATION_AUTH_REQ) {
      if (typeof p.clientId !== 'string' || this.applications.get(p.clientId) !== p.clientSecret)
        return error('CH_CLIENT_AUTH_FAILURE', 'wrong client credentials');
      session.appAuthed = true;
      session.app = p.clientId;
      return reply(PT.APPLICATION_AUTH_RES, {});
    }
    if (!session.appAuthed) return error('CH_CLIENT_NOT_AUTHENTICATED', 'authenticate the application first');
    if (frame.payloadType === PT.REFRESH_TOKEN_REQ) {
      const entry = [...this.tokens].find(([, t]) => t.refresh === p.refreshToken && t.app === session.app);
      if (!entry) return error(this.refreshRefusalCode, 'invalid refresh token');
      const [ctid, tokens] = entry;
      tokens.dead.add(tokens.access);
      tokens.renewals++;
      tokens.access = `access-${ctid}-${tokens.renewals}`;
      tokens.refresh = `refresh-${ctid}-${tokens.renewals}`;
      return reply(PT.REFRESH_TOKEN_RES, {
        accessToken: tokens.access,
        tokenType: 'bearer',
        expiresIn: this.tokenLifetimeSeconds,
        refreshToken: tokens.refresh,
      });
    }
    if (frame.payloadType === PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_REQ) {
      const mine = [...this.accounts.values()].filter(
        (a) =>
          this.tokenState(a.ctid).app === session.app &&
          this.tokenState(a.ctid).access === p.accessToken &&
          !this.tokenState(a.ctid).dead.has(p.accessToken as string),
      );
      if (mine.length === 0) return error('CH_ACCESS_TOKEN_INVALID', 'invalid access token');
      return reply(PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_RES, {
        accessToken: p.accessToken,
        permissionScope: 1,
        ctidTraderAccount: mine.map((a) => ({ ctidTraderAccountId: a.ctid, isLive: a.isLive, traderLogin: a.traderLogin, brokerTitleShort: 'Fake Broker' })),
      });
    }
    const ctid = int(p.ctidTraderAccountId as Int64 | undefined);
    if (frame.payloadType === PT.ACCOUNT_AUTH_REQ) {
      const tokens = this.tokens.get(ctid);
      if (!tokens || tokens.app !== session.app || tokens.access !== p.accessToken || tokens.dead.has(tokens.access))
        return error('CH_ACCESS_TOKEN_INVALID', 'invalid access token', ctid);
      session.accounts.set(ctid, tokens.access);
      return reply(PT.ACCOUNT_AUTH_RES, { ctidTraderAccountId: ctid });
    }
    const authorizedWith = session.accounts.get(ctid);
    if (authorizedWith === undefined) return error('ACCOUNT_NOT_AUTHORIZED', 'the account is not authorized on this link', ctid);
    if (this.tokenState(ctid).dead.has(authorizedWith)) return error('OA_AUTH_TOKEN_EXPIRED', 'the access token expired', ctid);
    const account = this.account(ctid);
    switch (frame.payloadType) {
      case PT.TRADER_REQ:
        return reply(PT.TRADER_RES, {
          ctidTraderAccountId: ctid,
          trader: {
            ctidTraderAccountId: ctid,
            balance: account.balance,
            depositAssetId: 1,
            leverageInCents: 10_000,
            accountType: 0,
            traderLogin: account.traderLogin,
            brokerName: 'Fake Broker',
            moneyDigits: 2,
          },
        });
      case PT.ASSET_LIST_REQ:
        return reply(PT.ASSET_LIST_RES, { ctidTraderAccountId: ctid, asset: FAKE_ASSETS });
      case PT.SYMBOLS_LIST_REQ:
        return reply(PT.SYMBOLS_LIST_RES, {
          ctidTraderAccountId: ctid,
          symbol: this.symbols.map((s) => ({
            symbolId: s.symbolId,
            symbolName: s.name,
            enabled: true,
            baseAssetId: s.baseAssetId,
            quoteAssetId: s.quoteAssetId,
            description: `${s.name} at the fake broker`,
          })),
        });
      case PT.SYMBOL_BY_ID_REQ: {
        const ids = ((p.symbolId as Int64[] | undefined) ?? []).map(int);
        return reply(PT.SYMBOL_BY_ID_RES, { ctidTraderAccountId: ctid, symbol: this.symbols.filter((s) => ids.includes(s.symbolId)).map(fullSymbol) });
      }
      case PT.SUBSCRIBE_SPOTS_REQ: {
        const ids = ((p.symbolId as Int64[] | undefined) ?? []).map(int);
        for (const symbolId of ids) session.spots.add(symbolId);
        reply(PT.SUBSCRIBE_SPOTS_RES, { ctidTraderAccountId: ctid });
        for (const symbolId of ids) {
          const symbol = this.symbols.find((s) => s.symbolId === symbolId);
          if (symbol) this.push(session, PT.SPOT_EVENT, this.spot(ctid, symbol));
        }
        return;
      }
      case PT.RECONCILE_REQ:
        return reply(PT.RECONCILE_RES, { ctidTraderAccountId: ctid, position: account.openPositions(), order: [...account.pending.values()] });
      case PT.DEAL_LIST_REQ: {
        const from = int(p.fromTimestamp as Int64 | undefined);
        const to = p.toTimestamp === undefined ? Number.MAX_SAFE_INTEGER : int(p.toTimestamp as Int64);
        const deal = account.deals.filter((d) => int(d.executionTimestamp) >= from && int(d.executionTimestamp) <= to);
        return reply(PT.DEAL_LIST_RES, { ctidTraderAccountId: ctid, deal, hasMore: false });
      }
      case PT.CASH_FLOW_HISTORY_LIST_REQ: {
        const from = int(p.fromTimestamp as Int64 | undefined);
        const to = int(p.toTimestamp as Int64 | undefined);
        if (p.toTimestamp === undefined || to - from > 604_800_000) return error('INVALID_REQUEST', 'toTimestamp - fromTimestamp must be at most a week', ctid);
        const depositWithdraw = this.cashFlowsOf(ctid).filter((o) => int(o.changeBalanceTimestamp) >= from && int(o.changeBalanceTimestamp) <= to);
        return reply(PT.CASH_FLOW_HISTORY_LIST_RES, { ctidTraderAccountId: ctid, depositWithdraw });
      }
      case PT.ORDER_LIST_REQ: {
        const from = int(p.fromTimestamp as Int64 | undefined);
        const to = p.toTimestamp === undefined ? Number.MAX_SAFE_INTEGER : int(p.toTimestamp as Int64);
        const order = account.orders.filter((o) => int(o.tradeData.openTimestamp) >= from && int(o.tradeData.openTimestamp) <= to);
        return reply(PT.ORDER_LIST_RES, { ctidTraderAccountId: ctid, order, hasMore: false });
      }
      case PT.NEW_ORDER_REQ:
      case PT.CANCEL_ORDER_REQ:
      case PT.AMEND_ORDER_REQ:
      case PT.AMEND_POSITION_SLTP_REQ:
      case PT.CLOSE_POSITION_REQ:
        return this.trade(session, account, frame.payloadType, p, id);
      default:
        return error('UNSUPPORTED_MESSAGE', `the fake does not know payload type ${frame.payloadType}`, ctid);
    }
  }

  /** A trading request: its execution events, or its refusal as ProtoOAOrderErrorEvent. */
  private trade(session: Session, account: FakeCTraderAccount, payloadType: number, p: Record<string, unknown>, clientMsgId: string | undefined): void {
    const requester: Requester = { session, ...(clientMsgId ? { clientMsgId } : {}) };
    try {
      switch (payloadType) {
        case PT.NEW_ORDER_REQ: {
          const swallow = this.swallowNextOrderAnswer;
          this.swallowNextOrderAnswer = false;
          account.place(newOrderOf(p), swallow ? { session, swallow: true } : requester);
          return;
        }
        case PT.CANCEL_ORDER_REQ:
          return account.cancel(int(p.orderId as Int64), requester);
        case PT.AMEND_ORDER_REQ:
          return account.amendOrder(p, requester);
        case PT.AMEND_POSITION_SLTP_REQ:
          return account.amendPosition(p, requester);
        default:
          return account.close(int(p.positionId as Int64), int(p.volume as Int64), requester);
      }
    } catch (error) {
      if (!(error instanceof FakeOrderError)) throw error;
      this.push(session, PT.ORDER_ERROR_EVENT, { ctidTraderAccountId: account.ctid, errorCode: error.errorCode, description: error.message }, clientMsgId);
    }
  }

  /** Execution events: to the requester with its clientMsgId (unless swallowed), to the account's other sessions without. */
  private announce(account: FakeCTraderAccount, requester: Requester | null, events: readonly object[]): void {
    for (const session of this.sessions) {
      if (!session.accounts.has(account.ctid)) continue;
      const mine = requester?.session === session;
      if (mine && requester.swallow) continue;
      for (const event of events)
        this.push(session, PT.EXECUTION_EVENT, { ctidTraderAccountId: account.ctid, ...event }, mine ? requester.clientMsgId : undefined);
    }
  }

  private spot(ctid: number, symbol: FakeSymbolSpec): object {
    return {
      ctidTraderAccountId: ctid,
      symbolId: symbol.symbolId,
      bid: Math.round(symbol.bid * 100_000),
      ask: Math.round(symbol.ask * 100_000),
      timestamp: this.now(),
    };
  }

  private push(session: Session, payloadType: number, payload: object, clientMsgId?: string): void {
    if (session.socket.readyState !== session.socket.OPEN) return;
    session.socket.send(JSON.stringify({ ...(clientMsgId ? { clientMsgId } : {}), payloadType, payload }));
  }

  private account(ctid: number): FakeCTraderAccount {
    const account = this.accounts.get(ctid);
    if (!account) throw new Error(`no fake cTrader account ${ctid}`);
    return account;
  }

  private cashFlowsOf(ctid: number): ProtoOADepositWithdraw[] {
    let list = this.cashFlows.get(ctid);
    if (!list) this.cashFlows.set(ctid, (list = []));
    return list;
  }

  private tokenState(ctid: number): Tokens {
    const tokens = this.tokens.get(ctid);
    if (!tokens) throw new Error(`no fake cTrader account ${ctid}`);
    return tokens;
  }

  private symbolNamed(name: string): FakeSymbolSpec {
    const symbol = this.symbols.find((s) => s.name === name);
    if (!symbol) throw new Error(`no fake cTrader symbol ${name}`);
    return symbol;
  }
}

const fullSymbol = (s: FakeSymbolSpec): ProtoOASymbol => ({
  symbolId: s.symbolId,
  digits: s.digits,
  pipPosition: s.digits - 1,
  minVolume: s.minVolume,
  stepVolume: s.stepVolume,
  maxVolume: s.maxVolume,
  lotSize: s.lotSize,
  swapLong: 0,
  swapShort: 0,
  tradingMode: 0,
});
