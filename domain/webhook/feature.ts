// FeatureWebhookDTO (spec "Feature DTOs" and "Events" 2): outbound webhook deliveries of an account's
// POSITION_OPENED, POSITION_CLOSED and HISTORY_UPDATED, attached to an account (its events) or to a
// project (the events of every account of the project). The spec names the members' purpose only;
// names, bounds and defaults are ours and are documented here, in the OpenAPI text and the README.
//
// Secrets (the HMAC secret, the bearer token) are write-only: the service stores them encrypted and
// answers SECRET_MASK in their place (see secrets.ts).
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';
import { RESERVED_HEADER_PREFIXES, RESERVED_HEADERS } from './headers.js';
import { SECRET_MASK } from './secrets.js';

export const WEBHOOK_FEATURE_TYPE = 'FeatureWebhookDTO';

export const WEBHOOK_EVENT_KINDS = ['POSITION_OPENED', 'POSITION_CLOSED', 'HISTORY_UPDATED'] as const;
export type WebhookEventKind = (typeof WEBHOOK_EVENT_KINDS)[number];

export const WEBHOOK_DEFAULTS = {
  includePositionDetails: true,
  includeAccountMetadata: false,
  headers: {} as Record<string, string>,
  maxAttempts: 10,
  initialBackoffSeconds: 10,
  backoffMultiplier: 2,
  maxBackoffSeconds: 3600,
  rateLimitPerMinute: 600,
  timeoutSeconds: 10,
} as const;

export const HMAC_SECRET_MIN_LENGTH = 16;
const MAX_HEADERS = 20;

/** An HTTP token (RFC 9110 §5.6.2): what a header name may be. */
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$";

const Secret = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 512,
    description: `${what}. Write-only: answers carry "${SECRET_MASK}" instead. Leave it out (or send "${SECRET_MASK}") in a PUT to keep the stored one.`,
  });

const Authentication = Type.Unsafe<{ type: 'HMAC_SHA256'; secret?: string } | { type: 'BEARER'; token?: string } | { type: 'NONE' }>({
  description:
    'HMAC_SHA256: every request carries X-Webhook-Signature (t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">) made with `secret`; BEARER: `Authorization: Bearer <token>`; NONE: neither.',
  // The discriminator checks objects only: `type: 'object'` refuses null, strings, numbers and arrays.
  type: 'object',
  required: ['type'],
  oneOf: [
    Type.Object(
      {
        type: Type.Literal('HMAC_SHA256'),
        secret: Type.Optional(
          Secret(`the shared signing key, ${HMAC_SECRET_MIN_LENGTH} to 512 characters (its UTF-8 bytes are the HMAC key); required when the webhook is added`),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal('BEARER'), token: Type.Optional(Secret('the bearer token (RFC 6750 token68 characters); required when the webhook is added')) },
      { additionalProperties: false },
    ),
    Type.Object({ type: Type.Literal('NONE') }, { additionalProperties: false }),
  ],
  discriminator: { propertyName: 'type' },
});

const members = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'where events are POSTed: https (http only when the operator set ALLOW_PRIVATE_OUTBOUND); a host that is or resolves to a loopback, private, link-local or metadata address gives 400 [WEBHOOK_URL_NOT_ALLOWED], and is checked again at every delivery',
  }),
  events: Type.Array(Type.Union(WEBHOOK_EVENT_KINDS.map((k) => Type.Literal(k))), {
    minItems: 1,
    maxItems: WEBHOOK_EVENT_KINDS.length,
    uniqueItems: true,
    description: 'the event kinds delivered: POSITION_OPENED, POSITION_CLOSED, HISTORY_UPDATED (a partial close, a full close, a deposit or withdrawal)',
  }),
  authentication: Authentication,
  headers: Type.Record(Type.String({ pattern: HEADER_NAME }), Type.String({ maxLength: 1024, pattern: '^[\\t\\x20-\\x7e]*$' }), {
    maxProperties: MAX_HEADERS,
    additionalProperties: false,
    description: `custom request headers, name to value (at most ${MAX_HEADERS}); default none. Hop-by-hop and framing headers (Host, Content-Length, Connection, ...), Content-Type, User-Agent, Authorization with BEARER, and the X-Webhook-* headers of the service are refused. Answers show the values as set: keep secrets in authentication`,
  }),
  includePositionDetails: Type.Boolean({ description: 'default true: the payload carries `position` (POSITION_*) or `historyEntry` (HISTORY_UPDATED)' }),
  includeAccountMetadata: Type.Boolean({ description: 'default false: the payload carries `account` (alias, login, type, region)' }),
  maxAttempts: Type.Integer({ minimum: 1, maximum: 20, description: 'attempts per event in all, the first included; default 10' }),
  initialBackoffSeconds: Type.Number({ minimum: 0.5, maximum: 3600, description: 'the wait after the first failed attempt; default 10' }),
  backoffMultiplier: Type.Number({ minimum: 1, maximum: 10, description: 'each further wait is the previous one times this; default 2' }),
  maxBackoffSeconds: Type.Number({ minimum: 1, maximum: 86_400, description: 'no wait is longer than this (at least initialBackoffSeconds); default 3600' }),
  rateLimitPerMinute: Type.Integer({
    minimum: 1,
    maximum: 6000,
    description:
      'attempts to this webhook start at least 60/rateLimitPerMinute seconds apart; more wait their turn, none is dropped; default 600 (one every 100 ms). Besides, at most 4 attempts to one webhook are under way at once',
  }),
  timeoutSeconds: Type.Integer({
    minimum: 1,
    maximum: 30,
    description: 'an attempt without an answer (status line) within this many seconds fails; default 10',
  }),
});

export type WebhookSettings = Static<typeof members>;
export type WebhookAuthentication = WebhookSettings['authentication'];

/** RFC 6750 token68. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

const headerProblem = (settings: WebhookSettings): string | null => {
  for (const name of Object.keys(settings.headers ?? {})) {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.includes(lower) || RESERVED_HEADER_PREFIXES.some((p) => lower.startsWith(p)))
      return `headers: ${name} is set by the service and cannot be replaced`;
    if (lower === 'authorization' && settings.authentication.type === 'BEARER') return 'headers: Authorization is set by BEARER authentication';
  }
  const lowered = Object.keys(settings.headers ?? {}).map((n) => n.toLowerCase());
  if (new Set(lowered).size !== lowered.length) return 'headers: a name appears twice (names ignore case)';
  return null;
};

const secretProblem = (auth: WebhookAuthentication): string | null => {
  if (auth.type === 'HMAC_SHA256' && auth.secret !== undefined && auth.secret !== SECRET_MASK && auth.secret.length < HMAC_SECRET_MIN_LENGTH) {
    return `authentication.secret must have at least ${HMAC_SECRET_MIN_LENGTH} characters`;
  }
  if (auth.type === 'BEARER' && auth.token !== undefined && auth.token !== SECRET_MASK && !TOKEN68.test(auth.token)) {
    return 'authentication.token may hold only letters, digits and - . _ ~ + / (then = padding)';
  }
  return null;
};

export const webhookFeature: FeatureDefinition<WebhookSettings> = {
  type: WEBHOOK_FEATURE_TYPE,
  scopes: ['account', 'project'],
  multiple: true,
  members,
  defaults: WEBHOOK_DEFAULTS,
  description: [
    'Outbound webhook: every subscribed event of the account (account scope) or of every account of the project (project scope, /projects/{projectId}/features) is POSTed to url as JSON.',
    'Events: POSITION_OPENED (a position opened, a pending order filled), POSITION_CLOSED (fully closed, by request, stop loss, take profit or stop-out), HISTORY_UPDATED (a new history entry: a partial close, a full close, a deposit or withdrawal; a full close gives both POSITION_CLOSED and HISTORY_UPDATED).',
    'Body: {eventId, type, occurredAt, webhookId, accountId, positionId, position | historyEntry (includePositionDetails), account (includeAccountMetadata)}.',
    'Headers: Content-Type: application/json, X-Webhook-Id (= eventId), X-Webhook-Event (= type), X-Webhook-Timestamp (unix seconds of the attempt), X-Webhook-Attempt (1, 2, ...), and with HMAC_SHA256 X-Webhook-Signature: t=<X-Webhook-Timestamp>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">; receivers reject a timestamp more than 5 minutes away and deduplicate by eventId.',
    'Delivery: at least once, from a durable outbox; any 2xx acknowledges; anything else, no answer within timeoutSeconds, or a refused address is a failed attempt, retried after initialBackoffSeconds x backoffMultiplier^(n-1) (at most maxBackoffSeconds) until maxAttempts; then FAILED, with the reason in GET .../features/{featureId}/deliveries.',
    'A webhook receives only events that happen after it was added. A change (url, headers, authentication, timeout, rate limit) also applies to deliveries still pending; removing the webhook cancels them.',
    `Secrets: authentication.secret and authentication.token are stored encrypted and always answered as "${SECRET_MASK}"; a PUT that leaves them out (or sends "${SECRET_MASK}") keeps them.`,
  ].join(' '),
  check: (s) => {
    if (s.maxBackoffSeconds < s.initialBackoffSeconds)
      return `maxBackoffSeconds ${s.maxBackoffSeconds} is below initialBackoffSeconds ${s.initialBackoffSeconds}`;
    return headerProblem(s) ?? secretProblem(s.authentication);
  },
};
