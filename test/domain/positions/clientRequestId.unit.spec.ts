// The reference's requestId (domain/positions/clientRequestId.ts): the same number with the same request
// within the retry window is a retry (nothing recorded, the first order id answered); another request, or
// the same one later (the numbers wrap at 999), starts a new request.
import { expect } from 'chai';
import {
  type ClaimClientRequestId,
  claimedOrderRequestId,
  type ClientRequestIdEvent,
  clientRequestIdDecider,
  clientRequestIdStream,
  RETRY_WINDOW_MS,
} from '../../../domain/positions/clientRequestId.js';
import { systemContext } from '../../../domain/shared/command.js';
import { givenDecider } from '../givenDecider.js';

const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const FIRST = '2026-03-02T09:30:00.000Z';
const at = (ms: number) => new Date(Date.parse(FIRST) + ms).toISOString();

const claim = (fingerprint: string, orderRequestId: string, now = FIRST): ClaimClientRequestId => ({
  type: 'ClaimClientRequestId',
  data: { accountId: ACCOUNT, requestId: 602, fingerprint, orderRequestId },
  metadata: { now, context: systemContext('spec') },
});
const used = (fingerprint: string, orderRequestId: string, when = FIRST): ClientRequestIdEvent => ({
  type: 'ClientRequestIdUsed',
  data: { accountId: ACCOUNT, requestId: 602, fingerprint, orderRequestId, at: when },
});

const given = givenDecider(clientRequestIdDecider);

describe('client requestId decider', () => {
  it('records the first use with the order id proposed', () =>
    given([])
      .when(claim('abc', 'order-1'))
      .then([used('abc', 'order-1')]));

  it('records nothing for the same request within the window: the retry keeps the first order id', () => {
    given([used('abc', 'order-1')])
      .when(claim('abc', 'order-2', at(RETRY_WINDOW_MS)))
      .then([]);
    const state = [used('abc', 'order-1')].reduce(clientRequestIdDecider.evolve, clientRequestIdDecider.initialState);
    expect(claimedOrderRequestId(state)).to.equal('order-1');
  });

  it('starts a new request for another body under the same number (the numbers wrap)', () =>
    given([used('abc', 'order-1')])
      .when(claim('abd', 'order-2', at(1000)))
      .then([used('abd', 'order-2', at(1000))]));

  it('starts a new request for the same body after the window', () =>
    given([used('abc', 'order-1')])
      .when(claim('abc', 'order-2', at(RETRY_WINDOW_MS + 1)))
      .then([used('abc', 'order-2', at(RETRY_WINDOW_MS + 1))]));

  it('keeps a stream per account and number', () => {
    expect(clientRequestIdStream(ACCOUNT, 1)).not.to.equal(clientRequestIdStream(ACCOUNT, 2));
    expect(clientRequestIdStream(ACCOUNT, 1)).to.equal(clientRequestIdStream(ACCOUNT, 1));
    expect(clientRequestIdStream(ACCOUNT, 1)).not.to.equal(clientRequestIdStream('66666666-6666-4666-8666-666666666666', 1));
  });
});
