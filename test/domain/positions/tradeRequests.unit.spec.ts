// The records of trading requests (domain/positions/requests.ts): what each says, and the ids that make
// a retried or replayed request record nothing new.
import { expect } from 'chai';
import type { TradeRequest } from '../../../domain/positions/events.js';
import { tradeRequested, tradeRequestRejected } from '../../../domain/positions/requests.js';

const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const REQUEST = '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const RECEIVED = '2026-03-02T09:30:00.000Z';
const REFUSED = '2026-03-02T09:30:00.250Z';
const close: TradeRequest = { action: 'close', positionId: '1001', pendingOnly: false };
const closedMarket = { code: '[MARKET_CLOSED]', message: 'the market is closed' };

describe('trading request records', () => {
  it('records who asked for what, at the time the request arrived', () =>
    expect(tradeRequested(ACCOUNT, REQUEST, close, RECEIVED)).to.deep.include({
      type: 'TradeRequested',
      data: { accountId: ACCOUNT, at: RECEIVED, requestId: REQUEST, request: close },
    }));

  it("records the venue's refusal with its code and message, at the time it refused", () =>
    expect(tradeRequestRejected(ACCOUNT, REQUEST, closedMarket, REFUSED)).to.deep.include({
      type: 'TradeRequestRejected',
      data: { accountId: ACCOUNT, at: REFUSED, requestId: REQUEST, code: '[MARKET_CLOSED]', message: 'the market is closed' },
    }));

  it('gives the same request the same id whenever it is recorded (a retry under the same Idempotency-Key appends nothing)', () => {
    expect(tradeRequested(ACCOUNT, REQUEST, close, RECEIVED).id).to.equal(tradeRequested(ACCOUNT, REQUEST, close, REFUSED).id);
    expect(tradeRequestRejected(ACCOUNT, REQUEST, closedMarket, REFUSED).id).to.equal(tradeRequestRejected(ACCOUNT, REQUEST, closedMarket, RECEIVED).id);
  });

  it('gives a request, its refusal and the refusal of one item of a close-all ids of their own', () => {
    const ids = new Set([
      tradeRequested(ACCOUNT, REQUEST, close, RECEIVED).id,
      tradeRequestRejected(ACCOUNT, REQUEST, closedMarket, REFUSED).id,
      tradeRequestRejected(ACCOUNT, `${REQUEST}/1001`, closedMarket, REFUSED).id,
    ]);
    expect(ids.size).to.equal(3);
  });

  it('keeps the ids requests had when the routes spelled them out (uuid v5 of the request id and what happened)', () => {
    expect(tradeRequested(ACCOUNT, REQUEST, close, RECEIVED).id).to.equal('14a3f002-d955-547c-99b0-30eee36294a6');
    expect(tradeRequestRejected(ACCOUNT, REQUEST, closedMarket, REFUSED).id).to.equal('d4ea9647-3092-5ff7-96cc-6e78fe53345a');
  });
});
