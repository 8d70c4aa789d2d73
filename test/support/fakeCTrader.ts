// A cTrader Open API endpoint in TypeScript, for the tests: a local WebSocket server speaking the JSON
// protocol of engine/venues/ctrader/protocol.ts (`{clientMsgId, payloadType, payload}` frames) the way
// Spotware's proxies do for the messages the adapter uses: application auth, the token's account list,
// account auth, trader, assets, symbols (volumes in cents of units, lotSize), spots (1/100 000), reconcile,
// market orders (execution events ORDER_ACCEPTED then ORDER_FILLED, to the requester with its clientMsgId
// and to the account's other sessions without), position closes (a closing deal with
// closePositionDetail), deal and order lists, heartbeats, and errors as ProtoOAErrorRes /
// ProtoOAOrderErrorEvent. A hedged USD account, one position per order. Test controls: prices, a close
// or an order made "in cTrader" by hand, dropping every link, refusing links, and swallowing the answer
// to the next order (it is executed, the requester hears nothing).
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  type Frame,
  int,
  type Int64,
  DEAL_STATUS,
  EXECUTION,
  ORDER_STATUS,
  ORDER_TYPE,
  parseFrame,
  POSITION_STATUS,
  PT,
  type ProtoOADeal,
  type ProtoOAOrder,
  type ProtoOAPosition,
  type ProtoOASymbol,
  TRADE_SIDE,
} from '../../engine/venues/ctrader/protocol.js';

export interface FakeSymbolSpec {
  readonly symbolId: number;
  readonly name: string;
  readonly digits: number;
  /** Cents of units. */
  readonly lotSize: number;
  readonly minVolume: number;
  readonly stepVolume: number;
  readonly maxVolume: number;
  readonly baseAssetId: number;
  readonly quoteAssetId: number;
  bid: number;
  ask: number;
}

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

interface FakeAccount {
  readonly ctid: number;
  readonly traderLogin: number;
  readonly token: string;
  readonly isLive: boolean;
  /** USD cents. */
  balance: number;
  readonly positions: Map<
    number,
    { id: number; symbolId: number; side: number; volume: number; price: number; openTimestamp: number; label?: string; comment?: string }
  >;
  readonly deals: ProtoOADeal[];
  readonly orders: ProtoOAOrder[];
}

interface Session {
  readonly socket: WebSocket;
  appAuthed: boolean;
  readonly accounts: Set<number>;
  readonly spots: Set<number>;
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
  /** Refuse new links (close them at once) while true. */
  down = false;
  /** The next new order is executed, and its requester hears nothing about it (a lost answer). */
  swallowNextOrderAnswer = false;
  private server: WebSocketServer | null = null;
  private readonly sessions = new Set<Session>();
  private readonly accounts = new Map<number, FakeAccount>();
  private nextId = 1000;
  private readonly now: () => number;

  constructor(options: FakeCTraderOptions = {}) {
    this.clientId = options.clientId ?? 'app-id';
    this.clientSecret = options.clientSecret ?? 'app-secret';
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
      const session: Session = { socket, appAuthed: false, accounts: new Set(), spots: new Set() };
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

  addAccount(account: { ctid: number; traderLogin: number; token: string; isLive?: boolean; balance?: number }): void {
    this.accounts.set(account.ctid, {
      ctid: account.ctid,
      traderLogin: account.traderLogin,
      token: account.token,
      isLive: account.isLive ?? false,
      balance: Math.round((account.balance ?? 10_000) * 100),
      positions: new Map(),
      deals: [],
      orders: [],
    });
  }

  /** Drops every link (the adapter should reconnect). */
  dropAll(): void {
    for (const session of this.sessions) session.socket.terminate();
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The orders of an account, oldest first. */
  ordersOf(ctid: number): readonly ProtoOAOrder[] {
    return this.account(ctid).orders;
  }

  positionsOf(ctid: number): readonly ProtoOAPosition[] {
    return [...this.account(ctid).positions.values()].map((p) => this.positionMessage(this.account(ctid), p.id, POSITION_STATUS.OPEN));
  }

  setPrice(name: string, bid: number, ask: number): void {
    const symbol = this.symbolNamed(name);
    symbol.bid = bid;
    symbol.ask = ask;
    for (const session of this.sessions) {
      if (!session.spots.has(symbol.symbolId)) continue;
      for (const ctid of session.accounts) this.push(session, PT.SPOT_EVENT, this.spot(ctid, symbol));
    }
  }

  /** A market order placed by the user in cTrader (no clientOrderId). */
  openManually(ctid: number, name: string, side: 'buy' | 'sell', volumeCents: number): number {
    const account = this.account(ctid);
    const { order } = this.execute(
      account,
      { symbolId: this.symbolNamed(name).symbolId, tradeSide: side === 'buy' ? TRADE_SIDE.BUY : TRADE_SIDE.SELL, volume: volumeCents },
      null,
    );
    return int(order.positionId);
  }

  /** A close made by the user in cTrader (all of the position by default). */
  closeManually(ctid: number, positionId: number, volumeCents?: number): void {
    const account = this.account(ctid);
    const position = account.positions.get(positionId);
    if (!position) throw new Error(`position ${positionId} is not open`);
    this.close(account, position.id, volumeCents ?? position.volume, null);
  }

  // ------------------------------------------------------------------ the protocol

  private onFrame(session: Session, frame: Frame): void {
    this.requests.push(frame.payloadType);
    const id = frame.clientMsgId;
    const p = (frame.payload ?? {}) as Record<string, unknown>;
    const reply = (payloadType: number, payload: object) => this.push(session, payloadType, payload, id);
    const error = (errorCode: string, description: string, ctid?: number) =>
      reply(PT.ERROR_RES, { errorCode, description, ...(ctid !== undefined ? { ctidTraderAccountId: ctid } : {}) });
    if (frame.payloadType === PT.HEARTBEAT_EVENT) return reply(PT.HEARTBEAT_EVENT, {});
    if (frame.payloadType === PT.APPLICATION_AUTH_REQ) {
      if (p.clientId !== this.clientId || p.clientSecret !== this.clientSecret) return error('CH_CLIENT_AUTH_FAILURE', 'wrong client credentials');
      session.appAuthed = true;
      return reply(PT.APPLICATION_AUTH_RES, {});
    }
    if (!session.appAuthed) return error('CH_CLIENT_NOT_AUTHENTICATED', 'authenticate the application first');
    if (frame.payloadType === PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_REQ) {
      const mine = [...this.accounts.values()].filter((a) => a.token === p.accessToken);
      if (mine.length === 0) return error('CH_ACCESS_TOKEN_INVALID', 'invalid access token');
      return reply(PT.GET_ACCOUNTS_BY_ACCESS_TOKEN_RES, {
        accessToken: p.accessToken,
        permissionScope: 1,
        ctidTraderAccount: mine.map((a) => ({ ctidTraderAccountId: a.ctid, isLive: a.isLive, traderLogin: a.traderLogin, brokerTitleShort: 'Fake Broker' })),
      });
    }
    const ctid = int(p.ctidTraderAccountId as Int64 | undefined);
    if (frame.payloadType === PT.ACCOUNT_AUTH_REQ) {
      const account = this.accounts.get(ctid);
      if (!account || account.token !== p.accessToken) return error('CH_ACCESS_TOKEN_INVALID', 'invalid access token', ctid);
      session.accounts.add(ctid);
      return reply(PT.ACCOUNT_AUTH_RES, { ctidTraderAccountId: ctid });
    }
    if (!session.accounts.has(ctid)) return error('ACCOUNT_NOT_AUTHORIZED', 'the account is not authorized on this link', ctid);
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
        return reply(PT.RECONCILE_RES, { ctidTraderAccountId: ctid, position: this.positionsOf(ctid), order: [] });
      case PT.DEAL_LIST_REQ: {
        const from = int(p.fromTimestamp as Int64 | undefined);
        const to = p.toTimestamp === undefined ? Number.MAX_SAFE_INTEGER : int(p.toTimestamp as Int64);
        const deal = account.deals.filter((d) => int(d.executionTimestamp) >= from && int(d.executionTimestamp) <= to);
        return reply(PT.DEAL_LIST_RES, { ctidTraderAccountId: ctid, deal, hasMore: false });
      }
      case PT.ORDER_LIST_REQ: {
        const from = int(p.fromTimestamp as Int64 | undefined);
        const to = p.toTimestamp === undefined ? Number.MAX_SAFE_INTEGER : int(p.toTimestamp as Int64);
        const order = account.orders.filter((o) => int(o.tradeData.openTimestamp) >= from && int(o.tradeData.openTimestamp) <= to);
        return reply(PT.ORDER_LIST_RES, { ctidTraderAccountId: ctid, order, hasMore: false });
      }
      case PT.NEW_ORDER_REQ: {
        const symbol = this.symbols.find((s) => s.symbolId === int(p.symbolId as Int64));
        if (!symbol)
          return this.push(session, PT.ORDER_ERROR_EVENT, { ctidTraderAccountId: ctid, errorCode: 'SYMBOL_NOT_FOUND', description: 'unknown symbol' }, id);
        if (p.orderType !== ORDER_TYPE.MARKET) return error('INVALID_REQUEST', 'the fake takes market orders only', ctid);
        const volume = int(p.volume as Int64);
        if (volume < symbol.minVolume || volume > symbol.maxVolume || volume % symbol.stepVolume !== 0) {
          return this.push(
            session,
            PT.ORDER_ERROR_EVENT,
            { ctidTraderAccountId: ctid, errorCode: 'TRADING_BAD_VOLUME', description: `volume ${volume} is invalid` },
            id,
          );
        }
        const swallow = this.swallowNextOrderAnswer;
        this.swallowNextOrderAnswer = false;
        this.execute(
          account,
          {
            symbolId: symbol.symbolId,
            tradeSide: int(p.tradeSide as Int64),
            volume,
            clientOrderId: p.clientOrderId as string | undefined,
            label: p.label as string | undefined,
            comment: p.comment as string | undefined,
          },
          swallow ? { session, swallow: true } : { session, clientMsgId: id },
        );
        return;
      }
      case PT.CLOSE_POSITION_REQ: {
        const position = account.positions.get(int(p.positionId as Int64));
        if (!position)
          return this.push(session, PT.ORDER_ERROR_EVENT, { ctidTraderAccountId: ctid, errorCode: 'POSITION_NOT_FOUND', description: 'no such position' }, id);
        const volume = int(p.volume as Int64);
        if (volume <= 0 || volume > position.volume) {
          return this.push(
            session,
            PT.ORDER_ERROR_EVENT,
            { ctidTraderAccountId: ctid, errorCode: 'TRADING_BAD_VOLUME', description: `cannot close ${volume}` },
            id,
          );
        }
        this.close(account, position.id, volume, { session, clientMsgId: id });
        return;
      }
      default:
        return error('UNSUPPORTED_MESSAGE', `the fake does not know payload type ${frame.payloadType}`, ctid);
    }
  }

  private execute(
    account: FakeAccount,
    o: { symbolId: number; tradeSide: number; volume: number; clientOrderId?: string; label?: string; comment?: string },
    requester: { session: Session; clientMsgId?: string; swallow?: boolean } | null,
  ): { order: ProtoOAOrder } {
    const symbol = this.symbols.find((s) => s.symbolId === o.symbolId)!;
    const now = this.now();
    const price = o.tradeSide === TRADE_SIDE.BUY ? symbol.ask : symbol.bid;
    const positionId = this.nextId++;
    account.positions.set(positionId, {
      id: positionId,
      symbolId: o.symbolId,
      side: o.tradeSide,
      volume: o.volume,
      price,
      openTimestamp: now,
      ...(o.label ? { label: o.label } : {}),
      ...(o.comment ? { comment: o.comment } : {}),
    });
    const tradeData = { symbolId: o.symbolId, volume: o.volume, tradeSide: o.tradeSide, openTimestamp: now, ...(o.label ? { label: o.label } : {}) };
    const order: ProtoOAOrder = {
      orderId: this.nextId++,
      tradeData,
      orderType: ORDER_TYPE.MARKET,
      orderStatus: ORDER_STATUS.FILLED,
      executionPrice: price,
      executedVolume: o.volume,
      utcLastUpdateTimestamp: now,
      positionId,
      ...(o.clientOrderId ? { clientOrderId: o.clientOrderId } : {}),
    };
    account.orders.push(order);
    const deal: ProtoOADeal = {
      dealId: this.nextId++,
      orderId: order.orderId,
      positionId,
      volume: o.volume,
      filledVolume: o.volume,
      symbolId: o.symbolId,
      createTimestamp: now,
      executionTimestamp: now,
      executionPrice: price,
      tradeSide: o.tradeSide,
      dealStatus: DEAL_STATUS.FILLED,
      commission: 0,
      moneyDigits: 2,
    };
    account.deals.push(deal);
    const position = this.positionMessage(account, positionId, POSITION_STATUS.OPEN);
    this.announce(account, requester, [
      { executionType: EXECUTION.ORDER_ACCEPTED, order: { ...order, orderStatus: ORDER_STATUS.ACCEPTED }, position },
      { executionType: EXECUTION.ORDER_FILLED, order, position, deal },
    ]);
    return { order };
  }

  private close(account: FakeAccount, positionId: number, volume: number, requester: { session: Session; clientMsgId?: string } | null): void {
    const position = account.positions.get(positionId)!;
    const symbol = this.symbols.find((s) => s.symbolId === position.symbolId)!;
    const now = this.now();
    const closeSide = position.side === TRADE_SIDE.BUY ? TRADE_SIDE.SELL : TRADE_SIDE.BUY;
    const price = closeSide === TRADE_SIDE.SELL ? symbol.bid : symbol.ask;
    const units = volume / 100;
    // Profit in the quote currency, USD here (the deposit currency): cents.
    const grossProfit = Math.round((price - position.price) * units * (position.side === TRADE_SIDE.BUY ? 1 : -1) * 100);
    account.balance += grossProfit;
    const remaining = position.volume - volume;
    if (remaining > 0) position.volume = remaining;
    const before = this.positionMessage(account, positionId, remaining > 0 ? POSITION_STATUS.OPEN : POSITION_STATUS.CLOSED, volume);
    if (remaining <= 0) account.positions.delete(positionId);
    const order: ProtoOAOrder = {
      orderId: this.nextId++,
      tradeData: { symbolId: position.symbolId, volume, tradeSide: closeSide, openTimestamp: now },
      orderType: ORDER_TYPE.MARKET,
      orderStatus: ORDER_STATUS.FILLED,
      executionPrice: price,
      executedVolume: volume,
      utcLastUpdateTimestamp: now,
      closingOrder: true,
      positionId,
    };
    account.orders.push(order);
    const deal: ProtoOADeal = {
      dealId: this.nextId++,
      orderId: order.orderId,
      positionId,
      volume,
      filledVolume: volume,
      symbolId: position.symbolId,
      createTimestamp: now,
      executionTimestamp: now,
      executionPrice: price,
      tradeSide: closeSide,
      dealStatus: DEAL_STATUS.FILLED,
      commission: 0,
      moneyDigits: 2,
      closePositionDetail: { entryPrice: position.price, grossProfit, swap: 0, commission: 0, balance: account.balance, closedVolume: volume, moneyDigits: 2 },
    };
    account.deals.push(deal);
    this.announce(account, requester, [
      { executionType: EXECUTION.ORDER_ACCEPTED, order: { ...order, orderStatus: ORDER_STATUS.ACCEPTED }, position: before },
      { executionType: EXECUTION.ORDER_FILLED, order, position: before, deal },
    ]);
  }

  /** Execution events: to the requester with its clientMsgId (unless swallowed), to the account's other sessions without. */
  private announce(account: FakeAccount, requester: { session: Session; clientMsgId?: string; swallow?: boolean } | null, events: readonly object[]): void {
    for (const session of this.sessions) {
      if (!session.accounts.has(account.ctid)) continue;
      const mine = requester?.session === session;
      if (mine && requester.swallow) continue;
      for (const event of events)
        this.push(session, PT.EXECUTION_EVENT, { ctidTraderAccountId: account.ctid, ...event }, mine ? requester.clientMsgId : undefined);
    }
  }

  private positionMessage(account: FakeAccount, positionId: number, status: number, volume?: number): ProtoOAPosition {
    const p = account.positions.get(positionId)!;
    return {
      positionId: p.id,
      tradeData: {
        symbolId: p.symbolId,
        volume: volume ?? p.volume,
        tradeSide: p.side,
        openTimestamp: p.openTimestamp,
        ...(p.label ? { label: p.label } : {}),
        ...(p.comment ? { comment: p.comment } : {}),
      },
      positionStatus: status,
      swap: 0,
      price: p.price,
      utcLastUpdateTimestamp: this.now(),
      commission: 0,
      moneyDigits: 2,
    };
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

  private account(ctid: number): FakeAccount {
    const account = this.accounts.get(ctid);
    if (!account) throw new Error(`no fake cTrader account ${ctid}`);
    return account;
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
