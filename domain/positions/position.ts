// One open position, one pending order, one closed trade and one balance operation, each written once.
// The member names are those of the positions stream's events, a persisted format: events stored long
// ago must still decode, so every other view adapts to these names, never the other way round.
//
// The views and the one mapper at each boundary:
// - the venue port (engine/venues/port.ts) and the simulated venue's records: these types with the
//   venue's own spelling of the id (`id`) and the side (`buy`, `sellLimit`), which the venue specs and
//   the simulated venue's saved state (sim_accounts) use, plus the venue's live figures; venue to event:
//   engine/venues/recorder.ts;
// - the copy features' view of a slave's positions (domain/copy/features/rules.ts AccountPosition): a
//   Pick of PositionData;
// - webhook deliveries: event to payload, domain/webhook/payload.ts.
// Order types use the spec's spelling (Buy, SellLimit, ...).
import type { MarketOrderType, PendingOrderType } from '../copy/types.js';

export type CloseReason = 'manual' | 'stopLoss' | 'takeProfit' | 'stopOut';
export type CancelReason = 'manual' | 'expired' | 'notEnoughMoney';

export interface PositionData {
  readonly positionId: string;
  readonly symbol: string;
  readonly orderType: MarketOrderType;
  readonly volume: number;
  readonly openPrice: number;
  readonly openTime: string;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly swap: number;
  readonly commission: number;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  /** The client id the position was opened with: a copy's deterministic slave order id. */
  readonly clientOrderId: string | null;
}

export interface PendingOrderData {
  readonly orderId: string;
  readonly symbol: string;
  readonly orderType: PendingOrderType;
  readonly volume: number;
  readonly openPrice: number;
  /** When the order was placed. */
  readonly openTime: string;
  readonly stopLoss: number | null;
  readonly takeProfit: number | null;
  readonly expiry: string | null;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  readonly clientOrderId: string | null;
}

/** One closed volume of a position: a full close or one partial close. */
export interface ClosedTradeData {
  readonly tradeId: string;
  readonly positionId: string;
  readonly symbol: string;
  readonly orderType: MarketOrderType;
  readonly volume: number;
  readonly openPrice: number;
  readonly openTime: string;
  readonly closePrice: number;
  readonly closeTime: string;
  readonly profit: number;
  readonly swap: number;
  readonly commission: number;
  readonly reason: CloseReason;
  /**
   * The stop loss and take profit the position had when this volume closed (absolute prices; null =
   * none). Absent in events recorded before they were kept: read as none.
   */
  readonly stopLoss?: number | null;
  readonly takeProfit?: number | null;
  readonly comment: string | null;
  readonly magicNumber: number | null;
  readonly clientOrderId: string | null;
}

export interface BalanceOperationData {
  readonly operationId: string;
  readonly time: string;
  /** Positive = deposit, negative = withdrawal. */
  readonly amount: number;
  readonly comment: string | null;
}

/**
 * The position a pending order became, as the order and its fill tell: the order's id, volume, stops and
 * labels, the fill's side, price and time, and nothing paid yet.
 */
export const filledPosition = (order: PendingOrderData, fill: Pick<ClosedTradeData, 'orderType' | 'openPrice' | 'openTime'>): PositionData => ({
  positionId: order.orderId,
  symbol: order.symbol,
  orderType: fill.orderType,
  volume: order.volume,
  openPrice: fill.openPrice,
  openTime: fill.openTime,
  stopLoss: order.stopLoss,
  takeProfit: order.takeProfit,
  swap: 0,
  commission: 0,
  comment: order.comment,
  magicNumber: order.magicNumber,
  clientOrderId: order.clientOrderId,
});
