// One cTrader account through the Open API's JSON endpoint over WebSocket, as a venue port connection
// (README "cTrader"). The messages are protocol.ts; the link (socket, heartbeat, reconnect, requests)
// is link.ts, the session and the book reading account.ts, the book's mappings and differences book.ts.
// Here: the port's methods.
//
// - The access token is the account's loginAccountPassword (sealed; `token`, the reference's
//   `token|refreshToken`, or the renewed `token|refreshToken|expiry`): renewed by account.ts (token.ts).
// - Placement: market orders, and limit and stop orders (orders.ts), with the engine's deterministic id
//   as clientOrderId (≤ 50 characters; a longer id is replaced by its digest) and the magic number as
//   label. Placing first looks the id up in the account's orders (ProtoOAOrderListReq), and so does a
//   timeout or a lost link after sending: a replayed copy or a retry finds the order placed before and
//   places nothing. Stop loss and take profit: relative on market orders, absolute on pending ones; a
//   position's set with ProtoOAAmendPositionSLTPReq, a pending order amended with ProtoOAAmendOrderReq,
//   cancelled with ProtoOACancelOrderReq; a repeated client request id answers the first result.
// - Sizing: volumes are cents of units; one lot is the symbol's lotSize. The volume step and minimum are
//   the symbol's stepVolume and minVolume in lots, so the copy rules round and skip with their usual
//   reasons; a volume off the step or below the minimum is refused [INVALID_VOLUME] before sending.
import type {
  AccountInformation,
  ClosedTrade,
  HistoryEntry,
  OpenPosition,
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
import { type BookOrder, iso, round2, stripOrder, symbolInfoOf, tradeOf } from './book.js';
import { ctraderClientOrderId, describe, FIRST_BACKOFF_MS, isTransient, venueErrorOf } from './link.js';
import { ACCEPTED, amendmentOf, CANCELLED, FILLED, newOrderOf, protectionAfter, REPLACED, samePrice } from './orders.js';
import {
  ACCOUNT_TYPE,
  type Frame,
  int,
  money,
  ORDER_STATUS,
  ORDER_TYPE,
  PT,
  type ProtoOAAmendPositionSLTPReq,
  type ProtoOACancelOrderReq,
  type ProtoOAClosePositionReq,
  type ProtoOADeal,
  type ProtoOAExecutionEvent,
  type ProtoOALightSymbol,
  type ProtoOAOrder,
  type ProtoOATraderRes,
  toLots,
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
  private readonly modified = new Map<string, VenuePosition>();
  private readonly cancelled = new Map<string, PendingOrder>();

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
    const trades = deals
      .map((d) => tradeOf(this, d))
      .filter((t): t is ClosedTrade => t !== null)
      .sort((a, b) => a.closeTime.localeCompare(b.closeTime));
    // Deposits, withdrawals and the other cash movements (ProtoOACashFlowHistoryListReq; cashFlow.ts).
    return [...trades, ...(await this.guard(() => this.cashFlows(Date.parse(from), Date.parse(to))))];
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
    await this.guard(() => this.ensureDetails([symbolId]));
    const volume = this.centsOf(request.symbol, symbolId, request.volume);
    const pending = isPendingOrderRequest(request);
    // A market order's protection travels as distances from the price it should fill at.
    const entry = pending || (!request.stopLoss && !request.takeProfit) ? 0 : await this.entryOf(symbolId, request);
    const order = newOrderOf(request, { ctid, symbolId, digits: this.details.get(symbolId)?.digits ?? 5, volume, clientOrderId: tag, entry });
    let answer: ProtoOAExecutionEvent | null = null;
    try {
      answer = await this.withToken(() =>
        this.exchange<ProtoOAExecutionEvent>(PT.NEW_ORDER_REQ, order, (frame) => (pending ? pendingAccepted(frame) : FILLED(frame))),
      );
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
    const result = await this.resultOf(answer.order!, clientOrderId, answer.deal ?? null);
    if (result.status === 'filled' && result.positionId && (request.stopLoss || request.takeProfit)) await this.exactProtection(result.positionId, request);
    return this.remember(clientOrderId, result);
  }

  /** The price a market order is expected to fill at: ask for a buy, bid for a sell. */
  private async entryOf(symbolId: number, request: OrderRequest): Promise<number> {
    const quote = await this.quoteOf(symbolId, request.symbol);
    return request.orderType === 'buy' ? quote.ask : quote.bid;
  }

  /** After a fill away from the expected price, sets the stop loss and take profit asked for exactly. */
  private async exactProtection(positionId: string, request: OrderRequest): Promise<void> {
    const position = this.book.positions.get(positionId);
    if (!position) return;
    const wanted = { stopLoss: request.stopLoss || null, takeProfit: request.takeProfit || null };
    if (samePrice(position.stopLoss, wanted.stopLoss) && samePrice(position.takeProfit, wanted.takeProfit)) return;
    this.log.info(`cTrader account ${this.login}: position ${positionId} filled away from the expected price; setting its stop loss and take profit as asked`);
    await this.amendProtection(position, wanted).catch((error: unknown) =>
      this.log.warn(`cTrader account ${this.login}: setting the protection of position ${positionId} failed (${describe(error)}); it keeps cTrader's levels`),
    );
  }

  async modifyPosition(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> {
    this.ready();
    const known = clientRequestId ? this.modified.get(clientRequestId) : undefined;
    if (known) return known;
    const result = await this.modifyOnce(id, changes, clientRequestId);
    if (clientRequestId) this.modified.set(clientRequestId, result);
    return result;
  }

  private async modifyOnce(id: string, changes: PositionChanges, clientRequestId?: string): Promise<VenuePosition> {
    const order = this.book.pending.get(id);
    if (order) return this.amendOrder(order, changes);
    const position = this.book.positions.get(id);
    if (!position) throw new VenueError('[POSITION_NOT_FOUND]', `position ${id} is not open`);
    if (changes.openPrice !== undefined && !samePrice(changes.openPrice, position.openPrice)) {
      throw new VenueError('[INVALID_PRICE]', `the open price of open position ${id} cannot change`);
    }
    if (changes.volume !== undefined && changes.volume > position.volume + 1e-12) {
      throw new VenueError('[INVALID_VOLUME]', `the volume of open position ${id} cannot grow: open another position`);
    }
    const wanted = protectionAfter(position, changes);
    if (!samePrice(position.stopLoss, wanted.stopLoss) || !samePrice(position.takeProfit, wanted.takeProfit)) await this.amendProtection(position, wanted);
    if (changes.volume !== undefined && changes.volume < position.volume - 1e-12) {
      await this.closePosition(id, Number((position.volume - changes.volume).toFixed(10)), clientRequestId);
    }
    return this.book.positions.get(id) ?? position;
  }

  /** ProtoOAAmendPositionSLTPReq with both levels wanted (a level left out is removed). */
  private async amendProtection(position: OpenPosition, wanted: { stopLoss: number | null; takeProfit: number | null }): Promise<void> {
    const ctid = this.ready();
    const amend: ProtoOAAmendPositionSLTPReq = {
      ctidTraderAccountId: ctid,
      positionId: Number(position.id),
      ...(wanted.stopLoss !== null ? { stopLoss: wanted.stopLoss } : {}),
      ...(wanted.takeProfit !== null ? { takeProfit: wanted.takeProfit } : {}),
    };
    await this.settled(
      () => this.exchange(PT.AMEND_POSITION_SLTP_REQ, amend, REPLACED),
      () => {
        const now = this.book.positions.get(position.id);
        return !!now && samePrice(now.stopLoss, wanted.stopLoss) && samePrice(now.takeProfit, wanted.takeProfit);
      },
      `changing the protection of position ${position.id}`,
    );
  }

  /** ProtoOAAmendOrderReq with the whole order wanted. */
  private async amendOrder(order: BookOrder, changes: PositionChanges): Promise<VenuePosition> {
    const ctid = this.ready();
    const symbolId = int(this.symbolOf(order.symbol).symbolId);
    await this.guard(() => this.ensureDetails([symbolId]));
    const volume = this.centsOf(order.symbol, symbolId, changes.volume ?? order.volume);
    const amend = amendmentOf(ctid, order, changes, volume);
    const wanted = { ...protectionAfter(order, changes), openPrice: changes.openPrice ?? order.openPrice, volume: changes.volume ?? order.volume };
    await this.settled(
      () => this.exchange(PT.AMEND_ORDER_REQ, amend, REPLACED),
      () => {
        const now = this.book.pending.get(order.id);
        return (
          !!now &&
          samePrice(now.openPrice, wanted.openPrice) &&
          samePrice(now.volume, wanted.volume) &&
          samePrice(now.stopLoss, wanted.stopLoss) &&
          samePrice(now.takeProfit, wanted.takeProfit)
        );
      },
      `amending order ${order.id}`,
    );
    const now = this.book.pending.get(order.id);
    if (!now) throw new VenueError('[ORDER_NOT_FOUND]', `order ${order.id} is no longer pending`);
    return stripOrder(now);
  }

  /**
   * Sends a change and reads the book; after a timeout or a lost link, reads the book and takes the
   * change as made when `done` says so (it may have reached cTrader), else fails as it did.
   */
  private async settled(send: () => Promise<unknown>, done: () => boolean, what: string): Promise<void> {
    try {
      await this.withToken(send);
      await this.sync();
      // Spotware's .proto leaves open what a level absent from an amendment does; we state every level
      // kept and leave out only those removed (the reading that absent = removed). Say so if the book disagrees.
      if (!done()) this.log.warn(`cTrader account ${this.login}: ${what}: cTrader answered, but its book does not show what was asked`);
    } catch (error) {
      if (!isTransient(error)) throw venueErrorOf(error);
      this.log.warn(`cTrader account ${this.login}: ${what} failed (${describe(error)}); reading the book before anyone tries again`);
      if (!this.socket) await this.waitConnected(this.settings.requestTimeoutMs);
      await this.sync();
      if (!done()) throw error;
      this.log.info(`cTrader account ${this.login}: ${what} had reached cTrader; not sent again`);
    }
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
      const event = await this.exchange<ProtoOAExecutionEvent>(PT.CLOSE_POSITION_REQ, close, FILLED);
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

  async cancelOrder(id: string, clientRequestId?: string): Promise<PendingOrder> {
    const ctid = this.ready();
    const known = clientRequestId ? this.cancelled.get(clientRequestId) : undefined;
    if (known) return known;
    let order = this.book.pending.get(id);
    if (!order) {
      await this.guard(() => this.sync());
      order = this.book.pending.get(id);
    }
    if (!order) throw new VenueError('[ORDER_NOT_FOUND]', `order ${id} is not pending`);
    await this.settled(
      () => this.exchange(PT.CANCEL_ORDER_REQ, { ctidTraderAccountId: ctid, orderId: Number(id) } satisfies ProtoOACancelOrderReq, CANCELLED),
      () => !this.book.pending.has(id),
      `cancelling order ${id}`,
    );
    const result = stripOrder(order);
    if (clientRequestId) this.cancelled.set(clientRequestId, result);
    return result;
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
    if ((order.orderType === ORDER_TYPE.LIMIT || order.orderType === ORDER_TYPE.STOP) && order.orderStatus === ORDER_STATUS.ACCEPTED) {
      await this.sync();
      const symbolId = int(order.tradeData.symbolId);
      return {
        status: 'placed',
        orderId: String(int(order.orderId)),
        clientOrderId,
        openPrice: order.limitPrice ?? order.stopPrice ?? 0,
        volume: toLots(order.tradeData.volume, this.lotSize(symbolId)),
        time: iso(order.utcLastUpdateTimestamp ?? order.tradeData.openTimestamp ?? this.clock().getTime()),
      };
    }
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

/** The execution event that says a pending order is in the book (ORDER_ACCEPTED of a LIMIT or STOP order). */
const pendingAccepted = (frame: Frame): ProtoOAExecutionEvent | undefined => {
  const event = ACCEPTED(frame);
  return event?.order && event.order.orderType !== ORDER_TYPE.MARKET ? event : undefined;
};
