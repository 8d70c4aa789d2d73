// What a webhook delivers (the spec leaves the payload layout open; this is ours): which position
// events become which event kinds, the stable id of each delivery, and its JSON body.
//
//   PositionOpened           -> POSITION_OPENED (a market open, or a pending order that filled)
//   PositionClosed           -> POSITION_CLOSED and HISTORY_UPDATED (the close is a new history entry)
//   PositionPartiallyClosed  -> HISTORY_UPDATED (the closed part is a history entry; the position stays)
//   BalanceChanged           -> HISTORY_UPDATED (a deposit or withdrawal is a history entry)
// Changes that add no history entry and neither open nor close a position (SL/TP changes, netting
// increases, pending orders, connection changes) are not delivered.
import { v5 as uuidv5 } from 'uuid';
import type { PositionsEvent } from '../positions/events.js';
import type { ClosedTradeData, PositionData } from '../positions/position.js';
import type { WebhookEventKind } from './feature.js';

/** Fixed forever: delivery ids derive from it. */
export const WEBHOOK_EVENT_NAMESPACE = '6f2b7d0e-93a1-4c8e-b5d4-1e7a9c3f5b20';

export const webhookKindsOf = (event: PositionsEvent): WebhookEventKind[] => {
  switch (event.type) {
    case 'PositionOpened':
      return ['POSITION_OPENED'];
    case 'PositionClosed':
      return ['POSITION_CLOSED', 'HISTORY_UPDATED'];
    case 'PositionPartiallyClosed':
    case 'BalanceChanged':
      return ['HISTORY_UPDATED'];
    default:
      return [];
  }
};

/**
 * The delivery's id, the same at every attempt and after any restart: uuid v5 of the source event's id,
 * the webhook (feature) id and the kind (one source event may give two kinds). Receivers deduplicate by it.
 */
export const webhookEventId = (sourceEventId: string, featureId: string, kind: WebhookEventKind): string =>
  uuidv5(`${sourceEventId}/${featureId}/${kind}`, WEBHOOK_EVENT_NAMESPACE);

export interface AccountMetadata {
  readonly accountId: string;
  readonly projectId: string;
  readonly alias: string | null;
  readonly loginServer: string;
  readonly loginAccountNumber: string;
  readonly accountTypeId: number;
  readonly regionId: number;
}

/** The open position as delivered: the shared position (domain/positions/position.ts) without the internal client order id. */
export type OpenPositionDetails = Omit<PositionData, 'clientOrderId'> & { readonly fromPendingOrder: boolean };

/** A closed volume as delivered; `closeReason` is manual, stopLoss, takeProfit or stopOut. */
export type ClosedTradeDetails = Omit<ClosedTradeData, 'clientOrderId' | 'reason'> & { readonly closeReason: ClosedTradeData['reason'] };

export type HistoryEntry =
  | (ClosedTradeDetails & { readonly entryType: 'TRADE'; readonly partial: boolean; readonly remainingVolume: number })
  | { readonly entryType: 'BALANCE'; readonly operationId: string; readonly time: string; readonly amount: number; readonly comment: string | null };

export interface WebhookPayload {
  readonly eventId: string;
  readonly type: WebhookEventKind;
  /** When it happened at the venue (ISO 8601, UTC). */
  readonly occurredAt: string;
  /** The FeatureWebhookDTO's featureId. */
  readonly webhookId: string;
  readonly accountId: string;
  /** The position concerned; null for a deposit or withdrawal. */
  readonly positionId: string | null;
  /** With includePositionDetails, POSITION_OPENED: the open position; POSITION_CLOSED: the closed trade. */
  readonly position?: OpenPositionDetails | ClosedTradeDetails;
  /** With includePositionDetails, HISTORY_UPDATED: the new entry. */
  readonly historyEntry?: HistoryEntry;
  /** With includeAccountMetadata. */
  readonly account?: AccountMetadata | null;
}

export interface PayloadOptions {
  readonly includePositionDetails: boolean;
  readonly includeAccountMetadata: boolean;
}

// Member by member, not by spreading: stored events come back from jsonb with their members reordered,
// and the body's bytes should not depend on that.
const openDetails = (p: PositionData, fromPendingOrder: boolean): OpenPositionDetails => ({
  positionId: p.positionId,
  symbol: p.symbol,
  orderType: p.orderType,
  volume: p.volume,
  openPrice: p.openPrice,
  openTime: p.openTime,
  stopLoss: p.stopLoss,
  takeProfit: p.takeProfit,
  swap: p.swap,
  commission: p.commission,
  comment: p.comment,
  magicNumber: p.magicNumber,
  fromPendingOrder,
});

const tradeDetails = (t: ClosedTradeData): ClosedTradeDetails => ({
  tradeId: t.tradeId,
  positionId: t.positionId,
  symbol: t.symbol,
  orderType: t.orderType,
  volume: t.volume,
  openPrice: t.openPrice,
  openTime: t.openTime,
  closePrice: t.closePrice,
  closeTime: t.closeTime,
  profit: t.profit,
  swap: t.swap,
  commission: t.commission,
  closeReason: t.reason,
  comment: t.comment,
  magicNumber: t.magicNumber,
});

type Delivered = Extract<PositionsEvent, { type: 'PositionOpened' | 'PositionClosed' | 'PositionPartiallyClosed' | 'BalanceChanged' }>;

const positionIdOf = (event: Delivered): string | null => {
  switch (event.type) {
    case 'PositionOpened':
      return event.data.position.positionId;
    case 'PositionClosed':
    case 'PositionPartiallyClosed':
      return event.data.trade.positionId;
    case 'BalanceChanged':
      return null;
  }
};

const detailsOf = (event: Delivered, kind: WebhookEventKind): Pick<WebhookPayload, 'position' | 'historyEntry'> => {
  switch (event.type) {
    case 'PositionOpened':
      return { position: openDetails(event.data.position, event.data.fromPendingOrder ?? false) };
    case 'PositionClosed':
      return kind === 'POSITION_CLOSED'
        ? { position: tradeDetails(event.data.trade) }
        : { historyEntry: { entryType: 'TRADE', ...tradeDetails(event.data.trade), partial: false, remainingVolume: 0 } };
    case 'PositionPartiallyClosed':
      return { historyEntry: { entryType: 'TRADE', ...tradeDetails(event.data.trade), partial: true, remainingVolume: event.data.position.volume } };
    case 'BalanceChanged': {
      const { operationId, time, amount, comment } = event.data.operation;
      return { historyEntry: { entryType: 'BALANCE', operationId, time, amount, comment } };
    }
  }
};

/**
 * The body of one delivery. `event` must be one webhookKindsOf maps to `kind`. The member order is
 * fixed, so the same inputs give the same bytes.
 */
export const buildWebhookPayload = (input: {
  readonly sourceEventId: string;
  readonly event: PositionsEvent;
  readonly kind: WebhookEventKind;
  readonly featureId: string;
  readonly options: PayloadOptions;
  readonly account: AccountMetadata | null;
}): WebhookPayload => {
  const { event, kind } = input;
  if (!webhookKindsOf(event).includes(kind)) throw new Error(`${event.type} is not delivered as ${kind}`);
  const delivered = event as Delivered;
  return {
    eventId: webhookEventId(input.sourceEventId, input.featureId, kind),
    type: kind,
    occurredAt: event.data.at,
    webhookId: input.featureId,
    accountId: event.data.accountId,
    positionId: positionIdOf(delivered),
    ...(input.options.includePositionDetails ? detailsOf(delivered, kind) : {}),
    ...(input.options.includeAccountMetadata ? { account: input.account } : {}),
  };
};
