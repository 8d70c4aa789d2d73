// The request headers of a webhook delivery: fixed ones written when the event is queued, and the
// ones of each attempt (its time, its number, the signature or the bearer token).
import { signatureHeaderValue } from './signature.js';

export const WEBHOOK_ID_HEADER = 'X-Webhook-Id';
export const WEBHOOK_EVENT_HEADER = 'X-Webhook-Event';
export const WEBHOOK_TIMESTAMP_HEADER = 'X-Webhook-Timestamp';
export const WEBHOOK_ATTEMPT_HEADER = 'X-Webhook-Attempt';
export const WEBHOOK_SIGNATURE_HEADER = 'X-Webhook-Signature';
export const WEBHOOK_USER_AGENT = 'copy-trading-service-webhooks/1';

/**
 * Names a custom header may not have (lower case): hop-by-hop and framing headers a client must not
 * set (RFC 9110 §7.6.1, RFC 9112), and the ones the service sets itself.
 */
export const RESERVED_HEADERS: readonly string[] = [
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'user-agent',
];
/** The service's own headers: X-Webhook-Id, -Event, -Timestamp, -Attempt, -Signature and any later one. */
export const RESERVED_HEADER_PREFIXES: readonly string[] = ['x-webhook-'];

/** Written once per event: the client's custom headers, then the service's (which they cannot name). */
export const fixedWebhookHeaders = (custom: Readonly<Record<string, string>>, eventId: string, kind: string): Record<string, string> => ({
  ...custom,
  'Content-Type': 'application/json',
  'User-Agent': WEBHOOK_USER_AGENT,
  [WEBHOOK_ID_HEADER]: eventId,
  [WEBHOOK_EVENT_HEADER]: kind,
});

/** How an attempt authenticates, with the secret in clear (only in memory, for the attempt). */
export type AttemptAuthentication = { readonly type: 'HMAC_SHA256'; readonly secret: string } | { readonly type: 'BEARER'; readonly token: string } | null;

/** The headers of one attempt: `unixSeconds` is the attempt's time, signed together with the exact body sent. */
export const attemptHeaders = (
  fixed: Readonly<Record<string, string>>,
  attempt: { readonly unixSeconds: number; readonly number: number; readonly body: string; readonly authentication: AttemptAuthentication },
): Record<string, string> => {
  const headers: Record<string, string> = {
    ...fixed,
    [WEBHOOK_TIMESTAMP_HEADER]: String(attempt.unixSeconds),
    [WEBHOOK_ATTEMPT_HEADER]: String(attempt.number),
  };
  const auth = attempt.authentication;
  if (auth?.type === 'HMAC_SHA256') headers[WEBHOOK_SIGNATURE_HEADER] = signatureHeaderValue(auth.secret, attempt.unixSeconds, attempt.body);
  if (auth?.type === 'BEARER') headers.Authorization = `Bearer ${auth.token}`;
  return headers;
};
