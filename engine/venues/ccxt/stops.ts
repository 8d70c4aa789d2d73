// Stop loss, take profit, stop orders and pending-order changes, per exchange: what ccxt's unified API
// leaves to each exchange's own parameters. An exchange listed here supports them through the adapter;
// any other refuses them with a clear code (connection.ts): [INVALID_STOPS] for stop loss / take profit,
// [INVALID_REQUEST] for stop orders and pending changes.
//
// Bybit v5 (linear): stop loss and take profit are the position's (tpslMode Full), attached to the
// opening order (`stopLoss` / `takeProfit`) and changed on the open position with
// /v5/position/trading-stop ("0" removes one); they are read back from /v5/position/list. Stop orders are
// conditional market orders (`triggerPrice`, `triggerDirection` 1 rising / 2 falling); a pending order's
// price, trigger or quantity changes with /v5/order/amend (ccxt editOrder).
import type { Exchange, MarketInterface as Market } from 'ccxt';

export interface PositionStops {
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
}

export interface StopSupport {
  /** The createOrder params attaching a stop loss and take profit to an opening order. */
  attach(stops: PositionStops): Record<string, unknown>;
  /** The createOrder params of a stop order (a market order that waits for `trigger`). */
  stopOrder(side: 'buy' | 'sell', trigger: number): Record<string, unknown>;
  /** Sets (null: removes) the stop loss and take profit of the open position of `market`. */
  setPositionStops(exchange: Exchange, market: Market, stops: PositionStops): Promise<void>;
  /** The stop loss and take profit of the open positions of `markets`, by market id. */
  positionStops(exchange: Exchange, markets: readonly Market[]): Promise<Map<string, PositionStops>>;
  /** The editOrder params of a new trigger price for a stop order. */
  retrigger(trigger: number): Record<string, unknown>;
}

type Implicit = Record<string, (params: Record<string, unknown>) => Promise<unknown>>;

const bybit: StopSupport = {
  attach: ({ stopLoss, takeProfit }) => ({
    ...(stopLoss !== null ? { stopLoss: { triggerPrice: stopLoss } } : {}),
    ...(takeProfit !== null ? { takeProfit: { triggerPrice: takeProfit } } : {}),
  }),
  stopOrder: (side, trigger) => ({ triggerPrice: trigger, triggerDirection: side === 'buy' ? 'ascending' : 'descending' }),
  setPositionStops: async (exchange, market, { stopLoss, takeProfit }) => {
    await (exchange as unknown as Implicit).privatePostV5PositionTradingStop!({
      category: 'linear',
      symbol: market.id,
      stopLoss: stopLoss === null ? '0' : exchange.priceToPrecision(market.symbol, stopLoss),
      takeProfit: takeProfit === null ? '0' : exchange.priceToPrecision(market.symbol, takeProfit),
      tpslMode: 'Full',
      positionIdx: 0,
    });
  },
  positionStops: async (exchange, markets) => {
    const result = new Map<string, PositionStops>();
    if (markets.length === 0) return result;
    const positions = await exchange.fetchPositions(markets.map((m) => m.symbol));
    for (const p of positions) {
      const market = p.symbol ? exchange.markets?.[p.symbol] : undefined;
      if (!market || !(Number(p.contracts ?? 0) > 0)) continue;
      result.set(market.id, { stopLoss: positiveOrNull(p.stopLossPrice), takeProfit: positiveOrNull(p.takeProfitPrice) });
    }
    return result;
  },
  retrigger: (trigger) => ({ triggerPrice: trigger }),
};

const positiveOrNull = (value: number | undefined): number | null => (typeof value === 'number' && value > 0 ? value : null);

/** The exchanges whose stops the adapter places, by ccxt exchange id. */
export const STOP_SUPPORT: Readonly<Record<string, StopSupport>> = { bybit };
