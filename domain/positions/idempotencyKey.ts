// An Idempotency-Key on an account's trading request (the IETF Idempotency-Key header draft, as Stripe
// uses it), as an aggregate of its own: stream `idempotencyKey-<requestId>`, where `requestId` derives
// from the account and the key. The first use records the request's fingerprint (method, path, query
// and canonical body); a later use with the same fingerprint is a retry of the same request and records
// nothing; a use with another fingerprint is refused with [IDEMPOTENCY_KEY_REUSED] before anything is
// recorded. Two uses racing meet at the stream's revision: the loser decides again on the winner's event.
import { v5 as uuidv5 } from 'uuid';
import type { CommandMetadata, Decider } from '../shared/command.js';
import { illegalState } from '../shared/errors.js';

/** Fixed forever: the id of a key's event derives from it, the key and the fingerprint. */
const FINGERPRINT_NAMESPACE = '3f0b2c5e-8d41-4a6f-b7c2-5e9a1d3c7f80';

export interface IdempotencyKeyUse {
  readonly requestId: string;
  readonly accountId: string;
  readonly fingerprint: string;
}

export type IdempotencyKeyEvent = { readonly type: 'IdempotencyKeyUsed'; readonly data: IdempotencyKeyUse & { readonly at: string } };

export interface ClaimIdempotencyKey {
  readonly type: 'ClaimIdempotencyKey';
  readonly data: IdempotencyKeyUse;
  readonly metadata: CommandMetadata;
}

/** The fingerprint of the request the key was first used for; null while it is unused. */
export interface IdempotencyKeyState {
  readonly fingerprint: string | null;
}

export const idempotencyKeyDecider: Decider<ClaimIdempotencyKey, IdempotencyKeyEvent, IdempotencyKeyState> = {
  initialState: { fingerprint: null },
  evolve: (state, event) => (state.fingerprint === null ? { fingerprint: event.data.fingerprint } : state),
  decide: (command, state) => {
    const { requestId, accountId, fingerprint } = command.data;
    if (state.fingerprint === null) return [{ type: 'IdempotencyKeyUsed', data: { requestId, accountId, fingerprint, at: command.metadata.now } }];
    if (state.fingerprint === fingerprint) return [];
    throw illegalState(
      '[IDEMPOTENCY_KEY_REUSED]',
      'this Idempotency-Key was used on this account for another request (method, path, query or body differ): send a new key for a new request',
    );
  },
};

export const idempotencyKeyStream = (requestId: string): string => `idempotencyKey-${requestId}`;

export const idempotencyKeyEventId = (event: IdempotencyKeyEvent): string => uuidv5(`${event.data.requestId}/${event.data.fingerprint}`, FINGERPRINT_NAMESPACE);
