// The reference's PositionRequestDTO.requestId (0 to 999, then again from 0) on an account's trading
// request, as an aggregate of its own: stream `clientRequestId-<key>`, where `key` derives from the
// account and the number. The reference's meaning: "a client request ID to avoid the request being
// executed multiple times due to network or client errors". Since the numbers wrap, a number names a
// request only for a while: a use with the same fingerprint (method, path and canonical body) as the
// last use, within RETRY_WINDOW_MS of it, is a retry of that request (it records nothing and answers
// its order id, so the venue places nothing twice); any other use (another request, or later) starts a
// new request with the order id the caller proposes. Two uses racing meet at the stream's revision.
import { v5 as uuidv5 } from 'uuid';
import type { CommandMetadata, Decider } from '../shared/command.js';

/** Fixed forever: the stream keys and event ids derive from it. */
const CLIENT_REQUEST_ID_NAMESPACE = '6c1e9d52-47a8-4f0b-8e3d-2b9f5a7c1d64';

/** How long a requestId names the request it was last used for. */
export const RETRY_WINDOW_MS = 120_000;

export interface ClientRequestIdUse {
  readonly accountId: string;
  readonly requestId: number;
  readonly fingerprint: string;
  /** The client order id the request is placed with at the venue. */
  readonly orderRequestId: string;
}

export type ClientRequestIdEvent = { readonly type: 'ClientRequestIdUsed'; readonly data: ClientRequestIdUse & { readonly at: string } };

export interface ClaimClientRequestId {
  readonly type: 'ClaimClientRequestId';
  readonly data: ClientRequestIdUse;
  readonly metadata: CommandMetadata;
}

/** The last use of the number on the account; null while unused. */
export interface ClientRequestIdState {
  readonly last: (ClientRequestIdUse & { readonly at: string }) | null;
}

export const clientRequestIdDecider: Decider<ClaimClientRequestId, ClientRequestIdEvent, ClientRequestIdState> = {
  initialState: { last: null },
  evolve: (_state, event) => ({ last: event.data }),
  decide: (command, state) => {
    const { last } = state;
    const now = Date.parse(command.metadata.now);
    if (last && last.fingerprint === command.data.fingerprint && now - Date.parse(last.at) <= RETRY_WINDOW_MS) return [];
    return [{ type: 'ClientRequestIdUsed', data: { ...command.data, at: command.metadata.now } }];
  },
};

/** The order id a claim ends with: the retried request's, or the one proposed. */
export const claimedOrderRequestId = (state: ClientRequestIdState): string => state.last!.orderRequestId;

export const clientRequestIdStream = (accountId: string, requestId: number): string =>
  `clientRequestId-${uuidv5(`${accountId}/${requestId}`, CLIENT_REQUEST_ID_NAMESPACE)}`;

export const clientRequestIdEventId = (event: ClientRequestIdEvent): string => uuidv5(`${event.data.orderRequestId}/used`, CLIENT_REQUEST_ID_NAMESPACE);
