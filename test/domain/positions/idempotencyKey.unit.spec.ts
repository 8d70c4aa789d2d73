// An Idempotency-Key's first use wins (domain/positions/idempotencyKey.ts): the same request again is a
// retry and records nothing; another request under the key is refused before anything is recorded.
import { expect } from 'chai';
import { type ClaimIdempotencyKey, idempotencyKeyDecider, type IdempotencyKeyEvent, idempotencyKeyEventId } from '../../../domain/positions/idempotencyKey.js';
import { systemContext } from '../../../domain/shared/command.js';
import { givenDecider } from '../givenDecider.js';

const REQUEST = '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const FIRST_USE = '2026-03-02T09:30:00.000Z';
const RETRY = '2026-03-02T09:31:00.000Z';

const claim = (fingerprint: string, now = FIRST_USE): ClaimIdempotencyKey => ({
  type: 'ClaimIdempotencyKey',
  data: { requestId: REQUEST, accountId: ACCOUNT, fingerprint },
  metadata: { now, context: systemContext('spec') },
});
const used = (fingerprint: string, at = FIRST_USE): IdempotencyKeyEvent => ({
  type: 'IdempotencyKeyUsed',
  data: { requestId: REQUEST, accountId: ACCOUNT, fingerprint, at },
});

const given = givenDecider(idempotencyKeyDecider);

describe('idempotency key decider', () => {
  it("records the first use with the request's fingerprint, at the time the request arrived", () =>
    given([])
      .when(claim('abc'))
      .then([used('abc')]));

  it('records nothing for the same request again: a retry answers as the first time', () =>
    given([used('abc')])
      .when(claim('abc', RETRY))
      .then([]));

  it('refuses another request under a used key with [IDEMPOTENCY_KEY_REUSED]', () => {
    const refusal = given([used('abc')])
      .when(claim('abd', RETRY))
      .thenRefuses('[IDEMPOTENCY_KEY_REUSED]', 'conflict');
    expect(refusal.message).to.contain('send a new key');
  });

  it('keeps judging by the first use when a later event of the key is seen', () =>
    given([used('abc'), used('abd', RETRY)])
      .when(claim('abd', RETRY))
      .thenRefuses('[IDEMPOTENCY_KEY_REUSED]', 'conflict'));

  it('keeps the event id the key had before the decider (uuid v5 of the request id and the fingerprint)', () =>
    expect(idempotencyKeyEventId(used('abc'))).to.equal('d1aa7118-e295-5032-9f53-be465b5487cb'));
});
