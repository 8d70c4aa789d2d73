// Idempotency-Key on trading requests, as the IETF Idempotency-Key header draft and Stripe define it:
// the key names one request. The first use of a key on an account records the request's fingerprint
// (method, path, query and canonical body) as the only event of the key's stream; a later use with the
// same fingerprint is a retry (the venue places nothing twice and answers as before); a use with
// another fingerprint is refused with 422 [IDEMPOTENCY_KEY_REUSED] before anything is recorded. The
// rule is the key's decider (domain/positions/idempotencyKey.ts); two uses racing meet at the stream's
// revision in the command handler, and the loser decides again on the winner's event.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../domain/shared/errors.js';
import { canonicalJson } from '../../domain/shared/json.js';
import { ApiError } from '../errors.js';

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

/** A DomainError [IDEMPOTENCY_KEY_REUSED] (the key's decider refused another request) as its 422; anything else as it is. */
export const idempotencyKeyReused = (error: unknown): unknown =>
  error instanceof DomainError && error.code === '[IDEMPOTENCY_KEY_REUSED]' ? new ApiError(422, error.code, error.message) : error;
