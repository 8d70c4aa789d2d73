// The private WebSocket streams of the fake exchange (fakeExchange.ts), on its own port, as ccxt pro
// speaks them (engine/venues/ccxt/stream.ts), each with its real authentication and event shapes:
//   - binance      the WebSocket API (/ws-api/v3): userDataStream.subscribe.signature with the HMAC
//                  of the sorted params, then {subscriptionId, event: executionReport};
//   - binanceusdm  a listenKey (POST/PUT/DELETE /fapi/v1/listenKey, X-MBX-APIKEY) and the user data
//                  stream /private/ws?listenKey=… (also /ws/<listenKey>): ORDER_TRADE_UPDATE events;
//   - bybit        /v5/private: op auth (HMAC of "GET/realtime" + expires), op subscribe to `order`,
//                  op ping → pong, then {topic: 'order', data: [v5 order]};
//   - okx          /ws/v5/private: op login (apiKey, passphrase, timestamp within 30 s and the base64
//                  HMAC of timestamp + "GET/users/self/verify"), op subscribe to channel `orders`
//                  (instType ANY, SPOT, SWAP...), the text ping → pong, then {arg, data: [v5 order]}.
// Every order the exchange places, fills or cancels is pushed to the streams of its account.
// Switches for the tests: `down` (connections refused with 503, open ones dropped), `repeat` (every
// event sent twice), `lose` (the next events are never sent), `sent` (events pushed so far), `deaf` (keep-alive pings go unanswered: the socket
// stays open but is dead to the client), `pings` (keep-alive pings heard so far: Bybit's op ping, OKX's
// text ping, and the WebSocket protocol's ping frames Binance's streams are kept alive by).
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { DialectApi, FakeExchange, FakeOrder, FakeTrade, Reply } from './fakeExchange.js';
import { hmac, num } from './fakeExchange.js';
import { binanceStatus } from './fakeExchangeBinance.js';
import { bybitOrderJson } from './fakeExchangeBybit.js';
import { okxOrderJson } from './fakeExchangeOkx.js';

interface Session {
  readonly socket: WebSocket;
  apiKey: string | null;
  /** Bybit: the topics subscribed; Binance: 'orders' once subscribed; OKX: the `orders` channel's instType. */
  readonly topics: Set<string>;
  /** Binance spot's subscription id. */
  subscriptionId: number;
}

export class FakeExchangeStreams {
  // Protocol pings are answered here (not by ws itself), so `deaf` can leave them unanswered.
  private readonly wss = new WebSocketServer({ noServer: true, autoPong: false });
  private readonly sessions = new Set<Session>();
  private readonly listenKeys = new Map<string, string>();
  private nextSubscription = 0;
  /** While true, stream connections are refused (503) and the open ones were dropped. */
  private isDown = false;
  /** Every event is sent twice (a stream that repeats itself must not double anything). */
  repeat = false;
  /** Events pushed so far. */
  sent = 0;
  /** Authentications refused so far. */
  refused = 0;
  /** Keep-alive pings heard so far, answered or not. */
  pings = 0;
  /** While true, keep-alive pings are heard but not answered. */
  deaf = false;
  /** The next this many events are lost (never sent: a stream that missed them). */
  lose = 0;

  constructor(private readonly exchange: FakeExchange) {}

  get down(): boolean {
    return this.isDown;
  }

  set down(value: boolean) {
    this.isDown = value;
    if (value) for (const s of this.sessions) s.socket.terminate();
  }

  /** Connections open and authenticated now. */
  get open(): number {
    return [...this.sessions].filter((s) => s.apiKey !== null && s.topics.size > 0).length;
  }

  attach(server: http.Server): void {
    server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  close(): void {
    for (const s of this.sessions) s.socket.terminate();
    this.wss.close();
  }

  /** The exchange placed, filled or cancelled an order: its account's streams hear of it. */
  tell(order: FakeOrder, fill: FakeTrade | null): void {
    const tradeId = fill ? fill.id : -1;
    for (const s of this.sessions) {
      if (s.apiKey !== order.apiKey || s.topics.size === 0) continue;
      const event = this.eventOf(order, fill, tradeId, s);
      if (!event) continue;
      if (this.lose > 0) {
        this.lose -= 1;
        continue;
      }
      for (let i = 0; i < (this.repeat ? 2 : 1); i++) {
        s.socket.send(JSON.stringify(event));
        this.sent += 1;
      }
    }
  }

  /** The listenKey requests of Binance USDⓈ-M (a key of the account's, no signature). */
  readonly api: DialectApi = (exchange, request): Reply | null => {
    if (request.path !== '/fapi/v1/listenKey') return null;
    const apiKey = String(request.headers['x-mbx-apikey'] ?? '');
    if (!exchange.accounts.has(apiKey)) return { status: 401, json: { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' } };
    if (request.method === 'POST') {
      const key = [...this.listenKeys].find(([, owner]) => owner === apiKey)?.[0] ?? `lk${randomUUID().replace(/-/g, '')}`;
      this.listenKeys.set(key, apiKey);
      return { status: 200, json: { listenKey: key } };
    }
    if (request.method === 'PUT') return { status: 200, json: {} };
    if (request.method === 'DELETE') return { status: 200, json: {} };
    return null;
  };

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const dialect = this.exchange.dialect;
    const listenKey = url.searchParams.get('listenKey') ?? /^\/ws\/(.+)$/.exec(url.pathname)?.[1] ?? null;
    const known =
      (dialect === 'binance' && url.pathname === '/ws-api/v3') ||
      (dialect === 'binanceusdm' && listenKey !== null && (url.pathname === '/private/ws' || url.pathname.startsWith('/ws/'))) ||
      (dialect === 'bybit' && url.pathname === '/v5/private') ||
      (dialect === 'okx' && url.pathname === '/ws/v5/private');
    if (this.isDown || !known || (dialect === 'binanceusdm' && !this.listenKeys.has(listenKey!))) {
      socket.end(`HTTP/1.1 ${this.isDown ? '503 Service Unavailable' : '404 Not Found'}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const session: Session = { socket: ws, apiKey: null, topics: new Set(), subscriptionId: -1 };
      // Binance USDⓈ-M: the listenKey is the authentication, and the stream is the account's at once.
      if (dialect === 'binanceusdm') {
        session.apiKey = this.listenKeys.get(listenKey!)!;
        session.topics.add('orders');
      }
      this.sessions.add(session);
      ws.on('close', () => this.sessions.delete(session));
      ws.on('ping', (data: Buffer) => {
        this.pings += 1;
        if (!this.deaf) ws.pong(data);
      });
      ws.on('message', (data: Buffer) => {
        // OKX's keep-alive is the text `ping`, answered `pong` (not JSON).
        if (dialect === 'okx' && data.toString() === 'ping') {
          this.pings += 1;
          return void (this.deaf || ws.send('pong'));
        }
        let message: Record<string, unknown>;
        try {
          message = JSON.parse(data.toString()) as Record<string, unknown>;
        } catch {
          return;
        }
        const reply =
          dialect === 'bybit'
            ? this.bybit(session, message)
            : dialect === 'binance'
              ? this.binance(session, message)
              : dialect === 'okx'
                ? this.okx(session, message)
                : null;
        if (reply) ws.send(JSON.stringify(reply));
      });
    });
  }

  /** Binance spot's WebSocket API requests. */
  private binance(session: Session, message: Record<string, unknown>): Record<string, unknown> | null {
    const id = message.id;
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (message.method === 'ping') {
      this.pings += 1;
      return this.deaf ? null : { id, status: 200, result: {} };
    }
    if (message.method !== 'userDataStream.subscribe.signature')
      return { id, status: 400, error: { code: -1100, msg: `unknown method ${String(message.method)}` } };
    const apiKey = String(params.apiKey ?? '');
    const account = this.exchange.accounts.get(apiKey);
    if (!account) {
      this.refused += 1;
      return { id, status: 401, error: { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' } };
    }
    const payload = Object.keys(params)
      .filter((k) => k !== 'signature')
      .sort()
      .map((k) => `${k}=${String(params[k])}`)
      .join('&');
    if (params.signature !== hmac(account.secret, payload)) {
      this.refused += 1;
      return { id, status: 400, error: { code: -1022, msg: 'Signature for this request is not valid.' } };
    }
    session.apiKey = apiKey;
    session.subscriptionId = this.nextSubscription++;
    session.topics.add('orders');
    return { id, status: 200, result: { subscriptionId: session.subscriptionId } };
  }

  /** Bybit v5's private stream requests. */
  private bybit(session: Session, message: Record<string, unknown>): Record<string, unknown> | null {
    const connId = 'fake-conn';
    const args = Array.isArray(message.args) ? (message.args as unknown[]) : [];
    if (message.op === 'ping') {
      this.pings += 1;
      return this.deaf ? null : { req_id: message.req_id, op: 'pong', args: [String(Date.now())], conn_id: connId };
    }
    if (message.op === 'auth') {
      const [apiKey, expires, signature] = args.map(String);
      const account = this.exchange.accounts.get(apiKey ?? '');
      if (!account || signature !== hmac(account.secret, `GET/realtime${expires}`)) {
        this.refused += 1;
        return { success: false, ret_msg: 'error:USVC1111', op: 'auth', conn_id: connId, request: { op: 'auth', args } };
      }
      session.apiKey = apiKey!;
      return { success: true, ret_msg: '', op: 'auth', conn_id: connId };
    }
    if (message.op === 'subscribe') {
      if (!session.apiKey) return { success: false, ret_msg: 'Request not authorized', op: 'subscribe', conn_id: connId, req_id: message.req_id };
      for (const topic of args) session.topics.add(String(topic));
      return { success: true, ret_msg: '', op: 'subscribe', conn_id: connId, req_id: message.req_id };
    }
    return { success: false, ret_msg: `error:invalid op ${String(message.op)}`, conn_id: connId, request: message };
  }

  /** OKX v5's private stream requests (login, then subscribe to `orders`). */
  private okx(session: Session, message: Record<string, unknown>): Record<string, unknown> {
    const connId = 'fake-okx-conn';
    const args = (Array.isArray(message.args) ? (message.args as unknown[]) : []) as Record<string, unknown>[];
    if (message.op === 'login') {
      const { apiKey, passphrase, timestamp, sign } = (args[0] ?? {}) as Record<string, string | undefined>;
      const account = this.exchange.accounts.get(apiKey ?? '');
      const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 30;
      if (!account || !fresh || passphrase !== account.passphrase || sign !== hmac(account.secret, `${timestamp}GET/users/self/verify`, 'base64')) {
        this.refused += 1;
        return { event: 'error', code: '60009', msg: 'Login failed.', connId };
      }
      session.apiKey = apiKey!;
      return { event: 'login', code: '0', msg: '', connId };
    }
    if (message.op === 'subscribe') {
      if (!session.apiKey) return { event: 'error', code: '60011', msg: 'Please log in', connId };
      const arg = args[0] ?? {};
      if (arg.channel !== 'orders') return { event: 'error', code: '60018', msg: `Wrong URL or channel:${String(arg.channel)} doesn't exist.`, connId };
      session.topics.add(String(arg.instType ?? 'ANY'));
      return { event: 'subscribe', arg, connId };
    }
    return { event: 'error', code: '60012', msg: `Illegal request: ${JSON.stringify(message)}`, connId };
  }

  private eventOf(o: FakeOrder, fill: FakeTrade | null, tradeId: number, session: Session): Record<string, unknown> | null {
    const now = Date.now();
    const execution = fill ? 'TRADE' : o.status === 'CANCELED' ? 'CANCELED' : 'NEW';
    const status = binanceStatus(o);
    if (this.exchange.dialect === 'binance') {
      return {
        subscriptionId: session.subscriptionId,
        event: {
          e: 'executionReport',
          E: now,
          s: o.symbol,
          c: o.clientOrderId,
          S: o.side,
          o: o.type,
          f: 'GTC',
          q: num(o.origQty),
          p: num(o.price),
          P: num(0),
          F: num(0),
          g: -1,
          C: '',
          x: execution,
          X: status,
          r: 'NONE',
          i: o.orderId,
          l: num(fill?.qty ?? 0),
          z: num(o.executedQty),
          L: num(fill?.price ?? 0),
          // The fee of this fill (not the order's total) and its coin.
          n: num(fill?.commission ?? 0),
          N: fill ? fill.commissionAsset : null,
          T: o.updateTime,
          t: tradeId,
          I: o.orderId * 10 + 1,
          w: o.status === 'NEW',
          m: false,
          M: false,
          O: o.time,
          Z: num(o.cummulativeQuoteQty),
          Y: num((fill?.qty ?? 0) * (fill?.price ?? 0)),
          Q: num(0),
          W: o.time,
          V: 'EXPIRE_MAKER',
        },
      };
    }
    if (this.exchange.dialect === 'binanceusdm') {
      return {
        e: 'ORDER_TRADE_UPDATE',
        E: now,
        T: o.updateTime,
        o: {
          s: o.symbol,
          c: o.clientOrderId,
          S: o.side,
          o: o.type,
          f: 'GTC',
          q: String(o.origQty),
          p: String(o.price),
          ap: o.executedQty > 0 ? String(o.cummulativeQuoteQty / o.executedQty) : '0',
          sp: '0',
          x: execution,
          X: status,
          i: o.orderId,
          l: String(fill?.qty ?? 0),
          z: String(o.executedQty),
          L: String(fill?.price ?? 0),
          N: fill?.commissionAsset ?? 'USDT',
          n: String(fill?.commission ?? 0),
          T: o.updateTime,
          t: fill ? tradeId : 0,
          b: '0',
          a: '0',
          m: false,
          R: o.reduceOnly,
          wt: 'CONTRACT_PRICE',
          ot: o.origType ?? o.type,
          ps: 'BOTH',
          cp: o.closePosition === true,
          rp: String(fill?.realizedPnl ?? 0),
          pP: false,
          si: 0,
          ss: 0,
          V: 'EXPIRE_MAKER',
          pm: 'NONE',
          gtd: 0,
        },
      };
    }
    if (this.exchange.dialect === 'bybit') {
      if (!session.topics.has('order')) return null;
      const market = this.exchange.markets.get(o.symbol)!;
      return { id: randomUUID(), topic: 'order', creationTime: now, data: [{ category: 'linear', ...bybitOrderJson(o, market) }] };
    }
    if (this.exchange.dialect === 'okx') {
      const json = okxOrderJson(o);
      const instType = [...session.topics][0] ?? 'ANY';
      if (instType !== 'ANY' && instType !== json.instType) return null;
      // The stream's order carries its last fill (fillSz, fillPx, fillFee) besides the totals the REST order has.
      // The fake fills an order at once, so its one fill paid the whole fee.
      const last = fill
        ? { fillSz: String(fill.qty), fillPx: String(fill.price), tradeId: String(tradeId), fillFee: json.fee }
        : { fillSz: '0', fillPx: '', tradeId: '', fillFee: '0' };
      return {
        arg: { channel: 'orders', instType, uid: 'fake-uid' },
        data: [
          {
            ...json,
            ...last,
            fillFeeCcy: json.feeCcy,
            execType: fill ? 'T' : '',
            amendResult: '',
            code: '0',
            msg: '',
            reqId: '',
            notionalUsd: '',
          },
        ],
      };
    }
    return null;
  }
}
