// The headers of a webhook delivery (domain/webhook/headers.ts): fixed per event, then per attempt.
import { expect } from 'chai';
import { attemptHeaders, fixedWebhookHeaders } from '../../../domain/webhook/headers.js';
import { verifyWebhookSignature } from '../../../domain/webhook/signature.js';

const BODY = '{"eventId":"e-1"}';

describe('webhook headers', () => {
  it("puts the custom headers first and the service's own after them", () => {
    expect(fixedWebhookHeaders({ 'X-Tenant': 'acme' }, 'e-1', 'POSITION_OPENED')).to.deep.equal({
      'X-Tenant': 'acme',
      'Content-Type': 'application/json',
      'User-Agent': 'copy-trading-service-webhooks/1',
      'X-Webhook-Id': 'e-1',
      'X-Webhook-Event': 'POSITION_OPENED',
    });
  });

  it('signs each attempt with its own timestamp: the signature verifies for that body and time', () => {
    const fixed = fixedWebhookHeaders({}, 'e-1', 'POSITION_OPENED');
    const headers = attemptHeaders(fixed, {
      unixSeconds: 1767780000,
      number: 2,
      body: BODY,
      authentication: { type: 'HMAC_SHA256', secret: 'whsec_0123456789abcdef' },
    });
    expect(headers).to.deep.include({ 'X-Webhook-Timestamp': '1767780000', 'X-Webhook-Attempt': '2', 'X-Webhook-Id': 'e-1' });
    expect(headers).not.to.have.property('Authorization');
    const check = verifyWebhookSignature({ secret: 'whsec_0123456789abcdef', header: headers['X-Webhook-Signature'], rawBody: BODY, nowSeconds: 1767780005 });
    expect(check).to.deep.equal({ valid: true, timestamp: 1767780000 });
  });

  it('sends a bearer token in Authorization, and neither with NONE', () => {
    const fixed = fixedWebhookHeaders({}, 'e-1', 'POSITION_OPENED');
    const bearer = attemptHeaders(fixed, { unixSeconds: 1, number: 1, body: BODY, authentication: { type: 'BEARER', token: 'tok' } });
    expect(bearer.Authorization).to.equal('Bearer tok');
    expect(bearer).not.to.have.property('X-Webhook-Signature');
    const none = attemptHeaders(fixed, { unixSeconds: 1, number: 1, body: BODY, authentication: null });
    expect(none).not.to.have.any.keys('Authorization', 'X-Webhook-Signature');
  });
});
