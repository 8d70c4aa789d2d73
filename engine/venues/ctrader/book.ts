// The book of one cTrader account (account.ts reads it): open positions and pending orders of
// ProtoOAReconcileRes, closed trades from the closing deals (ProtoOADeal.closePositionDetail), their
// mappings to the port's shapes, and the difference of two readings as the venue changes to tell.
// Every execution event makes the account read the book again and tell the difference: the same path
// live and after a reconnect, so nothing is told twice.
import type { ClosedTrade, OpenPosition, PendingOrder, PendingOrderType, Side, SymbolInfo, VenueChange } from '../port.js';
import {
  DEAL_STATUS,
  int,
  type Int64,
  money,
  ORDER_STATUS,
  ORDER_TYPE,
  type ProtoOADeal,
  type ProtoOALightSymbol,
  type ProtoOAOrder,
  type ProtoOAPosition,
  type ProtoOASymbol,
  toLots,
  TRADE_SIDE,
} from './protocol.js';

export type BookOrder = PendingOrder & { readonly positionId: string | null };

export interface Book {
  readonly positions: ReadonlyMap<string, OpenPosition>;
  readonly pending: ReadonlyMap<string, BookOrder>;
  /** Closing deals seen, by deal id. */
  readonly trades: ReadonlyMap<string, ClosedTrade>;
  /** The position each order filled in this reading opened (its opening deal), by order id: a pending order's fill. */
  readonly fills?: ReadonlyMap<string, string>;
}

export const EMPTY_BOOK: Book = { positions: new Map(), pending: new Map(), trades: new Map() };

export type ChangeBody = VenueChange extends infer C ? (C extends VenueChange ? Omit<C, 'login' | 'sequence' | 'at'> : never) : never;

export interface OpenedBy {
  openTime: string;
  clientOrderId: string | null;
  magicNumber: number | null;
  comment: string | null;
}

/** What the mappings read of the account: its symbols, their details and last prices, and what it knows of its positions. */
export interface BookContext {
  readonly symbolNames: ReadonlyMap<number, string>;
  readonly details: ReadonlyMap<number, ProtoOASymbol>;
  readonly quotes: ReadonlyMap<number, { bid: number; ask: number; time: string }>;
  /** Open times (and tags) of positions seen, for the trades that close them; the mappings add to it. */
  readonly openTimes: Map<string, OpenedBy>;
  /** The client order ids of positions opened by orders that carried one, by position id. */
  readonly tags: ReadonlyMap<string, string>;
}

export const iso = (ms: Int64 | undefined): string => new Date(int(ms)).toISOString();
export const round2 = (value: number): number => Math.round(value * 100) / 100;
export const sideOf = (tradeSide: number): Side => (tradeSide === TRADE_SIDE.SELL ? 'sell' : 'buy');
const magicOf = (label: string | undefined): number | null => (/^\d{1,15}$/.test(label ?? '') ? Number(label) : null);

export const lotSizeOf = (context: Pick<BookContext, 'details'>, symbolId: number): number => int(context.details.get(symbolId)?.lotSize) || 100;

export const positionOf = (context: BookContext, p: ProtoOAPosition): OpenPosition | null => {
  const symbolId = int(p.tradeData.symbolId);
  const symbol = context.symbolNames.get(symbolId);
  if (!symbol) return null;
  const id = String(int(p.positionId));
  const side = sideOf(p.tradeData.tradeSide);
  const volume = toLots(p.tradeData.volume, lotSizeOf(context, symbolId));
  const openPrice = p.price ?? 0;
  const quote = context.quotes.get(symbolId);
  const current = quote ? (side === 'buy' ? quote.bid : quote.ask) : openPrice;
  const contract = lotSizeOf(context, symbolId) / 100;
  const magicNumber = magicOf(p.tradeData.label);
  const comment = p.tradeData.comment ?? null;
  const known = context.openTimes.get(id);
  const clientOrderId = context.tags.get(id) ?? known?.clientOrderId ?? null;
  const openTime = iso(p.tradeData.openTimestamp);
  context.openTimes.set(id, { openTime, clientOrderId, magicNumber, comment });
  return {
    kind: 'position',
    id,
    symbol,
    orderType: side,
    volume,
    openPrice,
    openTime,
    stopLoss: p.stopLoss ?? null,
    takeProfit: p.takeProfit ?? null,
    swap: money(p.swap, p.moneyDigits),
    commission: money(p.commission, p.moneyDigits),
    comment,
    magicNumber,
    clientOrderId,
    currentPrice: current,
    profit: round2((current - openPrice) * volume * contract * (side === 'buy' ? 1 : -1)),
  };
};

/** The pending order of an accepted limit or stop order; null for anything else. */
export const orderOf = (context: BookContext, o: ProtoOAOrder, engineIds?: ReadonlyMap<string, string>): BookOrder | null => {
  const symbolId = int(o.tradeData.symbolId);
  const symbol = context.symbolNames.get(symbolId);
  if (!symbol || o.orderStatus !== ORDER_STATUS.ACCEPTED) return null;
  const side = sideOf(o.tradeData.tradeSide);
  let type: PendingOrderType;
  if (o.orderType === ORDER_TYPE.LIMIT) type = side === 'buy' ? 'buyLimit' : 'sellLimit';
  else if (o.orderType === ORDER_TYPE.STOP || o.orderType === ORDER_TYPE.STOP_LIMIT) type = side === 'buy' ? 'buyStop' : 'sellStop';
  else return null;
  const openPrice = o.limitPrice ?? o.stopPrice ?? 0;
  const quote = context.quotes.get(symbolId);
  const tag = o.clientOrderId ?? null;
  return {
    kind: 'order',
    id: String(int(o.orderId)),
    symbol,
    orderType: type,
    volume: toLots(o.tradeData.volume, lotSizeOf(context, symbolId)),
    openPrice,
    openTime: iso(o.tradeData.openTimestamp),
    stopLoss: o.stopLoss ?? null,
    takeProfit: o.takeProfit ?? null,
    expiry: o.expirationTimestamp !== undefined ? iso(o.expirationTimestamp) : null,
    comment: o.tradeData.comment ?? null,
    magicNumber: magicOf(o.tradeData.label),
    clientOrderId: tag !== null ? (engineIds?.get(tag) ?? tag) : null,
    currentPrice: quote ? (side === 'buy' ? quote.ask : quote.bid) : openPrice,
    positionId: o.positionId !== undefined ? String(int(o.positionId)) : null,
  };
};

/** The closed trade of a closing deal; null for a deal that opened or added volume, or did not fill. */
export const tradeOf = (context: BookContext, deal: ProtoOADeal): ClosedTrade | null => {
  const detail = deal.closePositionDetail;
  if (!detail || (deal.dealStatus !== DEAL_STATUS.FILLED && deal.dealStatus !== DEAL_STATUS.PARTIALLY_FILLED)) return null;
  const symbolId = int(deal.symbolId);
  const symbol = context.symbolNames.get(symbolId);
  if (!symbol) return null;
  const positionId = String(int(deal.positionId));
  const known = context.openTimes.get(positionId);
  const digits = detail.moneyDigits ?? deal.moneyDigits;
  return {
    kind: 'trade',
    id: String(int(deal.dealId)),
    positionId,
    symbol,
    // The closing deal is on the other side of the position it closes.
    orderType: deal.tradeSide === TRADE_SIDE.BUY ? 'sell' : 'buy',
    volume: toLots(detail.closedVolume ?? deal.filledVolume, lotSizeOf(context, symbolId)),
    openPrice: detail.entryPrice,
    openTime: known?.openTime ?? iso(deal.executionTimestamp),
    closePrice: deal.executionPrice ?? 0,
    closeTime: iso(deal.executionTimestamp),
    profit: money(detail.grossProfit, digits),
    swap: money(detail.swap, digits),
    commission: money(detail.commission, digits),
    reason: 'manual',
    stopLoss: null,
    takeProfit: null,
    comment: known?.comment ?? null,
    magicNumber: known?.magicNumber ?? null,
    clientOrderId: known?.clientOrderId ?? null,
  };
};

export const stripOrder = (order: PendingOrder & { positionId?: string | null }): PendingOrder => {
  const { positionId: _positionId, ...rest } = order;
  return rest;
};

/** What changed from one reading of the book to the next, in the order to tell it; `warn` hears what cannot be told. */
export const differenceOf = (previous: Book, next: Book, warn: (message: string) => void): ChangeBody[] => {
  const changes: ChangeBody[] = [];
  const emit = (change: ChangeBody) => changes.push(change);
  for (const [id, order] of next.pending) {
    const old = previous.pending.get(id);
    if (!old) emit({ type: 'orderPlaced', order: stripOrder(order) });
    else if (order.openPrice !== old.openPrice || order.volume !== old.volume || order.stopLoss !== old.stopLoss || order.takeProfit !== old.takeProfit)
      emit({ type: 'orderModified', order: stripOrder(order) });
  }
  const filledOrders = new Set<string>();
  for (const [id, position] of next.positions) {
    const old = previous.positions.get(id);
    if (!old) {
      const filled = [...previous.pending.values()].find((o) => !next.pending.has(o.id) && (o.positionId === id || next.fills?.get(o.id) === id));
      if (filled) {
        filledOrders.add(filled.id);
        emit({ type: 'orderFilled', order: stripOrder(filled), price: position.openPrice });
      }
      emit({ type: 'positionOpened', position });
    } else if (position.volume > old.volume + 1e-12) {
      emit({ type: 'positionIncreased', position, volume: Number((position.volume - old.volume).toFixed(10)), price: position.openPrice });
    } else if (position.stopLoss !== old.stopLoss || position.takeProfit !== old.takeProfit) {
      emit({ type: 'positionModified', position });
    }
  }
  for (const [id, trade] of next.trades) {
    if (previous.trades.has(id)) continue;
    const remaining = next.positions.get(trade.positionId);
    if (remaining) emit({ type: 'positionPartiallyClosed', position: remaining, trade });
    else emit({ type: 'positionClosed', trade });
  }
  for (const [id, position] of previous.positions) {
    if (next.positions.has(id) || [...next.trades.values()].some((t) => t.positionId === id && !previous.trades.has(t.id))) continue;
    warn(`position ${id} (${position.symbol}) is gone without a closing deal seen; the next start reconciles it`);
  }
  for (const [id, order] of previous.pending) {
    if (next.pending.has(id) || filledOrders.has(id)) continue;
    emit({ type: 'orderCancelled', order: stripOrder(order), reason: 'manual' });
  }
  return changes;
};

/** The port's SymbolInfo of a symbol whose details were read. */
export const symbolInfoOf = (light: ProtoOALightSymbol, d: ProtoOASymbol, name: string, assets: ReadonlyMap<number, string>): SymbolInfo => {
  const lot = int(d.lotSize) || 100;
  const step = toLots(int(d.stepVolume) || 1, lot);
  const base = assets.get(int(light.baseAssetId)) ?? '';
  const quote = assets.get(int(light.quoteAssetId)) ?? '';
  return {
    symbol: name,
    description: light.description ?? light.symbolName ?? '',
    digits: d.digits,
    point: Number((10 ** -d.digits).toFixed(d.digits)),
    contractSize: lot / 100,
    minVolume: toLots(int(d.minVolume) || int(d.stepVolume) || 1, lot),
    maxVolume: d.maxVolume !== undefined ? toLots(d.maxVolume, lot) : 1e9,
    volumeStep: step,
    stopsLevel: d.slDistance ?? 0,
    marginCalcMode: 'forex',
    marginRate: 1,
    baseCurrency: base,
    marginCurrency: base,
    profitCurrency: quote,
    commissionPerLot: 0,
    swapLong: d.swapLong ?? 0,
    swapShort: d.swapShort ?? 0,
    swapRollover3Days: null,
  };
};
