// The trading requests of an account through the API, as the audit log and the account logs need them:
// who asked for what (TradeRequested), and why the venue refused it (TradeRequestRejected).
//
// They are records of what happened (a request arrived, a venue said no), not decisions: no state of
// the account's stream can refuse them, and the venue, not this service, is the authority on whether
// an order is possible. The one rule, "each is recorded once", is their ids: derived from the request
// id (a new uuid, or the account and the Idempotency-Key), so a retry or a replay appends nothing new.
// A decider would have to fold the whole positions stream, every venue change of the account since it
// was opened, for each request to learn what the id already says; they go through the recorder
// (store/recorder.ts) instead.
import { v5 as uuidv5 } from 'uuid';
import type { PositionsEvent, TradeRequest } from './events.js';

/** Fixed forever: the ids of request events, and of the requests named by an Idempotency-Key, derive from it. */
export const TRADE_REQUEST_NAMESPACE = 'a4d0c8e2-61f3-4b7a-9e25-0c7d3b1f6a94';

type Identified<Type extends PositionsEvent['type']> = Extract<PositionsEvent, { type: Type }> & { readonly id: string };

/** A request that arrived at `at` (the time it was received). */
export const tradeRequested = (accountId: string, requestId: string, request: TradeRequest, at: string): Identified<'TradeRequested'> => ({
  id: uuidv5(`${requestId}/requested`, TRADE_REQUEST_NAMESPACE),
  type: 'TradeRequested',
  data: { accountId, at, requestId, request },
});

/** The venue's refusal of a request (or of one item of a close-all, `<requestId>/<positionId>`), at the time it refused. */
export const tradeRequestRejected = (
  accountId: string,
  requestId: string,
  refusal: { readonly code: string; readonly message: string },
  at: string,
): Identified<'TradeRequestRejected'> => ({
  id: uuidv5(`${requestId}/rejected`, TRADE_REQUEST_NAMESPACE),
  type: 'TradeRequestRejected',
  data: { accountId, at, requestId, code: refusal.code, message: refusal.message },
});
