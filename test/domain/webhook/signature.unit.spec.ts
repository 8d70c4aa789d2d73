// The webhook signature (domain/webhook/signature.ts): X-Webhook-Signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<raw body>">, and the verifier receivers use.
import { expect } from 'chai';
import { parseSignatureHeader, signatureHeaderValue, verifyWebhookSignature, webhookSignature } from '../../../domain/webhook/signature.js';

const SECRET = 'whsec_0123456789abcdef';
const T = 1767780000;
const BODY = '{"eventId":"e","type":"POSITION_OPENED"}';

describe('webhook signature', () => {
  it('is the hex HMAC-SHA256 of "<t>.<raw body>" keyed with the secret (the vector openssl computes)', () => {
    // printf '%s' '1767780000.{"eventId":"e","type":"POSITION_OPENED"}' | openssl dgst -sha256 -hmac 'whsec_0123456789abcdef'
    expect(webhookSignature(SECRET, T, BODY)).to.equal('58ed8de2c3a0ef5d4f7a66482bdf0da9158070ef9f95bacc87f865f5c4ae7d5e');
    expect(signatureHeaderValue(SECRET, T, BODY)).to.equal(`t=${T},v1=58ed8de2c3a0ef5d4f7a66482bdf0da9158070ef9f95bacc87f865f5c4ae7d5e`);
  });

  it('verifies a header it made, from a string or the raw bytes, within the tolerance', () => {
    const header = signatureHeaderValue(SECRET, T, BODY);
    expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: BODY, nowSeconds: T + 299 })).to.deep.equal({ valid: true, timestamp: T });
    expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: Buffer.from(BODY), nowSeconds: T - 10 }).valid).to.equal(true);
  });

  it('rejects a tampered body, another secret and a signature moved to another timestamp', () => {
    const header = signatureHeaderValue(SECRET, T, BODY);
    expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: BODY.replace('OPENED', 'CLOSED'), nowSeconds: T })).to.deep.equal({
      valid: false,
      reason: 'SIGNATURE_MISMATCH',
    });
    expect(verifyWebhookSignature({ secret: 'whsec_another_secret_0000', header, rawBody: BODY, nowSeconds: T }).valid).to.equal(false);
    const moved = header.replace(`t=${T}`, `t=${T + 60}`);
    expect(verifyWebhookSignature({ secret: SECRET, header: moved, rawBody: BODY, nowSeconds: T + 60 })).to.deep.equal({
      valid: false,
      reason: 'SIGNATURE_MISMATCH',
    });
  });

  it('rejects a replay: a timestamp more than the tolerance (5 minutes by default) old or ahead', () => {
    const header = signatureHeaderValue(SECRET, T, BODY);
    expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: BODY, nowSeconds: T + 301 })).to.deep.equal({
      valid: false,
      reason: 'TIMESTAMP_OUTSIDE_TOLERANCE',
    });
    expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: BODY, nowSeconds: T - 301 }).valid).to.equal(false);
    expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: BODY, nowSeconds: T + 30, toleranceSeconds: 10 }).valid).to.equal(false);
  });

  it('accepts any one of several v1 signatures (a secret rotation) and ignores other schemes', () => {
    const header = `t=${T},v0=abc,v1=${'0'.repeat(64)},v1=${webhookSignature(SECRET, T, BODY)}`;
    expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: BODY, nowSeconds: T }).valid).to.equal(true);
  });

  it('refuses malformed headers: missing, no t, no v1, two t, a v1 that is not 64 hex digits', () => {
    const v1 = webhookSignature(SECRET, T, BODY);
    for (const header of [undefined, '', `v1=${v1}`, `t=${T}`, `t=${T},t=${T},v1=${v1}`, `t=${T},v1=${v1.slice(2)}`, `t=abc,v1=${v1}`, 'garbage']) {
      expect(verifyWebhookSignature({ secret: SECRET, header, rawBody: BODY, nowSeconds: T }), String(header)).to.deep.equal({
        valid: false,
        reason: 'MALFORMED_HEADER',
      });
    }
    expect(parseSignatureHeader(`t=${T}, v1=${v1}`)).to.deep.equal({ timestamp: T, signatures: [v1] });
  });
});
