// FeatureDTO and WebhookDeliveryDTO from their read models, and a stored feature setting from a
// request's featureSetting.
import { featureDefinition } from '../../domain/feature/catalogue.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureScope, FeatureSetting } from '../../domain/feature/events.js';
import type { WebhookDeliveryRow } from '../../app/outbound.js';
import type { FeatureRow } from '../../projections/features/queries.js';
import { ApiError } from '../errors.js';
import { presentSetting } from './settingHooks.js';

const iso = (value: Date | string): string => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null): string | null => (value ? iso(value) : null);

/** FeatureDTO; a webhook's secrets masked. */
export const toFeatureDTO = (row: FeatureRow) => ({
  featureId: row.id,
  featureSetting: presentSetting(row.setting),
  created: iso(row.created),
  updated: iso(row.updated),
});

/**
 * The setting to store from a FeatureWriteDTO's featureSetting: the catalogue's defaults for members
 * left out, checked against the feature's scopes and its own rules.
 */
export const fromFeatureSettingDTO = (sent: { type: string }, scope: FeatureScope['kind']): FeatureSetting => {
  const definition = featureDefinition(sent.type);
  if (!definition) throw new ApiError(400, '[FEATURE_TYPE_UNKNOWN]', `no feature type ${sent.type}`);
  if (!definition.scopes.includes(scope)) {
    throw new ApiError(400, '[FEATURE_SCOPE_NOT_ALLOWED]', `${sent.type} attaches to a ${definition.scopes.join(' or ')}, not to a ${scope}`);
  }
  // Read-only state members (definition.stateMembers) are the service's: what was sent for them is dropped.
  const sentMembers = Object.fromEntries(Object.entries(sent).filter(([name]) => !(definition.stateMembers ?? []).includes(name)));
  const setting = { ...definition.defaults, ...sentMembers, type: sent.type } as FeatureSetting;
  const problem = definition.check?.(membersOf(setting));
  if (problem) throw new ApiError(400, '[VALIDATION_FAILED]', `body.featureSetting: ${problem}`, [{ field: 'body.featureSetting', message: problem }]);
  return setting;
};

/** WebhookDeliveryDTO; nextAttemptAt only while the delivery is pending. */
export const toWebhookDeliveryDTO = (row: WebhookDeliveryRow) => ({
  eventId: row.id,
  type: row.event_type,
  accountId: row.account_id,
  status: row.status,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  nextAttemptAt: row.status === 'PENDING' ? isoOrNull(row.next_attempt_at) : null,
  lastAttemptAt: isoOrNull(row.last_attempt_at),
  lastStatusCode: row.last_status,
  lastError: row.last_error,
  created: iso(row.created),
  finishedAt: isoOrNull(row.finished_at),
});
