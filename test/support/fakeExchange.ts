// A local fake crypto exchange for ccxt pointed at it through CCXT_BASE_URL (engine/venues/ccxt/). One
// matching core (accounts, markets, orders, fills) speaks the REST dialect of the exchange it plays, as
// ccxt calls it, with that exchange's signature checked and its real JSON shapes and error codes:
//   - `binance`      Binance spot /api/v3 (fakeExchangeBinance.ts): exchangeInfo filters, HMAC-SHA256 hex of the query;
//   - `binanceusdm`  Binance USDⓈ-M futures /fapi (fakeExchangeBinanceUsdm.ts), the same signature;
//   - `bybit`        Bybit v5 linear (fakeExchangeBybit.ts): X-BAPI-* headers, retCode bodies;
//   - `okx`          OKX v5 spot and USDT-margined swaps (fakeExchangeOkx.ts): OK-ACCESS-* headers, base64
//                    signatures, passphrase; swap contracts of ctVal coins (BTC-USDT-SWAP: 0.01 BTC).
// Market orders fill at once at the ask (buy) or bid (sell); limit orders rest until the price crosses
// them (setPrice). Spot fills move coins; linear (USDT-margined perpetual) fills move a net position per
// symbol whose realized profit goes to the USDT wallet. Everything stays on 127.0.0.1.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { binanceSpotApi } from './fakeExchangeBinance.js';
import { binanceUsdmApi, type FakeAlgoOrder, triggerAlgoOrders } from './fakeExchangeBinanceUsdm.js';
import { bybitApi } from './fakeExchangeBybit.js';
import { okxApi } from './fakeExchangeOkx.js';
import { ageOkxAlgos, triggerOkxAlgos } from './fakeExchangeOkxAlgo.js';
import { FakeExchangeStreams } from './fakeExchangeStream.js';

export type FakeDialect = 'binance' | 'binanceusdm' | 'bybit' | 'okx';

export interface FakeMarket {
  /** The exchange's market id (BTCUSDT; OKX: BTC-USDT). */
  readonly symbol: string;
  readonly base: string;
  readonly quote: string;
  readonly tickSize: string;
  readonly stepSize: string;
  readonly minQty: string;
  readonly maxQty: string;
  /** '0': none. */
  readonly minNotional: string;
  /** spot: coins; linear: a USDT-margined perpetual (a contract of `contractSize` coins). */
  readonly kind?: 'spot' | 'linear';
  /** Coins per contract on linear markets (OKX's ctVal); 1 unless said. Notional, margin, profit and fees scale by it. */
  readonly contractSize?: number;
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
  origQty: number;
  price: number;
  /** A stop (conditional) order: it fills at market once the price reaches this; null: none. */
  triggerPrice: number | null;
  /** Set on the position when the order fills (Bybit's attached stop loss / take profit); null: none. */
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  /** '' or what placed it: the position's StopLoss / TakeProfit. */
  readonly stopOrderType: '' | 'StopLoss' | 'TakeProfit';
  executedQty: number;
  /** Filled amount × price (on a contract market the value is this × contractSize). */
  cummulativeQuoteQty: number;
  /** The fees its fills paid, in the quote currency (feeRate of their value). */
  fee: number;
  /** Of those, the coins taken from what a spot buy bought (Binance, OKX); absent: none. */
  baseFee?: number;
  status: 'NEW' | 'FILLED' | 'CANCELED';
  time: number;
  updateTime: number;
  readonly reduceOnly: boolean;
  /** Binance USDⓈ-M: the conditional order type that placed it when an algo order triggered (STOP_MARKET...). */
  readonly origType?: string;
  /** Binance USDⓈ-M: placed by a close-all algo order (closePosition). */
  readonly closePosition?: boolean;
}

/** One fill of an order (Binance's account trade list: /api/v3/myTrades, /fapi/v1/userTrades; the streams' trade id). */
export interface FakeTrade {
  readonly id: number;
  readonly orderId: number;
  readonly apiKey: string;
  readonly symbol: string;
  readonly side: 'BUY' | 'SELL';
  readonly qty: number;
  readonly price: number;
  /** The fee it paid, in `commissionAsset`. */
  readonly commission: number;
  readonly commissionAsset: string;
  /** Linear markets: the profit it realized. */
  readonly realizedPnl: number;
  time: number;
}

export interface FakeAccount {
  readonly secret: string;
  /** OKX only. */
  readonly passphrase: string | null;
  readonly balances: Map<string, number>;
  /** Linear markets: net contracts per symbol (negative = short) and their average price. */
  readonly positions: Map<string, FakePosition>;
}

export interface FakePosition {
  qty: number;
  price: number;
  stopLoss: number | null;
  takeProfit: number | null;
  /** When it opened (ms). */
  createdTime?: number;
  /** When it last changed (ms): a fill, and at Binance a margin or funding change too (touch). */
  updatedTime?: number;
}

export interface PlaceRequest {
  readonly symbol: string;
  readonly side: 'BUY' | 'SELL';
  readonly type: 'MARKET' | 'LIMIT';
  readonly quantity: number;
  readonly price?: number;
  readonly clientOrderId?: string;
  readonly reduceOnly?: boolean;
  readonly triggerPrice?: number | null;
  readonly stopLoss?: number | null;
  readonly takeProfit?: number | null;
  readonly stopOrderType?: '' | 'StopLoss' | 'TakeProfit';
  readonly origType?: string;
  readonly closePosition?: boolean;
}

export type Refusal = { readonly refusal: 'symbol' | 'duplicate' | 'lot' | 'notional' | 'balance'; readonly message: string };

export interface Reply {
  readonly status: number;
  readonly json: unknown;
  readonly delayMs?: number;
}

export interface FakeRequest {
  readonly method: string;
  readonly url: URL;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One exchange's REST dialect: answers the requests it knows, null for the others. */
export type DialectApi = (exchange: FakeExchange, request: FakeRequest) => Reply | null;

export const num = (value: number, decimals = 8): string => value.toFixed(decimals);
export const hmac = (secret: string, payload: string, encoding: 'hex' | 'base64' = 'hex'): string =>
  createHmac('sha256', secret).update(payload).digest(encoding);
const isRefusal = (value: FakeOrder | Refusal): value is Refusal => 'refusal' in value;
export { isRefusal };

/** Leverage the fake charges margin at on linear markets. */
export const LEVERAGE = 10;

/** Coins per contract (1 on spot and where the exchange's contract is one coin). */
export const sizeOf = (market: FakeMarket): number => market.contractSize ?? 1;

const DEFAULT_MARKETS: Readonly<Record<FakeDialect, readonly Omit<FakeMarket, 'bid' | 'ask'>[]>> = {
  binance: [
    { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', tickSize: '0.01', stepSize: '0.00001', minQty: '0.00001', maxQty: '9000', minNotional: '5' },
    { symbol: 'ETHUSDT', base: 'ETH', quote: 'USDT', tickSize: '0.01', stepSize: '0.0001', minQty: '0.0001', maxQty: '9000', minNotional: '5' },
  ],
  // Binance USDⓈ-M's real filters: 0.001 BTC steps and a 100 USDT minimum notional on BTCUSDT.
  binanceusdm: [
    { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', tickSize: '0.10', stepSize: '0.001', minQty: '0.001', maxQty: '1000', minNotional: '100', kind: 'linear' },
    { symbol: 'ETHUSDT', base: 'ETH', quote: 'USDT', tickSize: '0.01', stepSize: '0.001', minQty: '0.001', maxQty: '10000', minNotional: '20', kind: 'linear' },
  ],
  // Bybit v5 linear: BTCUSDT qtyStep 0.001, minNotionalValue 5.
  bybit: [
    { symbol: 'BTCUSDT', base: 'BTC', quote: 'USDT', tickSize: '0.10', stepSize: '0.001', minQty: '0.001', maxQty: '1190', minNotional: '5', kind: 'linear' },
    { symbol: 'ETHUSDT', base: 'ETH', quote: 'USDT', tickSize: '0.01', stepSize: '0.01', minQty: '0.01', maxQty: '7240', minNotional: '5', kind: 'linear' },
  ],
  // OKX spot: BTC-USDT lotSz 0.00000001 and minSz 0.00001 (no minimum notional).
  okx: [
    { symbol: 'BTC-USDT', base: 'BTC', quote: 'USDT', tickSize: '0.1', stepSize: '0.00000001', minQty: '0.00001', maxQty: '9999999999', minNotional: '0' },
    { symbol: 'ETH-USDT', base: 'ETH', quote: 'USDT', tickSize: '0.01', stepSize: '0.000001', minQty: '0.001', maxQty: '9999999999', minNotional: '0' },
    // OKX USDT-margined swaps as real OKX lists them: BTC-USDT-SWAP ctVal 0.01 BTC, ETH-USDT-SWAP 0.1 ETH; lotSz and minSz 0.01 contracts.
    {
      symbol: 'BTC-USDT-SWAP',
      base: 'BTC',
      quote: 'USDT',
      tickSize: '0.1',
      stepSize: '0.01',
      minQty: '0.01',
      maxQty: '100000',
      minNotional: '0',
      kind: 'linear',
      contractSize: 0.01,
    },
    {
      symbol: 'ETH-USDT-SWAP',
      base: 'ETH',
      quote: 'USDT',
      tickSize: '0.01',
      stepSize: '0.01',
      minQty: '0.01',
      maxQty: '100000',
      minNotional: '0',
      kind: 'linear',
      contractSize: 0.1,
    },
  ],
};

const DIALECTS: readonly DialectApi[] = [binanceSpotApi, binanceUsdmApi, bybitApi, okxApi];

export class FakeExchange {
  readonly markets = new Map<string, FakeMarket>();
  readonly orders: FakeOrder[] = [];
  /** Binance USDⓈ-M's conditional (algo) orders, apart from the orders until one triggers (fakeExchangeBinanceUsdm.ts). */
  readonly algoOrders: FakeAlgoOrder[] = [];
  /** Every fill, oldest first (Binance's trade lists read them). */
  readonly trades: FakeTrade[] = [];
  private nextTradeId = 1;
  /** Every request, method and path. */
  readonly requests: string[] = [];
  readonly accounts = new Map<string, FakeAccount>();
  private nextOrderId = 1000;
  /** The next order placement answers 429 (too many requests) and places nothing. */
  rateLimitNextOrder = false;
  /**
   * The fee of a fill, as a share of its value, taken from the quote balance (OKX and Bybit tell it on the
   * order); Binance and OKX spot take a buy's from the coins bought (that share of them), as they do (Binance
   * unless BNB pays). `FakeOrder.fee` is always its value in the quote currency.
   */
  feeRate = 0;
  /** The coin fees are charged in (Binance's BNB discount: the fee is taken from that coin's balance); null: the market's quote. */
  feeAsset: string | null = null;
  /** While true, every request answers 503 (the exchange is unreachable). */
  down = false;
  /** The next order placement is applied, then answered only after this many milliseconds (a timeout after the order reached the exchange). */
  delayNextOrderAnswerMs = 0;
  /**
   * The exchange's clock (ms): what its orders, fills and positions are stamped with and where the
   * windows of its lists end. A spec sets the service's clock here to move both forward together
   * (days while the service is down); Binance USDⓈ-M's lists follow it, the other dialects' the real clock.
   */
  clock: () => number = Date.now;
  now(): number {
    return this.clock();
  }
  private server: http.Server | null = null;
  /** The private WebSocket streams (fakeExchangeStream.ts), on the same port. */
  readonly streams = new FakeExchangeStreams(this);
  private port = 0;

  constructor(readonly dialect: FakeDialect = 'binance') {
    for (const market of DEFAULT_MARKETS[dialect]) {
      const btc = market.base === 'BTC';
      this.addMarket({ ...market, bid: btc ? 65000 : 3200, ask: btc ? 65000.1 : 3200.01 });
    }
    if (dialect === 'binance') this.markets.get('BTCUSDT')!.ask = 65000.01;
  }

  addMarket(market: FakeMarket): void {
    this.markets.set(market.symbol, market);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** An account with these API credentials and balances (OKX: a passphrase too). */
  addAccount(apiKey: string, secret: string, balances: Record<string, number>, passphrase: string | null = null): void {
    this.accounts.set(apiKey, { secret, passphrase, balances: new Map(Object.entries(balances)), positions: new Map() });
  }

  balance(apiKey: string, asset: string): number {
    return this.accounts.get(apiKey)?.balances.get(asset) ?? 0;
  }

  /** Moves every order and position of the exchange `ms` into the past (Bybit and OKX list closed orders for 7 days only). */
  age(ms: number): void {
    for (const order of this.orders) {
      order.time -= ms;
      order.updateTime -= ms;
    }
    for (const algo of this.algoOrders) {
      algo.createTime -= ms;
      algo.updateTime -= ms;
    }
    for (const trade of this.trades) trade.time -= ms;
    if (this.dialect === 'okx') ageOkxAlgos(this, ms);
    for (const account of this.accounts.values())
      for (const p of account.positions.values()) {
        p.createdTime = (p.createdTime ?? this.now()) - ms;
        p.updatedTime = (p.updatedTime ?? this.now()) - ms;
      }
  }

  /** Moves a position's update time to now without a fill (a funding payment, a margin change). */
  touch(apiKey: string, symbol: string): void {
    const p = this.accounts.get(apiKey)?.positions.get(symbol);
    if (p) p.updatedTime = this.now();
  }

  /** Net contracts of a linear market (negative = short). */
  position(apiKey: string, symbol: string): number {
    return this.accounts.get(apiKey)?.positions.get(symbol)?.qty ?? 0;
  }

  /**
   * Moves a market's price: resting limit orders it crosses fill at their price, stop orders it reaches
   * fill at market, and a position's stop loss or take profit it reaches closes the position at market.
   */
  setPrice(symbol: string, bid: number, ask: number): void {
    const market = this.markets.get(symbol);
    if (!market) throw new Error(`no market ${symbol}`);
    market.bid = bid;
    market.ask = ask;
    for (const order of this.orders) {
      if (order.symbol !== symbol || order.status !== 'NEW') continue;
      if (order.triggerPrice !== null) {
        if (order.side === 'BUY' ? ask >= order.triggerPrice : bid <= order.triggerPrice) this.fill(order, order.side === 'BUY' ? ask : bid);
      } else if ((order.side === 'BUY' && ask <= order.price) || (order.side === 'SELL' && bid >= order.price)) this.fill(order, order.price);
    }
    triggerAlgoOrders(this, symbol);
    if (this.dialect === 'okx') triggerOkxAlgos(this, symbol);
    for (const [apiKey, account] of this.accounts) {
      const p = account.positions.get(symbol);
      if (!p) continue;
      const exit = p.qty > 0 ? bid : ask;
      const long = p.qty > 0;
      const stopped = p.stopLoss !== null && (long ? exit <= p.stopLoss : exit >= p.stopLoss);
      const taken = p.takeProfit !== null && (long ? exit >= p.takeProfit : exit <= p.takeProfit);
      if (!stopped && !taken) continue;
      this.place(apiKey, {
        symbol,
        side: long ? 'SELL' : 'BUY',
        type: 'MARKET',
        quantity: Math.abs(p.qty),
        reduceOnly: true,
        stopOrderType: stopped ? 'StopLoss' : 'TakeProfit',
        clientOrderId: '',
      });
    }
  }

  /** An order the account's owner places at the exchange itself (not through the service). */
  placeManually(apiKey: string, symbol: string, side: 'BUY' | 'SELL', quantity: number): FakeOrder {
    const result = this.place(apiKey, { symbol, side, type: 'MARKET', quantity, clientOrderId: `manual${this.nextOrderId}` });
    if (isRefusal(result)) throw new Error(result.message);
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
    this.streams.attach(this.server);
  }

  async stop(): Promise<void> {
    this.streams.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The placement switches (429, late answer), taken once by the dialect that places. */
  takePlacementFault(): { rateLimited: boolean; delayMs: number } {
    const fault = { rateLimited: this.rateLimitNextOrder, delayMs: this.rateLimitNextOrder ? 0 : this.delayNextOrderAnswerMs };
    this.rateLimitNextOrder = false;
    if (!fault.rateLimited) this.delayNextOrderAnswerMs = 0;
    return fault;
  }

  ordersOf(apiKey: string, symbol?: string | null): FakeOrder[] {
    return this.orders.filter((o) => o.apiKey === apiKey && (!symbol || o.symbol === symbol));
  }

  cancel(order: FakeOrder): boolean {
    if (order.status !== 'NEW') return false;
    order.status = 'CANCELED';
    order.updateTime = this.now();
    this.streams.tell(order, null);
    return true;
  }

  /** What the account could still commit: spot, the free coins; linear, the USDT not held as margin. */
  free(apiKey: string, asset: string): number {
    const account = this.accounts.get(apiKey)!;
    return (account.balances.get(asset) ?? 0) - this.locked(apiKey, asset);
  }

  locked(apiKey: string, asset: string): number {
    const account = this.accounts.get(apiKey)!;
    let locked = 0;
    for (const o of this.orders) {
      if (o.apiKey !== apiKey || o.status !== 'NEW') continue;
      const market = this.markets.get(o.symbol)!;
      if (market.kind === 'linear') {
        if (market.quote === asset) locked += (o.origQty * o.price * sizeOf(market)) / LEVERAGE;
      } else {
        if (o.side === 'BUY' && market.quote === asset) locked += o.origQty * o.price;
        if (o.side === 'SELL' && market.base === asset) locked += o.origQty;
      }
    }
    for (const [symbol, p] of account.positions) {
      const market = this.markets.get(symbol);
      if (market?.quote === asset) locked += (Math.abs(p.qty) * p.price * sizeOf(market)) / LEVERAGE;
    }
    return locked;
  }

  /** Floating profit of an account's linear positions in `asset`. */
  unrealized(apiKey: string, asset: string): number {
    let sum = 0;
    for (const [symbol, p] of this.accounts.get(apiKey)?.positions ?? []) {
      const market = this.markets.get(symbol)!;
      if (market.quote !== asset || p.qty === 0) continue;
      sum += (p.qty > 0 ? market.bid - p.price : market.ask - p.price) * p.qty * sizeOf(market);
    }
    return sum;
  }

  place(apiKey: string, p: PlaceRequest): FakeOrder | Refusal {
    const market = this.markets.get(p.symbol);
    if (!market) return { refusal: 'symbol', message: `no market ${p.symbol}` };
    const clientOrderId = p.clientOrderId || `fake${this.nextOrderId}`;
    // Binance refuses a client id only while its order is open; Bybit and OKX refuse it for good.
    const taken = (o: FakeOrder) => o.apiKey === apiKey && o.clientOrderId === clientOrderId && (o.status === 'NEW' || !this.dialect.startsWith('binance'));
    if (this.orders.some(taken)) return { refusal: 'duplicate', message: 'Duplicate clientOrderId' };
    const quantity = p.quantity;
    const step = Number(market.stepSize);
    if (!(quantity >= Number(market.minQty)) || quantity > Number(market.maxQty) || Math.abs(Math.round(quantity / step) * step - quantity) > step / 1e6) {
      return { refusal: 'lot', message: `quantity ${quantity} off ${market.symbol}'s lot size` };
    }
    const trigger = p.triggerPrice ?? null;
    const price = p.type === 'LIMIT' ? p.price! : (trigger ?? (p.side === 'BUY' ? market.ask : market.bid));
    const position = this.accounts.get(apiKey)!.positions.get(market.symbol);
    const reducing = market.kind === 'linear' && position !== undefined && Math.sign(position.qty) === (p.side === 'BUY' ? -1 : 1);
    const size = sizeOf(market);
    if (quantity * price * size < Number(market.minNotional) && !reducing && !p.reduceOnly) {
      return { refusal: 'notional', message: `notional ${quantity * price} below ${market.minNotional}` };
    }
    const enough =
      market.kind === 'linear'
        ? reducing || this.free(apiKey, market.quote) >= (quantity * price * size) / LEVERAGE
        : p.side === 'BUY'
          ? this.free(apiKey, market.quote) >= quantity * price
          : this.free(apiKey, market.base) >= quantity;
    if (!enough) return { refusal: 'balance', message: 'insufficient balance' };
    const now = this.now();
    const order: FakeOrder = {
      orderId: this.nextOrderId++,
      apiKey,
      symbol: market.symbol,
      clientOrderId,
      side: p.side,
      type: p.type,
      origQty: quantity,
      price: p.type === 'LIMIT' ? price : 0,
      triggerPrice: trigger,
      stopLoss: p.stopLoss ?? null,
      takeProfit: p.takeProfit ?? null,
      stopOrderType: p.stopOrderType ?? '',
      executedQty: 0,
      cummulativeQuoteQty: 0,
      fee: 0,
      status: 'NEW',
      time: now,
      updateTime: now,
      reduceOnly: p.reduceOnly === true,
      ...(p.origType ? { origType: p.origType } : {}),
      ...(p.closePosition ? { closePosition: true } : {}),
    };
    this.orders.push(order);
    this.streams.tell(order, null);
    const marketable = trigger === null && (p.type === 'MARKET' || (p.side === 'BUY' ? market.ask <= price : market.bid >= price));
    if (marketable) this.fill(order, p.type === 'MARKET' ? price : p.side === 'BUY' ? market.ask : market.bid);
    return order;
  }

  /**
   * Fills `qty` of a resting order at `price` (the market's side unless said): one fill of several, the
   * order open (Binance: PARTIALLY_FILLED) until all of it is filled.
   */
  fillPart(order: FakeOrder, qty: number, price?: number): void {
    const market = this.markets.get(order.symbol)!;
    if (order.status !== 'NEW' || !(qty > 0) || qty > order.origQty - order.executedQty + 1e-12) throw new Error(`order ${order.orderId} cannot fill ${qty}`);
    this.fill(order, price ?? (order.side === 'BUY' ? market.ask : market.bid), qty);
  }

  /**
   * The fee of a fill worth `value` (quote) of `qty` coins, and the coin it is paid in: `feeAsset` where set
   * (BNB); else Binance and OKX spot take a buy's fee from the coins it bought, every other fill pays in the quote.
   */
  private feeOf(market: FakeMarket, side: 'BUY' | 'SELL', qty: number, value: number): { value: number; commission: number; asset: string } {
    const fee = Math.round(value * this.feeRate * 1e8) / 1e8;
    if (this.feeAsset === null && (this.dialect === 'binance' || this.dialect === 'okx') && market.kind !== 'linear' && side === 'BUY') {
      const coins = Math.round(qty * this.feeRate * 1e8) / 1e8;
      return { value: fee, commission: coins, asset: market.base };
    }
    return { value: fee, commission: fee, asset: this.feeAsset ?? market.quote };
  }

  private fill(order: FakeOrder, price: number, part = order.origQty - order.executedQty): void {
    const account = this.accounts.get(order.apiKey)!;
    const market = this.markets.get(order.symbol)!;
    const add = (asset: string, amount: number) => account.balances.set(asset, (account.balances.get(asset) ?? 0) + amount);
    const sign = order.side === 'BUY' ? 1 : -1;
    let realized = 0;
    if (market.kind === 'linear') {
      const held = account.positions.get(market.symbol) ?? { qty: 0, price: 0, stopLoss: null, takeProfit: null };
      const qty = sign * part;
      if (held.qty !== 0 && Math.sign(held.qty) !== sign) {
        const closed = Math.min(Math.abs(qty), Math.abs(held.qty));
        realized = (price - held.price) * closed * Math.sign(held.qty) * sizeOf(market);
        add(market.quote, realized);
      }
      const next = held.qty + qty;
      const average =
        next === 0
          ? 0
          : Math.sign(next) === Math.sign(held.qty) && Math.abs(next) > Math.abs(held.qty)
            ? (held.price * held.qty + price * qty) / next
            : Math.sign(next) === Math.sign(held.qty)
              ? held.price
              : price;
      if (Math.abs(next) < 1e-12) account.positions.delete(market.symbol);
      else {
        // A new or reversed position takes the order's attached stops; an added-to one keeps its own.
        const fresh = Math.sign(next) !== Math.sign(held.qty);
        const stops = fresh
          ? { stopLoss: order.stopLoss, takeProfit: order.takeProfit }
          : { stopLoss: order.stopLoss ?? held.stopLoss, takeProfit: order.takeProfit ?? held.takeProfit };
        account.positions.set(market.symbol, {
          qty: Math.round(next * 1e10) / 1e10,
          price: average,
          ...stops,
          createdTime: fresh ? this.now() : held.createdTime,
          updatedTime: this.now(),
        });
      }
    } else {
      add(market.base, sign * part);
      add(market.quote, -sign * part * price);
    }
    order.executedQty = Math.round((order.executedQty + part) * 1e10) / 1e10;
    order.cummulativeQuoteQty += part * price;
    const fee = this.feeOf(market, order.side, part, part * price * sizeOf(market));
    order.fee = Math.round((order.fee + fee.value) * 1e8) / 1e8;
    if (fee.commission > 0) add(fee.asset, -fee.commission);
    if (fee.commission > 0 && fee.asset === market.base) order.baseFee = Math.round(((order.baseFee ?? 0) + fee.commission) * 1e10) / 1e10;
    if (order.executedQty >= order.origQty - 1e-12) order.status = 'FILLED';
    order.updateTime = this.now();
    const trade: FakeTrade = {
      id: this.nextTradeId++,
      orderId: order.orderId,
      apiKey: order.apiKey,
      symbol: order.symbol,
      side: order.side,
      qty: part,
      price,
      commission: fee.commission,
      commissionAsset: fee.asset,
      realizedPnl: realized,
      time: order.updateTime,
    };
    this.trades.push(trade);
    this.streams.tell(order, trade);
  }

  private async handle(req: http.IncomingMessage, body: string): Promise<Reply> {
    await Promise.resolve();
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    this.requests.push(`${method} ${url.pathname}`);
    if (this.down) return { status: 503, json: { code: -1001, msg: 'Internal error; unable to process your request. Please try again.' } };
    const request: FakeRequest = { method, url, path: url.pathname, headers: req.headers, body };
    for (const api of [this.streams.api, ...DIALECTS]) {
      const reply = api(this, request);
      if (reply) return reply;
    }
    return { status: 404, json: { code: -1000, msg: `fake exchange: no ${method} ${url.pathname}` } };
  }
}
