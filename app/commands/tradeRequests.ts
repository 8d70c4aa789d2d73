// What the trading routes record around a venue request (spec "Trading"): the Idempotency-Key's claim
// (domain/positions/idempotencyKey.ts) or the requestId's (domain/positions/clientRequestId.ts), through
// the command handler, who asked for what before the
// venue hears of it (TradeRequested), and a venue's refusal (TradeRequestRejected), both through the
// recorder (domain/positions/requests.ts says why they are facts, not decisions).
import { claimedOrderRequestId, clientRequestIdDecider, clientRequestIdEventId, clientRequestIdStream } from '../../domain/positions/clientRequestId.js';
import { idempotencyKeyDecider, idempotencyKeyEventId, idempotencyKeyStream } from '../../domain/positions/idempotencyKey.js';
import { positionsStream, type TradeRequest } from '../../domain/positions/events.js';
import { tradeRequested, tradeRequestRejected } from '../../domain/positions/requests.js';
import type { RequestContext } from '../../domain/shared/command.js';
import { eventMetadataOf, handleCommand } from '../../store/commandHandler.js';
import type { EventMetadata } from '../../store/port.js';
import { recordFacts } from '../../store/recorder.js';
import { commandMetadata, type Services } from '../services.js';

export type { EventMetadata };

export interface TradeRequestArrival {
  readonly accountId: string;
  readonly requestId: string;
  /** The request's fingerprint when it came with an Idempotency-Key (null: it did not). */
  readonly fingerprint: string | null;
  readonly request: TradeRequest;
  readonly context: RequestContext;
}

/**
 * Claims the Idempotency-Key (a DomainError [IDEMPOTENCY_KEY_REUSED] when another request holds it) and
 * records the request; answers the metadata its refusal, if any, carries too.
 */
export const recordTradeRequest = async (services: Services, arrival: TradeRequestArrival): Promise<EventMetadata> => {
  const { accountId, requestId, fingerprint, request } = arrival;
  const command = commandMetadata(services, arrival.context);
  if (fingerprint !== null) {
    await handleCommand(
      services.store,
      idempotencyKeyStream(requestId),
      idempotencyKeyDecider,
      { type: 'ClaimIdempotencyKey', data: { requestId, accountId, fingerprint }, metadata: command },
      { eventId: idempotencyKeyEventId },
    );
  }
  const metadata = eventMetadataOf(command);
  await recordFacts(services.store, positionsStream(accountId), [tradeRequested(accountId, requestId, request, command.now)], metadata);
  return metadata;
};

/**
 * Claims PositionRequestDTO.requestId for a request with this fingerprint, proposing `orderRequestId`;
 * answers the order id to place with: the proposed one, or the earlier request's when this is a retry.
 */
export const claimClientRequestId = async (
  services: Services,
  claim: {
    readonly accountId: string;
    readonly requestId: number;
    readonly fingerprint: string;
    readonly orderRequestId: string;
    readonly context: RequestContext;
  },
): Promise<string> => {
  const { accountId, requestId, fingerprint, orderRequestId } = claim;
  const handled = await handleCommand(
    services.store,
    clientRequestIdStream(accountId, requestId),
    clientRequestIdDecider,
    { type: 'ClaimClientRequestId', data: { accountId, requestId, fingerprint, orderRequestId }, metadata: commandMetadata(services, claim.context) },
    { eventId: clientRequestIdEventId },
  );
  return claimedOrderRequestId(handled.state);
};

/** Records the venue's refusal of a request, with the metadata of the request. */
export const recordTradeRejection = async (
  services: Services,
  rejection: { readonly accountId: string; readonly requestId: string; readonly refusal: { readonly code: string; readonly message: string } },
  metadata: EventMetadata,
): Promise<void> => {
  const { accountId, requestId, refusal } = rejection;
  await recordFacts(
    services.store,
    positionsStream(accountId),
    [tradeRequestRejected(accountId, requestId, refusal, services.clock().toISOString())],
    metadata,
  );
};
