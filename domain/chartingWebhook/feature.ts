// FeatureChartingWebhookDTO (spec "Feature DTOs", "Limits"): an account's inbound charting webhook.
// The spec names maxAllowedVolume, openRetry and openRetryTimeoutInMinutes; the reference document has
// no branch for it. Our extras, documented in the OpenAPI text and the README:
//   - webhookId (read-only): the secret of the address `/webhooks/charting/{webhookId}`, 32 random bytes
//     (256 bits, base64url) issued when the feature is added; it authenticates an alert instead of an
//     API key. It is kept as the feature's state (events, read model) and answered to the account's
//     callers; the service log and the audit log only ever show its first characters (masked below).
//   - webhookUrl (read-only): the address path, under the API prefix.
//   - rotateWebhookId (write-only trigger): a PUT with true issues a new webhookId; the old one stops
//     working at once. Answered false.
//   - rateLimitPerMinute: alerts accepted per webhook per minute (default 60), more answer 429.
import { type Static, Type } from '@sinclair/typebox';
import type { FeatureDefinition } from '../feature/definition.js';
import type { FeatureSetting } from '../feature/events.js';

export const CHARTING_WEBHOOK = 'FeatureChartingWebhookDTO';

/** The spec: openRetryTimeoutInMinutes 1 to 60. */
export const OPEN_RETRY_MINUTES = { min: 1, max: 60 } as const;

/** Characters of a webhookId a log may show. */
const SHOWN = 6;

const members = Type.Object({
  maxAllowedVolume: Type.Union([Type.Number({ minimum: 0, maximum: 1_000_000 }), Type.Null()], {
    description:
      'lots; caps the volume of every leg however it was sized (an explicit volume, riskPercent, riskAmount); with several take profits it applies to each leg. 0 or null (default 0) = no cap',
  }),
  openRetry: Type.Boolean({
    description:
      'default true: an open the broker refuses or does not answer is tried again every 30 seconds until openRetryTimeoutInMinutes has passed since the alert; false: refused at once. A close is always tried again until it is done',
  }),
  openRetryTimeoutInMinutes: Type.Integer({
    minimum: OPEN_RETRY_MINUTES.min,
    maximum: OPEN_RETRY_MINUTES.max,
    description: 'minutes an open is retried, 1 to 60; default 5 (ours: the spec gives none); only read while openRetry is true',
  }),
  rateLimitPerMinute: Type.Integer({
    minimum: 1,
    maximum: 600,
    description: 'ours: alerts this webhook accepts per minute (default 60); more answer 429 [RATE_LIMITED] and trade nothing',
  }),
  webhookId: Type.Union([Type.String(), Type.Null()], {
    readOnly: true,
    description:
      'ours, read-only: the secret of the webhook address (43 characters, 256 random bits); issued when the feature is added, replaced by rotateWebhookId. A value sent is ignored. A template does not carry it: a feature applied from a template has none (null) until its first PUT issues one',
  }),
  webhookUrl: Type.Union([Type.String(), Type.Null()], {
    readOnly: true,
    description: 'ours, read-only: the path alerts are POSTed to, /rest/api/v1/webhooks/charting/{webhookId}, on the service address',
  }),
  rotateWebhookId: Type.Boolean({
    description: 'ours, write-only: true in a PUT issues a new webhookId (the old address stops working at once); answered false',
  }),
});
export type ChartingWebhookSettings = Static<typeof members>;

export const CHARTING_WEBHOOK_DEFAULTS = {
  maxAllowedVolume: 0,
  openRetry: true,
  openRetryTimeoutInMinutes: 5,
  rateLimitPerMinute: 60,
  webhookId: null,
  webhookUrl: null,
  rotateWebhookId: false,
} as const;

export const chartingWebhookFeature: FeatureDefinition<ChartingWebhookSettings> = {
  type: CHARTING_WEBHOOK,
  scopes: ['account'],
  multiple: false,
  members,
  defaults: CHARTING_WEBHOOK_DEFAULTS,
  stateMembers: ['webhookId', 'webhookUrl'],
  description:
    'The inbound charting webhook: adding it issues the address POST /webhooks/charting/{webhookId} (webhookUrl), whose long random webhookId authenticates alerts instead of an API key (rotateWebhookId true in a PUT replaces it). An alert (JSON or the text grammar of the README, "Charting webhook") opens, closes or modifies positions of the account through the Trading API, so they are copied to its slaves like any trade of the account. maxAllowedVolume caps every leg; riskPercent and riskAmount size with the account-level FeatureRiskPerTradeDTO. openRetry (default true) retries a refused open every 30 seconds for openRetryTimeoutInMinutes (1 to 60); a close is always retried. Every alert is stored as charting data (GET /webhooks/charting/accounts/{accountId}/data) with what it did.',
  check: (s) => (s.maxAllowedVolume !== null && !Number.isFinite(s.maxAllowedVolume) ? 'maxAllowedVolume must be a number' : null),
};

/** The cap of a leg: null when there is none (0 or null). */
export const volumeCapOf = (s: Pick<ChartingWebhookSettings, 'maxAllowedVolume'>): number | null =>
  s.maxAllowedVolume !== null && s.maxAllowedVolume > 0 ? s.maxAllowedVolume : null;

/** A webhookId as logs and the audit log may show it: its first characters. */
export const maskedWebhookId = (id: string): string => `${id.slice(0, SHOWN)}…`;

/** The path of a webhook address, under the API prefix. */
export const webhookPathOf = (apiPrefix: string, webhookId: string): string => `${apiPrefix}/webhooks/charting/${webhookId}`;

/** A feature setting with a charting webhook's id masked (the audit log); other settings unchanged. */
export const maskChartingWebhookId = (setting: FeatureSetting): FeatureSetting => {
  if (setting.type !== CHARTING_WEBHOOK || typeof setting.webhookId !== 'string') return setting;
  const masked = maskedWebhookId(setting.webhookId);
  return { ...setting, webhookId: masked, webhookUrl: typeof setting.webhookUrl === 'string' ? setting.webhookUrl.replace(setting.webhookId, masked) : null };
};
