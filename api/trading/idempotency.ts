// Idempotency-Key on trading requests, as the IETF Idempotency-Key header draft and Stripe define it:
// the key names one request. The first use of a key on an account records the request's fingerprint
// (method, path, query and canonical body) as the only event of the key's stream; a later use with the
// same fingerprint is a retry (the venue places nothing twice and answers as before); a use with
// another fingerprint is refused with 422 [IDEMPOTENCY_KEY_REUSED] before anything is recorded.
//
// One append decides it: the event id is derived from the key and the fingerprint, and the store's
// idempotency rule (the same id at revision 0 with `no_stream` is a no-op, store/postgres/schema.ts;
// EventStoreDB does the same) lets a retry through while another fingerprint meets the stream that
// exists and fails with WrongExpectedVersionError, even when both requests race.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { v5 as uuidv5 } from 'uuid';
import { canonicalJson } from '../../domain/shared/json.js';
import type { EventStore, EventMetadata } from '../../store/port.js';
import { WrongExpectedVersionError } from '../../store/errors.js';
import { ApiError } from '../errors.js';

const FINGERPRINT_NAMESPACE = '3f0b2c5e-8d41-4a6f-b7c2-5e9a1d3c7f80';

export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,128}$';
const KEY = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export const IdempotencyKeyHeader = Type.Object(
  {
    'Idempotency-Key': Type.Optional(
      Type.String({
        pattern: IDEMPOTENCY_KEY_PATTERN,
        description:
          'makes a retry safe: 1 to 128 visible ASCII characters naming this request on this account. The same key with the same method, path, query and body places once and answers as the first time; the same key with anything else gives 422 [IDEMPOTENCY_KEY_REUSED] and does nothing.',
      }),
    ),
  },
  { additionalProperties: true },
);

/** The key as sent, or null; 400 when it is not 1 to 128 visible ASCII characters. */
export const idempotencyKeyOf = (header: string | undefined): string | null => {
  if (header === undefined) return null;
  if (!KEY.test(header)) throw new ApiError(400, '[VALIDATION_FAILED]', 'Idempotency-Key must be 1 to 128 visible ASCII characters');
  return header;
};

/**
 * SHA-256 of the request as the service read it; bodies that differ only in member order are the same
 * request (they are validated first, so their depth is bounded).
 */
export const requestFingerprint = (request: { method: string; path: string; query: unknown; body: unknown }): string =>
  createHash('sha256')
    .update(`${request.method.toUpperCase()}\n${request.path}\n${canonicalJson(request.query ?? {})}\n${canonicalJson(request.body ?? null)}`)
    .digest('hex');

export const idempotencyKeyStream = (requestId: string): string => `idempotencyKey-${requestId}`;

/**
 * Records the first use of a key (`requestId` is derived from the account and the key), or accepts a
 * retry of the same request; another request under the same key: 422 [IDEMPOTENCY_KEY_REUSED].
 */
export const claimIdempotencyKey = async (
  store: EventStore,
  claim: { readonly requestId: string; readonly accountId: string; readonly fingerprint: string; readonly at: string },
  metadata: EventMetadata,
): Promise<void> => {
  const { requestId, accountId, fingerprint, at } = claim;
  try {
    await store.appendToStream(
      idempotencyKeyStream(requestId),
      {
        id: uuidv5(`${requestId}/${fingerprint}`, FINGERPRINT_NAMESPACE),
        type: 'IdempotencyKeyUsed',
        data: { requestId, accountId, fingerprint, at },
        metadata,
      },
      { expectedRevision: 'no_stream' },
    );
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
    throw new ApiError(
      422,
      '[IDEMPOTENCY_KEY_REUSED]',
      'this Idempotency-Key was used on this account for another request (method, path, query or body differ): send a new key for a new request',
    );
  }
};
