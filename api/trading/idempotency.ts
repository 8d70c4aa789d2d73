// Idempotency-Key on trading requests, as the IETF Idempotency-Key header draft and Stripe define it:
// the key names one request. The first use of a key on an account records the request's fingerprint
// (method, path, query and canonical body) as the only event of the key's stream; a later use with the
// same fingerprint is a retry (the venue places nothing twice and answers as before); a use with
// another fingerprint is refused with 422 [IDEMPOTENCY_KEY_REUSED] before anything is recorded. The
// rule is the key's decider (domain/positions/idempotencyKey.ts); two uses racing meet at the stream's
// revision in the command handler, and the loser decides again on the winner's event.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { idempotencyKeyDecider, idempotencyKeyEventId, idempotencyKeyStream, type IdempotencyKeyUse } from '../../domain/positions/idempotencyKey.js';
import type { CommandMetadata } from '../../domain/shared/command.js';
import { DomainError } from '../../domain/shared/errors.js';
import { canonicalJson } from '../../domain/shared/json.js';
import { handleCommand } from '../../store/commandHandler.js';
import type { EventStore } from '../../store/port.js';
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

/**
 * Records the first use of a key (`requestId` is derived from the account and the key), or accepts a
 * retry of the same request; another request under the same key: 422 [IDEMPOTENCY_KEY_REUSED].
 */
export const claimIdempotencyKey = async (store: EventStore, use: IdempotencyKeyUse, metadata: CommandMetadata): Promise<void> => {
  try {
    await handleCommand(
      store,
      idempotencyKeyStream(use.requestId),
      idempotencyKeyDecider,
      { type: 'ClaimIdempotencyKey', data: use, metadata },
      { eventId: idempotencyKeyEventId },
    );
  } catch (error) {
    if (error instanceof DomainError && error.code === '[IDEMPOTENCY_KEY_REUSED]') throw new ApiError(422, error.code, error.message);
    throw error;
  }
};
