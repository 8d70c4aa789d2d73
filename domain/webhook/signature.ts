// The webhook signature (our design; the spec names HMAC_SHA256 only), after Stripe's scheme:
//
//   X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
//
// The timestamp is signed with the body, so a captured request cannot be replayed later with a fresh
// time: a receiver recomputes the HMAC over the raw bytes it received (before any JSON parsing),
// compares in constant time, rejects a `t` more than a tolerance (5 minutes) away from its own clock,
// and drops an eventId it has already handled (a retry of a delivered event carries the same id).
// Several v1 entries may appear; any one matching is enough (room for a secret rotation).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the secret's UTF-8 bytes. */
export const webhookSignature = (secret: string, unixSeconds: number, rawBody: string | Buffer): string =>
  createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${unixSeconds}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');

export const signatureHeaderValue = (secret: string, unixSeconds: number, rawBody: string): string =>
  `t=${unixSeconds},v1=${webhookSignature(secret, unixSeconds, rawBody)}`;

export type SignatureRefusal = 'MALFORMED_HEADER' | 'TIMESTAMP_OUTSIDE_TOLERANCE' | 'SIGNATURE_MISMATCH';

export type SignatureCheck = { readonly valid: true; readonly timestamp: number } | { readonly valid: false; readonly reason: SignatureRefusal };

/** The `t` and the v1 signatures of a header value, or null when it is not of the scheme's form. */
export const parseSignatureHeader = (header: string): { timestamp: number; signatures: string[] } | null => {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return null;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== null) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(value)) return null;
      signatures.push(value);
    }
    // other schemes (v0, v2...) are ignored, as Stripe's verifiers do
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
};

/**
 * For receivers (and the specs): is `header` a valid signature of `rawBody` with `secret`, made within
 * `toleranceSeconds` of `nowSeconds`? Pass the raw request body exactly as received.
 */
export const verifyWebhookSignature = (input: {
  readonly secret: string;
  readonly header: string | undefined;
  readonly rawBody: string | Buffer;
  readonly nowSeconds: number;
  readonly toleranceSeconds?: number;
}): SignatureCheck => {
  const parsed = input.header ? parseSignatureHeader(input.header) : null;
  if (!parsed) return { valid: false, reason: 'MALFORMED_HEADER' };
  if (Math.abs(input.nowSeconds - parsed.timestamp) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { valid: false, reason: 'TIMESTAMP_OUTSIDE_TOLERANCE' };
  }
  const expected = Buffer.from(webhookSignature(input.secret, parsed.timestamp, input.rawBody), 'hex');
  const matches = parsed.signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  return matches ? { valid: true, timestamp: parsed.timestamp } : { valid: false, reason: 'SIGNATURE_MISMATCH' };
};
