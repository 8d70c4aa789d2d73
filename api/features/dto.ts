// FeatureDTO and WebhookDeliveryDTO from their read models, and a stored feature setting from a
// request's FeatureDTO (`type: {id}` and `setting`).
import { type TObject, Type } from '@sinclair/typebox';
import { featureDefinition } from '../../domain/feature/catalogue.js';
import { membersOf } from '../../domain/feature/definition.js';
import type { FeatureScope, FeatureSetting } from '../../domain/feature/events.js';
import { featureTypeById, featureTypeOf } from '../../domain/feature/types.js';
import type { WebhookDeliveryRow } from '../../app/outbound.js';
import type { FeatureRow } from '../../projections/features/queries.js';
import { ApiError } from '../errors.js';
import { validate } from '../validation.js';
import { featureSettingBranches } from './schemas.js';
import { presentSetting } from './settingHooks.js';

const iso = (value: Date | string): string => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null): string | null => (value ? iso(value) : null);

/** FeatureTypeDTO of a feature DTO: `{id, name}`, and `planName` where it has one. */
export const toFeatureTypeDTO = (dto: string) => {
  const type = featureTypeOf(dto);
  return { id: type.id, name: type.dto, ...(type.planName ? { planName: type.planName } : {}) };
};

/** FeatureDTO; a webhook's secrets masked. */
export const toFeatureDTO = (row: FeatureRow) => ({
  id: row.id,
  featureId: row.id,
  type: toFeatureTypeDTO(row.type),
  setting: membersOf<Record<string, unknown>>(presentSetting(row.setting)),
  ...(row.account_id ? { accountId: row.account_id } : {}),
  ...(row.copier_id ? { copierId: row.copier_id } : {}),
  ...(row.scope_kind === 'project' ? { projectId: row.project_id } : {}),
  created: iso(row.created),
  updated: iso(row.updated),
});

/** What a POST or PUT body holds once the envelope is checked (schemas.ts FeatureWriteEnvelope). */
export interface FeatureWrite {
  readonly type: { readonly id: number };
  readonly setting: Record<string, unknown>;
  readonly accountId?: string;
  readonly copierId?: string;
  readonly projectId?: string;
}

// `body.setting.<member>` in errors: each branch wrapped once (validation caches by schema object).
const wrapped = new Map<string, TObject>([...featureSettingBranches].map(([name, schema]) => [name, Type.Object({ setting: schema })]));

const invalid = (field: string, message: string) => new ApiError(400, '[VALIDATION_FAILED]', `${field} ${message}`, [{ field, message }]);

/** The feature DTO that `type.id` names, if the service runs it. */
export const featureDtoOf = (typeId: number): string => {
  const type = featureTypeById(typeId);
  if (!type) throw invalid('body.type.id', `is no feature type (GET /types/featureTypes lists them)`);
  if (type.comesWithIssue !== undefined || !featureDefinition(type.dto)) {
    throw new ApiError(400, '[FEATURE_TYPE_NOT_SUPPORTED]', `feature type ${typeId} (${type.dto}) is not supported by this service yet`);
  }
  return type.dto;
};

const scopeIds = (scope: FeatureScope): { accountId?: string; copierId?: string; projectId?: string } =>
  scope.kind === 'copier'
    ? { accountId: scope.accountId, copierId: scope.copierId }
    : scope.kind === 'account'
      ? { accountId: scope.accountId }
      : { projectId: scope.projectId };

/**
 * The setting to store from a FeatureDTO sent: the branch of `type.id`, the catalogue's defaults for
 * members left out, checked against the feature's scopes and its own rules. `accountId`, `copierId`
 * and `projectId` may be sent: the path decides, and another value is refused.
 */
export const fromFeatureWriteDTO = (sent: FeatureWrite, scope: FeatureScope): FeatureSetting => {
  const expected = scopeIds(scope);
  for (const member of ['accountId', 'copierId', 'projectId'] as const) {
    if (sent[member] !== undefined && sent[member] !== expected[member]) {
      throw invalid(`body.${member}`, expected[member] ? `is not the ${member} in the path` : `does not apply to a ${scope.kind} feature`);
    }
  }
  const type = featureDtoOf(sent.type.id);
  const definition = featureDefinition(type)!;
  if (!definition.scopes.includes(scope.kind)) {
    throw new ApiError(400, '[FEATURE_SCOPE_NOT_ALLOWED]', `${type} attaches to a ${definition.scopes.join(' or ')}, not to a ${scope.kind}`);
  }
  validate(wrapped.get(type)!, { setting: sent.setting }, 'body');
  // Read-only state members (definition.stateMembers) are the service's: what was sent for them is dropped.
  const sentMembers = Object.fromEntries(Object.entries(sent.setting).filter(([name]) => !(definition.stateMembers ?? []).includes(name)));
  const setting = { ...definition.defaults, ...sentMembers, type } as FeatureSetting;
  const problem = definition.check?.(membersOf(setting));
  if (problem) throw new ApiError(400, '[VALIDATION_FAILED]', `body.setting: ${problem}`, [{ field: 'body.setting', message: problem }]);
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
