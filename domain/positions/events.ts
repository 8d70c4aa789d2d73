// Events of an account's trading (stream `positions-<accountId>`): what happened at its venue, in the
// order the venue reports it (positions, pending orders, balance, the connection), and the trading
// requests made through the API with who made them. Venue facts are recorded, never decided: the
// venue is the authority on its own book. The position, order and trade they carry are position.ts's.
import type { MarketOrderType, OrderType } from '../copy/types.js';
import type { BalanceOperationData, CancelReason, ClosedTradeData, PendingOrderData, PositionData } from './position.js';

export type { BalanceOperationData, CancelReason, ClosedTradeData, CloseReason, PendingOrderData, PositionData } from './position.js';

/** What a trading request through the API asked for. */
export type TradeRequest =
  | {
      readonly action: 'open';
      readonly symbol: string;
      readonly orderType: OrderType;
      readonly volume: number;
      readonly openPrice: number | null;
      readonly stopLoss: number | null;
      readonly takeProfit: number | null;
      readonly comment: string | null;
      readonly magicNumber: number | null;
      readonly expiry: string | null;
      /** POST /orders: answered before the venue did. */
      readonly async: boolean;
    }
  | {
      readonly action: 'modify';
      readonly positionId: string;
      readonly volume?: number;
      readonly openPrice?: number;
      readonly stopLoss?: number | null;
      readonly takeProfit?: number | null;
    }
  | { readonly action: 'close'; readonly positionId: string; readonly pendingOnly: boolean }
  | { readonly action: 'closeAll' };

interface Base {
  readonly accountId: string;
  /** When the venue says it happened (venue facts) or the request arrived (requests). */
  readonly at: string;
}

export type PositionsEvent =
  /** `fromPendingOrder`: the position a pending order became (PendingOrderFilled came just before). */
  | { type: 'PositionOpened'; data: Base & { position: PositionData; fromPendingOrder?: boolean } }
  /** Netting: a same-side deal added `volume` at `price`; `position` is the result. */
  | { type: 'PositionIncreased'; data: Base & { position: PositionData; volume: number; price: number } }
  | { type: 'PositionModified'; data: Base & { position: PositionData } }
  | { type: 'PositionPartiallyClosed'; data: Base & { position: PositionData; trade: ClosedTradeData } }
  | { type: 'PositionClosed'; data: Base & { trade: ClosedTradeData } }
  /**
   * A reconciliation found a known position no longer at the venue, and no closing trade of it in the
   * venue's history: its close and result are unknown. The position stays as it was known (a later
   * reconciliation whose history shows the close records PositionClosed); this only tells the account.
   */
  | {
      type: 'PositionGoneWithoutTrade';
      data: Base & { positionId: string; symbol: string; orderType: MarketOrderType; volume: number; openPrice: number };
    }
  | { type: 'PendingOrderPlaced'; data: Base & { order: PendingOrderData } }
  | { type: 'PendingOrderModified'; data: Base & { order: PendingOrderData } }
  /** The order became the position with the same id; its opening follows as PositionOpened or PositionIncreased. */
  | { type: 'PendingOrderFilled'; data: Base & { order: PendingOrderData; price: number } }
  | { type: 'PendingOrderCancelled'; data: Base & { order: PendingOrderData; reason: CancelReason } }
  | { type: 'BalanceChanged'; data: Base & { operation: BalanceOperationData } }
  /** `currency`: the account currency the venue reported on connecting (absent in events older than it, or when the venue did not answer). */
  | { type: 'VenueConnected'; data: Base & { venue: string; login: string; currency?: string } }
  | { type: 'VenueConnectionFailed'; data: Base & { venue: string; login: string; code: string; message: string } }
  | { type: 'VenueDisconnected'; data: Base & { reason: 'stopped' | 'deleted' | 'reconnect' } }
  | { type: 'TradeRequested'; data: Base & { requestId: string; request: TradeRequest } }
  | { type: 'TradeRequestRejected'; data: Base & { requestId: string; code: string; message: string } };

export type PositionsEventType = PositionsEvent['type'];

export const positionsEventTypes: readonly PositionsEventType[] = [
  'PositionOpened',
  'PositionIncreased',
  'PositionModified',
  'PositionPartiallyClosed',
  'PositionClosed',
  'PositionGoneWithoutTrade',
  'PendingOrderPlaced',
  'PendingOrderModified',
  'PendingOrderFilled',
  'PendingOrderCancelled',
  'BalanceChanged',
  'VenueConnected',
  'VenueConnectionFailed',
  'VenueDisconnected',
  'TradeRequested',
  'TradeRequestRejected',
];

export const POSITIONS_STREAM_PREFIX = 'positions-';
export const positionsStream = (accountId: string): string => `${POSITIONS_STREAM_PREFIX}${accountId}`;
export const accountIdOfPositionsStream = (stream: string): string | null =>
  stream.startsWith(POSITIONS_STREAM_PREFIX) ? stream.slice(POSITIONS_STREAM_PREFIX.length) : null;
