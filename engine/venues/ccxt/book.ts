// An exchange account's book in the venue port's terms, rebuilt from its orders. An exchange keeps
// orders and balances, not MetaTrader-style positions (a spot wallet has none at all), so the adapter
// replays the account's orders of each symbol it follows, oldest first, as a netting account:
//   - a fill from flat opens a position whose id is the order's id;
//   - a fill on the same side adds to it (the open price becomes the average);
//   - a fill on the other side closes volume: a closed trade whose id is the closing order's id, a
//     partial close while volume remains; on a derivatives market the excess opens the other side, on
//     spot (no shorting) the excess is not ours (holdings bought elsewhere) and is left out;
//   - an order still open is a pending order: a limit order at its price, a stop order at its trigger.
// The replay is a pure function of the exchange's orders, so the book after a restart is the book
// before it, and what changed while the service was down shows up as the difference (reconcile.ts).
// An exchange keeps a few days of orders only (Bybit and OKX: 7): what the account held before its
// oldest order still listed is a seed (history.ts: the exchange's position, or the coins held, less
// the listed fills), the position the replay starts from, under the id the service knows it by.
// Fees: where an order carries the fees it paid (`fee`), a position's commission is its opening fills'
// fees (negative, as the simulated venue's), and a closed trade takes the share of them its volume
// closes plus its closing fill's share of that order's fee; a partial close leaves the rest open. A spot
// buy whose fee took coins of what it bought (`baseFee`) opens or adds only the coins the account got:
// the position is what is held, and the coins' value at the fill price is in its commission.
import type { CloseReason, ClosedTrade, OpenPosition, PendingOrder, Side } from '../port.js';

/** What the replay needs of a ccxt order (ccxt's unified Order). */
export interface ExchangeOrder {
  readonly id: string;
  readonly clientOrderId: string | null;
  /** The venue's symbol (the exchange's market id, BTCUSDT). */
  readonly symbol: string;
  readonly side: Side;
  readonly type: 'market' | 'limit' | string;
  /** 'open' | 'closed' | 'canceled' | 'expired' | 'rejected'. */
  readonly status: string;
  readonly amount: number;
  readonly filled: number;
  /** Average fill price; null without fill. */
  readonly average: number | null;
  /** Limit price; null for market orders. */
  readonly price: number | null;
  /** When it was placed, ms. */
  readonly timestamp: number;
  /** When it last filled (or the placement time), ms. */
  readonly lastTradeTimestamp: number;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  /** A stop order's trigger; null: none. */
  readonly triggerPrice: number | null;
  /** What closed the position this order closes (the exchange's own stop loss or take profit, else manual). */
  readonly closeReason: CloseReason;
  /** The fees the order paid so far, in the account's currency (0: none, or not told by the exchange). */
  readonly fee: number;
  /**
   * The part of those fees paid in the market's base coin, in coins (Binance spot: a buy pays its fee in
   * the coin it bought, unless BNB pays it): on spot the buy adds that much less to what is held. Unset: 0.
   */
  readonly baseFee?: number;
}

/** What a fill moves of the position (unsigned): on spot a buy adds its coins less those its fee took. */
export const movedBy = (order: ExchangeOrder, spot: boolean): number => (spot && order.side === 'buy' ? order.filled - (order.baseFee ?? 0) : order.filled);

/** What the filled orders moved in all (negative: sold), as the account holds it. */
export const netFilled = (orders: readonly ExchangeOrder[], spot: boolean): number =>
  orders.filter((o) => o.filled > 0).reduce((sum, o) => sum + (o.side === 'buy' ? movedBy(o, spot) : -movedBy(o, spot)), 0);

export interface ReplayedBook {
  readonly positions: readonly OpenPosition[];
  readonly pending: readonly PendingOrder[];
  readonly trades: readonly ClosedTrade[];
}

interface Open {
  id: string;
  side: Side;
  volume: number;
  openPrice: number;
  openTime: string;
  clientOrderId: string | null;
  stopLoss: number | null;
  takeProfit: number | null;
  /** The fees of the fills that opened what is still open (negative: paid). */
  commission: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
/** Volumes and prices of crypto markets go to 1e-8 at most; keep the sums free of float dust. */
const clean = (value: number): number => Math.round(value * 1e10) / 1e10;

/** A position held before the oldest order the exchange still lists. */
export interface Seed {
  readonly id: string;
  readonly side: Side;
  readonly volume: number;
  readonly openPrice: number;
  readonly openTime: string;
}

export interface Pricing {
  /** Bid and ask of a symbol now; undefined: not known. */
  readonly quote: (symbol: string) => { bid: number; ask: number } | undefined;
  readonly contractSize: (symbol: string) => number;
  /** Spot markets cannot go short. */
  readonly spot: (symbol: string) => boolean;
}

/** The book of one account from its orders (any symbols, any order). */
export const replayOrders = (orders: readonly ExchangeOrder[], pricing: Pricing, seeds: ReadonlyMap<string, Seed> = new Map()): ReplayedBook => {
  const positions: OpenPosition[] = [];
  const trades: ClosedTrade[] = [];
  const pending: PendingOrder[] = [];
  const bySymbol = new Map<string, ExchangeOrder[]>();
  for (const order of orders) bySymbol.set(order.symbol, [...(bySymbol.get(order.symbol) ?? []), order]);
  for (const symbol of seeds.keys()) if (!bySymbol.has(symbol)) bySymbol.set(symbol, []);
  for (const [symbol, list] of bySymbol) {
    const size = pricing.contractSize(symbol);
    const seed = seeds.get(symbol);
    let open: Open | null = seed ? { ...seed, clientOrderId: null, stopLoss: null, takeProfit: null, commission: 0 } : null;
    const fills = list
      .filter((o) => o.filled > 0 && o.average !== null)
      .sort((a, b) => a.lastTradeTimestamp - b.lastTradeTimestamp || a.timestamp - b.timestamp);
    for (const fill of fills) {
      const price = fill.average!;
      const moved = clean(movedBy(fill, pricing.spot(symbol)));
      let volume = moved;
      /** The fill's fee on `part` of its volume (negative: paid). */
      const feeOn = (part: number): number => (fill.fee > 0 && moved > 0 ? -(fill.fee * part) / moved : 0);
      if (open && open.side !== fill.side) {
        const closed = Math.min(volume, open.volume);
        const direction = open.side === 'buy' ? 1 : -1;
        const openingShare = (open.commission * closed) / open.volume;
        trades.push({
          kind: 'trade',
          id: fill.id,
          positionId: open.id,
          symbol,
          orderType: open.side,
          volume: clean(closed),
          openPrice: open.openPrice,
          openTime: open.openTime,
          closePrice: price,
          closeTime: iso(fill.lastTradeTimestamp),
          profit: clean((price - open.openPrice) * closed * size * direction),
          swap: 0,
          commission: clean(openingShare + feeOn(closed)),
          reason: fill.closeReason,
          stopLoss: open.stopLoss,
          takeProfit: open.takeProfit,
          comment: null,
          magicNumber: null,
          clientOrderId: fill.clientOrderId,
        });
        open.volume = clean(open.volume - closed);
        open.commission = clean(open.commission - openingShare);
        volume = clean(volume - closed);
        if (open.volume <= 0) open = null;
        if (volume <= 0 || pricing.spot(symbol)) continue;
      }
      if (!open) {
        if (fill.side === 'sell' && pricing.spot(symbol)) continue;
        open = {
          id: fill.id,
          side: fill.side,
          volume,
          openPrice: price,
          openTime: iso(fill.lastTradeTimestamp),
          clientOrderId: fill.clientOrderId,
          stopLoss: fill.stopLoss,
          takeProfit: fill.takeProfit,
          commission: clean(feeOn(volume)),
        };
      } else {
        open.openPrice = clean((open.openPrice * open.volume + price * volume) / (open.volume + volume));
        open.volume = clean(open.volume + volume);
        open.commission = clean(open.commission + feeOn(volume));
      }
    }
    const quote = pricing.quote(symbol);
    if (open) {
      const current = quote ? (open.side === 'buy' ? quote.bid : quote.ask) : open.openPrice;
      positions.push({
        kind: 'position',
        id: open.id,
        symbol,
        orderType: open.side,
        volume: open.volume,
        openPrice: open.openPrice,
        openTime: open.openTime,
        stopLoss: open.stopLoss,
        takeProfit: open.takeProfit,
        swap: 0,
        commission: open.commission,
        comment: null,
        magicNumber: null,
        clientOrderId: open.clientOrderId,
        currentPrice: current,
        profit: clean((current - open.openPrice) * open.volume * size * (open.side === 'buy' ? 1 : -1)),
      });
    }
    for (const order of list) {
      if (order.status !== 'open') continue;
      // A limit order rests at its price; a stop order waits for its trigger.
      const stop = order.triggerPrice !== null;
      const openPrice = stop ? order.triggerPrice : order.type === 'limit' ? order.price : null;
      if (openPrice === null) continue;
      pending.push({
        kind: 'order',
        id: order.id,
        symbol,
        orderType: stop ? (order.side === 'buy' ? 'buyStop' : 'sellStop') : order.side === 'buy' ? 'buyLimit' : 'sellLimit',
        volume: clean(order.amount - order.filled),
        openPrice,
        openTime: iso(order.timestamp),
        stopLoss: order.stopLoss,
        takeProfit: order.takeProfit,
        expiry: null,
        comment: null,
        magicNumber: null,
        clientOrderId: order.clientOrderId,
        currentPrice: quote ? (order.side === 'buy' ? quote.ask : quote.bid) : openPrice,
      });
    }
  }
  return { positions, pending, trades };
};
