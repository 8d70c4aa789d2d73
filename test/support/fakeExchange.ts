// A local fake of Binance's spot REST API (/api/v3), enough of it for ccxt's `binance` class pointed at
// it through CCXT_BASE_URL (engine/venues/ccxt/): exchangeInfo with the PRICE_FILTER, LOT_SIZE and
// NOTIONAL filters, tickers, the signed account, order (new, query by id or client id, cancel),
// openOrders and allOrders endpoints, with Binance's HMAC-SHA256 signatures checked and Binance's error
// bodies (-2015 bad key, -1022 bad signature, -2010 insufficient balance, -1013 filter failure,
// -2013 no such order). Market orders fill at once at the ask (buy) or bid (sell); limit orders rest
// until the price crosses them (setPrice). Everything stays on 127.0.0.1.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeMarket {
  readonly symbol: string;
  readonly base: string;
  readonly quote: string;
  readonly tickSize: string;
  readonly stepSize: string;
  readonly minQty: string;
  readonly maxQty: string;
  readonly minNotional: string;
  bid: number;
  ask: number;
}

export interface FakeOrder {
  readonly orderId: number;
  readonly apiKey: string;
  readonly symbol: string;
  readonly clientOrderId: string;
  readonly side: 'BUY' | 'SELL';
  readonly type: 'MARKET' | 'LIMIT';
  readonly origQty: number;
  readonly price: number;
  executedQty: number;
  cummulativeQuoteQty: number;
  status: 'NEW' | 'FILLED' | 'CANCELED';
  readonly time: number;
  updateTime: number;
}

interface FakeAccount {
  readonly secret: string;
  readonly balances: Map<string, number>;
}

const num = (value: number, decimals = 8): string => value.toFixed(decimals);

export class FakeExchange {
  readonly markets = new Map<string, FakeMarket>();
  readonly orders: FakeOrder[] = [];
  /** Every request, method and path. */
  readonly requests: string[] = [];
  private readonly accounts = new Map<string, FakeAccount>();
  private nextOrderId = 1000;
  /** The next order placement answers 429 (too many requests) and places nothing. */
  rateLimitNextOrder = false;
  /** While true, every request answers 503 (the exchange is unreachable). */
  down = false;
  /** The next order placement is applied, then answered only after this many milliseconds (a timeout after the order reached the exchange). */
  delayNextOrderAnswerMs = 0;
  private server: http.Server | null = null;
  private port = 0;

  constructor() {
    this.addMarket({
      symbol: 'BTCUSDT',
      base: 'BTC',
      quote: 'USDT',
      tickSize: '0.01',
      stepSize: '0.00001',
      minQty: '0.00001',
      maxQty: '9000',
      minNotional: '5',
      bid: 65000,
      ask: 65000.01,
    });
    this.addMarket({
      symbol: 'ETHUSDT',
      base: 'ETH',
      quote: 'USDT',
      tickSize: '0.01',
      stepSize: '0.0001',
      minQty: '0.0001',
      maxQty: '9000',
      minNotional: '5',
      bid: 3200,
      ask: 3200.01,
    });
  }

  addMarket(market: FakeMarket): void {
    this.markets.set(market.symbol, market);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** An account with these API credentials and balances. */
  addAccount(apiKey: string, secret: string, balances: Record<string, number>): void {
    this.accounts.set(apiKey, { secret, balances: new Map(Object.entries(balances)) });
  }

  balance(apiKey: string, asset: string): number {
    return this.accounts.get(apiKey)?.balances.get(asset) ?? 0;
  }

  /** Moves a market's price; resting limit orders it crosses fill. */
  setPrice(symbol: string, bid: number, ask: number): void {
    const market = this.markets.get(symbol);
    if (!market) throw new Error(`no market ${symbol}`);
    market.bid = bid;
    market.ask = ask;
    for (const order of this.orders) {
      if (order.symbol !== symbol || order.status !== 'NEW') continue;
      if ((order.side === 'BUY' && ask <= order.price) || (order.side === 'SELL' && bid >= order.price)) this.fill(order, order.price);
    }
  }

  /** An order the account's owner places at the exchange itself (not through the service). */
  placeManually(apiKey: string, symbol: string, side: 'BUY' | 'SELL', quantity: number): FakeOrder {
    const result = this.place(apiKey, { symbol, side, type: 'MARKET', quantity: String(quantity), newClientOrderId: `manual-${this.nextOrderId}` });
    if ('code' in result) throw new Error(result.msg);
    return result;
  }

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        void this.handle(req, body).then(({ status, json, delayMs }) => {
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(status, { 'content-type': 'application/json' });
            res.end(JSON.stringify(json));
          };
          if (delayMs) setTimeout(send, delayMs).unref();
          else send();
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: http.IncomingMessage, body: string): Promise<{ status: number; json: unknown; delayMs?: number }> {
    await Promise.resolve();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    this.requests.push(`${method} ${url.pathname}`);
    if (this.down) return { status: 503, json: { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' } };
    const path = url.pathname;
    if (method === 'GET' && path === '/api/v3/ping') return { status: 200, json: {} };
    if (method === 'GET' && path === '/api/v3/time') return { status: 200, json: { serverTime: Date.now() } };
    if (method === 'GET' && path === '/api/v3/exchangeInfo') return { status: 200, json: this.exchangeInfo() };
    if (method === 'GET' && (path === '/api/v3/ticker/24hr' || path === '/api/v3/ticker/bookTicker')) {
      const symbol = url.searchParams.get('symbol');
      const tickers = [...this.markets.values()].filter((m) => !symbol || m.symbol === symbol).map((m) => this.ticker(m));
      return { status: 200, json: symbol ? tickers[0] : tickers };
    }
    // Signed endpoints.
    const raw = method === 'POST' ? body : url.search.slice(1);
    const params = new URLSearchParams(raw);
    const account = this.accounts.get(String(req.headers['x-mbx-apikey'] ?? ''));
    if (!account) return { status: 401, json: { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' } };
    const signed = raw.replace(/&signature=[0-9a-f]+$/, '');
    const signature = createHmac('sha256', account.secret).update(signed).digest('hex');
    if (params.get('signature') !== signature) return { status: 400, json: { code: -1022, msg: 'Signature for this request is not valid.' } };
    const apiKey = String(req.headers['x-mbx-apikey']);
    if (method === 'GET' && path === '/api/v3/account') {
      return {
        status: 200,
        json: {
          makerCommission: 10,
          takerCommission: 10,
          canTrade: true,
          canWithdraw: true,
          canDeposit: true,
          updateTime: Date.now(),
          accountType: 'SPOT',
          permissions: ['SPOT'],
          balances: [...account.balances].map(([asset, free]) => ({ asset, free: num(free), locked: num(this.locked(apiKey, asset)) })),
        },
      };
    }
    if (method === 'POST' && path === '/api/v3/order') {
      if (this.rateLimitNextOrder) {
        this.rateLimitNextOrder = false;
        return { status: 429, json: { code: -1003, msg: 'Too many requests; current limit of IP is 6000 requests per minute.' } };
      }
      const delayMs = this.delayNextOrderAnswerMs;
      this.delayNextOrderAnswerMs = 0;
      const result = this.place(apiKey, Object.fromEntries(params));
      if ('code' in result) return { status: 400, json: result };
      return { status: 200, json: this.orderJson(result), delayMs };
    }
    if ((method === 'GET' || method === 'DELETE') && path === '/api/v3/order') {
      const orderId = params.get('orderId');
      const clientId = params.get('origClientOrderId');
      const order = this.orders.find(
        (o) => o.apiKey === apiKey && o.symbol === params.get('symbol') && (orderId ? String(o.orderId) === orderId : o.clientOrderId === clientId),
      );
      if (!order) return { status: 400, json: { code: -2013, msg: 'Order does not exist.' } };
      if (method === 'DELETE') {
        if (order.status !== 'NEW') return { status: 400, json: { code: -2011, msg: 'Unknown order sent.' } };
        order.status = 'CANCELED';
        order.updateTime = Date.now();
      }
      return { status: 200, json: this.orderJson(order) };
    }
    if (method === 'GET' && (path === '/api/v3/openOrders' || path === '/api/v3/allOrders')) {
      const symbol = params.get('symbol');
      const orders = this.orders.filter((o) => o.apiKey === apiKey && (!symbol || o.symbol === symbol) && (path === '/api/v3/allOrders' || o.status === 'NEW'));
      return { status: 200, json: orders.map((o) => this.orderJson(o)) };
    }
    return { status: 404, json: { code: -1000, msg: `fake exchange: no ${method} ${path}` } };
  }

  private locked(apiKey: string, asset: string): number {
    let locked = 0;
    for (const o of this.orders) {
      if (o.apiKey !== apiKey || o.status !== 'NEW') continue;
      const market = this.markets.get(o.symbol)!;
      if (o.side === 'BUY' && market.quote === asset) locked += o.origQty * o.price;
      if (o.side === 'SELL' && market.base === asset) locked += o.origQty;
    }
    return locked;
  }

  private place(apiKey: string, p: Record<string, string>): FakeOrder | { code: number; msg: string } {
    const account = this.accounts.get(apiKey)!;
    const market = this.markets.get(p.symbol ?? '');
    if (!market) return { code: -1121, msg: 'Invalid symbol.' };
    const clientOrderId = p.newClientOrderId ?? `fake-${this.nextOrderId}`;
    if (this.orders.some((o) => o.apiKey === apiKey && o.clientOrderId === clientOrderId && o.status === 'NEW'))
      return { code: -2010, msg: 'Duplicate order sent.' };
    const quantity = Number(p.quantity);
    const step = Number(market.stepSize);
    if (!(quantity >= Number(market.minQty)) || quantity > Number(market.maxQty) || Math.abs(Math.round(quantity / step) * step - quantity) > step / 1e6) {
      return { code: -1013, msg: 'Filter failure: LOT_SIZE' };
    }
    const side = p.side === 'SELL' ? 'SELL' : 'BUY';
    const type = p.type === 'LIMIT' ? 'LIMIT' : 'MARKET';
    const price = type === 'LIMIT' ? Number(p.price) : side === 'BUY' ? market.ask : market.bid;
    if (quantity * price < Number(market.minNotional)) return { code: -1013, msg: 'Filter failure: NOTIONAL' };
    const free = (asset: string) => (account.balances.get(asset) ?? 0) - this.locked(apiKey, asset);
    if (side === 'BUY' ? free(market.quote) < quantity * price : free(market.base) < quantity) {
      return { code: -2010, msg: 'Account has insufficient balance for requested action.' };
    }
    const now = Date.now();
    const order: FakeOrder = {
      orderId: this.nextOrderId++,
      apiKey,
      symbol: market.symbol,
      clientOrderId,
      side,
      type,
      origQty: quantity,
      price: type === 'LIMIT' ? price : 0,
      executedQty: 0,
      cummulativeQuoteQty: 0,
      status: 'NEW',
      time: now,
      updateTime: now,
    };
    this.orders.push(order);
    const marketable = type === 'MARKET' || (side === 'BUY' ? market.ask <= price : market.bid >= price);
    if (marketable) this.fill(order, type === 'MARKET' ? price : side === 'BUY' ? market.ask : market.bid);
    return order;
  }

  private fill(order: FakeOrder, price: number): void {
    const account = this.accounts.get(order.apiKey)!;
    const market = this.markets.get(order.symbol)!;
    const add = (asset: string, amount: number) => account.balances.set(asset, (account.balances.get(asset) ?? 0) + amount);
    const sign = order.side === 'BUY' ? 1 : -1;
    add(market.base, sign * order.origQty);
    add(market.quote, -sign * order.origQty * price);
    order.executedQty = order.origQty;
    order.cummulativeQuoteQty = order.origQty * price;
    order.status = 'FILLED';
    order.updateTime = Date.now();
  }

  private orderJson(o: FakeOrder): Record<string, unknown> {
    return {
      symbol: o.symbol,
      orderId: o.orderId,
      orderListId: -1,
      clientOrderId: o.clientOrderId,
      price: num(o.price),
      origQty: num(o.origQty),
      executedQty: num(o.executedQty),
      cummulativeQuoteQty: num(o.cummulativeQuoteQty),
      status: o.status,
      timeInForce: o.type === 'LIMIT' ? 'GTC' : 'GTC',
      type: o.type,
      side: o.side,
      stopPrice: '0.00000000',
      time: o.time,
      transactTime: o.time,
      updateTime: o.updateTime,
      workingTime: o.time,
      isWorking: true,
      origQuoteOrderQty: '0.00000000',
      selfTradePreventionMode: 'EXPIRE_MAKER',
    };
  }

  private ticker(m: FakeMarket): Record<string, unknown> {
    return {
      symbol: m.symbol,
      priceChange: '0',
      priceChangePercent: '0',
      weightedAvgPrice: String(m.bid),
      lastPrice: String(m.bid),
      bidPrice: String(m.bid),
      bidQty: '1',
      askPrice: String(m.ask),
      askQty: '1',
      openPrice: String(m.bid),
      highPrice: String(m.ask),
      lowPrice: String(m.bid),
      volume: '100',
      quoteVolume: String(100 * m.bid),
      openTime: Date.now() - 86_400_000,
      closeTime: Date.now(),
      count: 1,
    };
  }

  private exchangeInfo(): Record<string, unknown> {
    return {
      timezone: 'UTC',
      serverTime: Date.now(),
      rateLimits: [],
      exchangeFilters: [],
      symbols: [...this.markets.values()].map((m) => ({
        symbol: m.symbol,
        status: 'TRADING',
        baseAsset: m.base,
        baseAssetPrecision: 8,
        quoteAsset: m.quote,
        quotePrecision: 8,
        quoteAssetPrecision: 8,
        baseCommissionPrecision: 8,
        quoteCommissionPrecision: 8,
        orderTypes: ['LIMIT', 'LIMIT_MAKER', 'MARKET', 'STOP_LOSS_LIMIT', 'TAKE_PROFIT_LIMIT'],
        icebergAllowed: true,
        ocoAllowed: true,
        quoteOrderQtyMarketAllowed: true,
        allowTrailingStop: true,
        cancelReplaceAllowed: true,
        isSpotTradingAllowed: true,
        isMarginTradingAllowed: false,
        filters: [
          { filterType: 'PRICE_FILTER', minPrice: m.tickSize, maxPrice: '1000000.00', tickSize: m.tickSize },
          { filterType: 'LOT_SIZE', minQty: m.minQty, maxQty: m.maxQty, stepSize: m.stepSize },
          { filterType: 'NOTIONAL', minNotional: m.minNotional, applyMinToMarket: true, maxNotional: '9000000', applyMaxToMarket: false, avgPriceMins: 5 },
        ],
        permissions: [],
        permissionSets: [['SPOT']],
        defaultSelfTradePreventionMode: 'EXPIRE_MAKER',
        allowedSelfTradePreventionModes: ['EXPIRE_MAKER'],
      })),
    };
  }
}
