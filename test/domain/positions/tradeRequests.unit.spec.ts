// The trading requests of an account (domain/positions/decider.ts), as given / when / then: a request
// and a venue's refusal of it are each recorded once, whatever else the account's positions stream holds.
import { expect } from 'chai';
import type { TradeRequestCommand } from '../../../domain/positions/commands.js';
import { tradeRequestDecider, tradeRequestEventId } from '../../../domain/positions/decider.js';
import type { PositionsEvent, TradeRequest } from '../../../domain/positions/events.js';
import { systemContext } from '../../../domain/shared/command.js';
import { givenDecider } from '../givenDecider.js';

const ACCOUNT = '55555555-5555-4555-8555-555555555555';
const REQUEST = '7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b';
const OTHER_REQUEST = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
const RECEIVED = '2026-03-02T09:30:00.000Z';
const REFUSED = '2026-03-02T09:30:00.250Z';
const metadata = { now: RECEIVED, context: systemContext('spec') };

const close: TradeRequest = { action: 'close', positionId: '1001', pendingOnly: false };

const request = (requestId = REQUEST): TradeRequestCommand => ({ type: 'RequestTrade', data: { accountId: ACCOUNT, requestId, request: close }, metadata });
const reject = (requestId = REQUEST): TradeRequestCommand => ({
  type: 'RejectTrade',
  data: { accountId: ACCOUNT, requestId, at: REFUSED, code: '[MARKET_CLOSED]', message: 'the market is closed' },
  metadata,
});

const requested = (requestId = REQUEST): PositionsEvent => ({ type: 'TradeRequested', data: { accountId: ACCOUNT, at: RECEIVED, requestId, request: close } });
const rejected = (requestId = REQUEST): PositionsEvent => ({
  type: 'TradeRequestRejected',
  data: { accountId: ACCOUNT, at: REFUSED, requestId, code: '[MARKET_CLOSED]', message: 'the market is closed' },
});
const connected: PositionsEvent = { type: 'VenueConnected', data: { accountId: ACCOUNT, at: RECEIVED, venue: 'simulated', login: '1' } };

const given = givenDecider(tradeRequestDecider(REQUEST));

describe('trading requests decider', () => {
  it('records a new request with who asked, at the time it arrived', () => given([connected]).when(request()).then([requested()]));

  it('records nothing for a request already recorded (a retry under the same Idempotency-Key)', () => given([connected, requested()]).when(request()).then([]));

  it('records a request whatever other requests the stream holds', () =>
    given([requested(OTHER_REQUEST), rejected(OTHER_REQUEST)])
      .when(request())
      .then([requested()]));

  it("records the venue's refusal with its code and the time it refused", () => given([requested()]).when(reject()).then([rejected()]));

  it('records a refusal once, however often the request is retried', () => given([requested(), rejected()]).when(reject()).then([]));

  it('records the refusal of one item of a request that has no request event of its own (close all)', () =>
    givenDecider(tradeRequestDecider(`${REQUEST}/1001`))([requested()])
      .when(reject(`${REQUEST}/1001`))
      .then([rejected(`${REQUEST}/1001`)]));

  it("refuses to decide another request's command: the decider is one request's view of the stream", () =>
    expect(() => tradeRequestDecider(REQUEST).decide(request(OTHER_REQUEST), tradeRequestDecider(REQUEST).initialState)).to.throw(OTHER_REQUEST));

  it('keeps the event ids requests had when routes appended them (uuid v5 of the request id and what happened)', () => {
    expect(tradeRequestEventId(requested())).to.equal('14a3f002-d955-547c-99b0-30eee36294a6');
    expect(tradeRequestEventId(rejected())).to.equal('d4ea9647-3092-5ff7-96cc-6e78fe53345a');
  });
});
