// ApiKeyDTO and RestEndpointMetadataDTO, and an access policy from an AccessPolicyWriteDTO.
import type { Static } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import { type AccessPolicy, checkAccessPolicy } from '../../domain/apiKey/accessPolicy.js';
import type { RevocationReason } from '../../domain/apiKey/events.js';
import type { ApiKeysTable } from '../../projections/schema.js';
import type { RouteSpec } from '../route.js';
import { type FieldMetadata, policyCatalog } from './catalog.js';
import type { AccessPolicyWriteDTO } from './schemas.js';

const iso = (value: Date | string | null | undefined): string | null => (value ? new Date(value).toISOString() : null);

/** ApiKeyDTO from the api_keys read model and the key's last use; never the value, never the hash. */
export const toApiKeyDTO = (row: Selectable<ApiKeysTable>, lastUsedAt: Date | string | null | undefined, now: Date) => {
  const revoked = row.revoked_at !== null;
  const expired = row.expires_at !== null && new Date(row.expires_at).getTime() <= now.getTime();
  return {
    id: row.id,
    numericId: Number(row.numeric_id),
    name: row.name,
    level: row.level as 'PROJECT' | 'ACCOUNT',
    projectId: row.project_id,
    accountId: row.account_id,
    keyType: row.key_type as 'INTEGRATION' | 'AI',
    keyPrefix: row.key_prefix,
    expiresAt: iso(row.expires_at),
    revokedAt: iso(row.revoked_at),
    revokedReason: (row.revoked_reason ?? null) as RevocationReason | null,
    lastUsedAt: iso(lastUsedAt),
    rotatedAt: iso(row.rotated_at),
    created: iso(row.created)!,
    active: !revoked && !expired,
    accessPolicy: (row.access_policy ?? null) as AccessPolicy | null,
  };
};

/** RestEndpointMetadataDTO of a declared route: what an endpoint rule of an access policy can name. */
export const toRestEndpointMetadataDTO = (spec: RouteSpec) => ({
  method: spec.method.toUpperCase(),
  path: spec.path,
  summary: spec.summary,
  tag: spec.tag,
  operationId: spec.operationId,
});

/** FieldMetadataDTO of a restrictable member. */
export const toFieldMetadataDTO = (f: FieldMetadata) => ({
  fieldName: f.field,
  fieldType: f.type,
  dtoClassName: f.dto,
  description: f.description,
  entry: f.entry,
});

/** The access policy an AccessPolicyWriteDTO sets: defaults for members left out, checked against what a policy can name. */
export const fromAccessPolicyWriteDTO = (body: Static<typeof AccessPolicyWriteDTO>): AccessPolicy =>
  checkAccessPolicy(
    {
      enabled: body.enabled,
      fieldAccess: body.fieldAccess ?? null,
      endpointAccess: body.endpointAccess ?? null,
      ipWhitelist: body.ipWhitelist ?? [],
      corsOrigins: body.corsOrigins ?? [],
      hiddenFrontendFeatures: body.hiddenFrontendFeatures ?? [],
    },
    policyCatalog(),
  );
