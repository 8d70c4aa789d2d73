// One cTrader account through the Open API's JSON endpoint over WebSocket, as a venue port connection
// (README "cTrader"). The messages are protocol.ts; the link (socket, heartbeat, reconnect, requests)
// is link.ts, the session and the book reading account.ts, the book's mappings and differences book.ts.
// Here: the port's methods.
//
// - The access token is the account's loginAccountPassword (sealed; the reference's `token|refreshToken`
//   form is taken, the refresh token is kept unused).
// - Placement: market orders, with the engine's deterministic id as clientOrderId (≤ 50 characters;
//   a longer id is replaced by its digest) and the magic number as label. Placing first looks the id up
//   in the account's orders (ProtoOAOrderListReq), and so does a timeout or a lost link after sending:
//   a replayed copy or a retry finds the order placed before and places nothing.
// - Sizing: volumes are cents of units; one lot is the symbol's lotSize. The volume step and minimum are
//   the symbol's stepVolume and minVolume in lots, so the copy rules round and skip with their usual
//   reasons; a volume off the step or below the minimum is refused [INVALID_VOLUME] before sending.
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
  VenueConnection,
  VenuePosition,
} from '../port.js';
import { isPendingOrderRequest, VenueError } from '../port.js';
import { CTraderAccount } from './account.js';
import { iso, round2, stripOrder, symbolInfoOf, tradeOf } from './book.js';
import { ctraderClientOrderId, describe, FIRST_BACKOFF_MS, isTransient, venueErrorOf } from './link.js';
import {
  ACCOUNT_TYPE,
  EXECUTION,
  type Frame,
  int,
  money,
  ORDER_TYPE,
  PT,
  type ProtoOAClosePositionReq,
  type ProtoOADeal,
  type ProtoOAExecutionEvent,
  type ProtoOALightSymbol,
  type ProtoOANewOrderReq,
  type ProtoOAOrder,
  type ProtoOATraderRes,
  toLots,
  TRADE_SIDE,
} from './protocol.js';

export {
  type CTraderEnvironment,
  CTraderFailure,
  type CTraderLog,
  type CTraderLogin,
  type CTraderSettings,
  CTraderTimeout,
  ctraderClientOrderId,
  isTransient,
  venueErrorOf,
} from './link.js';

const LOOKUP_ATTEMPTS = 3;

export class CTraderConnection extends CTraderAccount implements VenueConnection {
  private readonly placed = new Map<string, PlaceOrderResult>();
  private readonly closes = new Map<string, ClosedTrade>();

  async accountInformation(): Promise<AccountInformation> {
    const ctid = this.ready();
    const trader = (await this.guard(() => this.request<ProtoOATraderRes>(PT.TRADER_REQ, { ctidTraderAccountId: ctid }, PT.TRADER_RES))).trader;
    this.trader = trader;
    const balance = money(trader.balance, trader.moneyDigits);
    const open = [...this.book.positions.values()];
    const unrealized = open.reduce((sum, p) => sum + p.profit + p.swap, 0);
    const leverage = (trader.leverageInCents ?? 100) / 100;
    const margin = open.reduce((sum, p) => sum + (p.volume * this.contractOf(p.symbol) * p.openPrice) / leverage, 0);
    const equity = balance + unrealized;
    return {
      login: this.login,
      currency: this.currency,
      leverage,
      marginMode: trader.accountType === ACCOUNT_TYPE.NETTED ? 'netting' : 'hedging',
      balance: round2(balance),
      credit: 0,
      equity: round2(equity),
      margin: round2(margin),
      freeMargin: round2(equity - margin),
      marginLevel: margin > 0 ? round2((equity / margin) * 100) : null,
      stopOutLevel: 0,
      unrealizedProfit: round2(unrealized),
      openPositionsCount: open.length,
      pendingOrdersCount: this.book.pending.size,
      connected: this.connected,
      environment: this.account.environment === 'live' ? 'LIVE' : 'DEMO',
    };
  }

  async positions(): Promise<readonly VenuePosition[]> {
    this.ready();
    await this.guard(() => this.sync());
    return [...this.book.positions.values(), ...[...this.book.pending.values()].map(stripOrder)];
  }

  async history(from: string, to: string): Promise<readonly HistoryEntry[]> {
    this.ready();
    const deals = await this.guard(() => this.deals(Date.parse(from), Date.parse(to)));
    await this.ensureDetails(deals.map((d) => int(d.symbolId)));
    // Deposits and withdrawals (ProtoOACashFlowHistoryListReq) are not read yet: closed trades only.
    return deals
      .map((d) => tradeOf(this, d))
      .filter((t): t is ClosedTrade => t !== null)
      .sort((a, b) => a.closeTime.localeCompare(b.closeTime));
  }

  async placeOrder(request: OrderRequest, clientOrderId: string): Promise<PlaceOrderResult> {
    const ctid = this.ready();
    const known = this.placed.get(clientOrderId);
    if (known) return known;
    const light = this.symbolOf(request.symbol);
    const symbolId = int(light.symbolId);
    const tag = ctraderClientOrderId(clientOrderId);
    this.engineIds.set(tag, clientOrderId);
    const earlier = await this.guard(() => this.findOrder(tag));
    if (earlier) return this.remember(clientOrderId, await this.resultOf(earlier, clientOrderId, null));
    if (isPendingOrderRequest(request)) {
      throw new VenueError('[INVALID_REQUEST]', `${request.orderType} orders are not placed at cTrader by this adapter yet: market orders only`);
    }
    if (request.stopLoss || request.takeProfit) {
      throw new VenueError('[INVALID_STOPS]', 'stop loss and take profit are not placed at cTrader by this adapter yet: copy without them');
    }
    await this.guard(() => this.ensureDetails([symbolId]));
    const volume = this.centsOf(request.symbol, symbolId, request.volume);
    const order: ProtoOANewOrderReq = {
      ctidTraderAccountId: ctid,
      symbolId,
      orderType: ORDER_TYPE.MARKET,
      tradeSide: request.orderType === 'buy' ? TRADE_SIDE.BUY : TRADE_SIDE.SELL,
      volume,
      clientOrderId: tag,
      ...(request.magicNumber !== null && request.magicNumber !== undefined ? { label: String(request.magicNumber) } : {}),
      ...(request.comment ? { comment: request.comment.slice(0, 512) } : {}),
    };
    let filled: ProtoOAExecutionEvent | null = null;
    try {
      filled = await this.exchange<ProtoOAExecutionEvent>(PT.NEW_ORDER_REQ, order, (frame) => filledEvent(frame));
    } catch (error) {
      if (!isTransient(error)) throw venueErrorOf(error);
      // It may have reached cTrader: look before anyone tries again.
      this.log.warn(`cTrader account ${this.login}: placing ${tag} failed (${describe(error)}); looking the order up by its client order id`);
      let found: ProtoOAOrder | null = null;
      for (let attempt = 0; attempt < LOOKUP_ATTEMPTS && !found; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, FIRST_BACKOFF_MS * attempt));
        if (!this.socket) await this.waitConnected(this.settings.requestTimeoutMs);
        found = await this.findOrder(tag).catch(() => null);
      }
      if (!found) throw error;
      this.log.info(`cTrader account ${this.login}: order ${tag} had reached cTrader (order ${int(found.orderId)}); not placed again`);
      return this.remember(clientOrderId, await this.resultOf(found, clientOrderId, null));
    }
    return this.remember(clientOrderId, await this.resultOf(filled.order!, clientOrderId, filled.deal ?? null));
  }

  async modifyPosition(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> {
    this.ready();
    const position = this.book.positions.get(id);
    if (!position) {
      if (this.book.pending.has(id)) throw new VenueError('[INVALID_REQUEST]', 'pending orders are not modified at cTrader by this adapter yet');
      throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    }
    if (changes.stopLoss !== undefined || changes.takeProfit !== undefined || changes.openPrice !== undefined) {
      throw new VenueError('[INVALID_STOPS]', 'stop loss and take profit are not set at cTrader by this adapter yet');
    }
    if (changes.volume !== undefined && changes.volume < position.volume) {
      await this.closePosition(id, Number((position.volume - changes.volume).toFixed(10)), clientRequestId);
    }
    return this.book.positions.get(id) ?? position;
  }

  async closePosition(id: string, volume?: number, clientRequestId?: string): Promise<ClosedTrade> {
    const ctid = this.ready();
    const known = clientRequestId ? this.closes.get(clientRequestId) : undefined;
    if (known) return known;
    let position = this.book.positions.get(id);
    if (!position) {
      await this.guard(() => this.sync());
      position = this.book.positions.get(id);
    }
    if (!position) throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    const symbolId = int(this.symbolOf(position.symbol).symbolId);
    const lots = Math.min(volume ?? position.volume, position.volume);
    const cents = this.centsOf(position.symbol, symbolId, lots, lots === position.volume);
    const tradesBefore = new Set(this.book.trades.keys());
    const close: ProtoOAClosePositionReq = { ctidTraderAccountId: ctid, positionId: Number(id), volume: cents };
    let dealId: string | null = null;
    try {
      const event = await this.exchange<ProtoOAExecutionEvent>(PT.CLOSE_POSITION_REQ, close, (frame) => filledEvent(frame));
      dealId = event.deal ? String(int(event.deal.dealId)) : null;
      await this.sync();
    } catch (error) {
      if (!isTransient(error)) throw venueErrorOf(error);
      this.log.warn(`cTrader account ${this.login}: closing position ${id} failed (${describe(error)}); reading the book before anyone tries again`);
      if (!this.socket) await this.waitConnected(this.settings.requestTimeoutMs);
      await this.sync();
      const done = [...this.book.trades.values()].find((t) => t.positionId === id && !tradesBefore.has(t.id));
      if (!done) throw error;
      this.log.info(`cTrader account ${this.login}: the close of position ${id} had reached cTrader (deal ${done.id}); not sent again`);
      dealId = done.id;
    }
    const trade =
      (dealId ? this.book.trades.get(dealId) : undefined) ?? [...this.book.trades.values()].find((t) => t.positionId === id && !tradesBefore.has(t.id));
    if (!trade) throw new Error(`closing position ${id} at cTrader left no closing deal in the book`);
    if (clientRequestId) this.closes.set(clientRequestId, trade);
    return trade;
  }

  cancelOrder(id: string): Promise<PendingOrder> {
    this.ready();
    if (!this.book.pending.has(id)) return Promise.reject(new VenueError('[ORDER_NOT_FOUND]', `order ${id} is not pending`));
    return Promise.reject(new VenueError('[INVALID_REQUEST]', 'pending orders are not cancelled at cTrader by this adapter yet: cancel it in cTrader'));
  }

  async quote(symbol: string): Promise<Quote> {
    this.ready();
    const id = int(this.symbolOf(symbol).symbolId);
    const quote = await this.quoteOf(id, symbol);
    return { symbol: this.symbolNames.get(id) ?? symbol, bid: quote.bid, ask: quote.ask, time: quote.time };
  }

  async symbolInfo(symbol: string): Promise<SymbolInfo> {
    this.ready();
    const light = this.symbolOf(symbol);
    await this.guard(() => this.ensureDetails([int(light.symbolId)]));
    return this.infoOf(light);
  }

  async symbols(): Promise<readonly SymbolInfo[]> {
    this.ready();
    const all = [...this.symbolsByName.values()];
    await this.guard(() => this.ensureDetails(all.map((s) => int(s.symbolId))));
    return all.filter((s) => this.details.has(int(s.symbolId))).map((s) => this.infoOf(s));
  }

  async marginRequired(symbol: string, side: Side, volume: number): Promise<number> {
    const quote = await this.quote(symbol);
    const leverage = (this.trader?.leverageInCents ?? 100) / 100;
    return round2((volume * this.contractOf(symbol) * (side === 'buy' ? quote.ask : quote.bid)) / leverage);
  }

  private infoOf(light: ProtoOALightSymbol): SymbolInfo {
    const id = int(light.symbolId);
    return symbolInfoOf(light, this.details.get(id)!, this.symbolNames.get(id) ?? String(id), this.assets);
  }

  private async resultOf(order: ProtoOAOrder, clientOrderId: string, deal: ProtoOADeal | null): Promise<PlaceOrderResult> {
    const positionId = order.positionId !== undefined ? String(int(order.positionId)) : null;
    if (positionId) this.tags.set(positionId, clientOrderId);
    await this.sync();
    const symbolId = int(order.tradeData.symbolId);
    const volume = toLots(deal?.filledVolume ?? order.executedVolume ?? order.tradeData.volume, this.lotSize(symbolId));
    return {
      status: 'filled',
      orderId: String(int(order.orderId)),
      clientOrderId,
      positionId,
      price: deal?.executionPrice ?? order.executionPrice ?? 0,
      volume,
      time: iso(deal?.executionTimestamp ?? order.utcLastUpdateTimestamp ?? this.clock().getTime()),
    };
  }

  private remember(clientOrderId: string, result: PlaceOrderResult): PlaceOrderResult {
    this.placed.set(clientOrderId, result);
    return result;
  }
}

/** The execution event that says a market order (or a close) filled. */
const filledEvent = (frame: Frame): ProtoOAExecutionEvent | undefined => {
  if (frame.payloadType !== PT.EXECUTION_EVENT) return undefined;
  const event = frame.payload as ProtoOAExecutionEvent;
  return event.executionType === EXECUTION.ORDER_FILLED && event.order ? event : undefined;
};
