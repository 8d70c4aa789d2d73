// ApiKeyDTO and its access policy (spec "Authentication", "Access policy of an API key"), the bodies of
// the key operations, and the metadata lists a policy is written from.
import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../domain/apiKey/accessPolicy.js';
import { IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const Mode = Type.Union([Type.Literal('ALLOW_LIST'), Type.Literal('DENY_LIST')]);
const Method = Type.Union([Type.Literal('GET'), Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('PATCH'), Type.Literal('DELETE'), Type.Literal('ALL')]);
export const KeyType = Type.Union([Type.Literal('INTEGRATION'), Type.Literal('AI')], {
  description:
    'INTEGRATION or AI. At most one AI key per project: making a key AI revokes the former AI key (an AI key never becomes INTEGRATION). An AI key without an enabled access policy is denied everything (403 [AI_KEY_ACCESS_POLICY_REQUIRED]).',
});

const EndpointRuleDTO = Type.Object(
  {
    pathPattern: Type.String({
      minLength: 1,
      maxLength: 300,
      description:
        'path relative to /rest/api/v1 (the prefix may be written too); `*` = one segment, `**` = zero or more segments, `{variable}` = a path variable of the route; other segments match literally, ignoring case. Matched against the route the request reached, so encoded slashes, `//`, dot segments, case and trailing slashes change nothing',
    }),
    method: Method,
  },
  { additionalProperties: false },
);

export const AccessPolicyDTO = Type.Object(
  {
    enabled: Type.Boolean({ description: 'false: the key has full access (an AI key: none)' }),
    fieldAccess: Nullable(
      Type.Object(
        {
          mode: Mode,
          fields: Type.Array(Type.String({ maxLength: 200 }), {
            maxItems: LIMITS.fields,
            description:
              'entries `field` (every restricted DTO that has it) or `DTO: field` (see availableFields). ALLOW_LIST: only these are visible (a DTO with none listed is hidden whole but its id); DENY_LIST: these are hidden. Hidden members are null in AccountDTO, AccountInformationDTO and CopierDTO wherever a response carries them',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    endpointAccess: Nullable(
      Type.Object(
        {
          mode: Mode,
          rules: Type.Array(EndpointRuleDTO, { maxItems: LIMITS.rules, description: 'a blocked call gives 403 [FORBIDDEN_ENDPOINT_NOT_ALLOWED]' }),
        },
        { additionalProperties: false },
      ),
    ),
    ipWhitelist: Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: LIMITS.ipWhitelist,
      description:
        'addresses or CIDR ranges, IPv4 (dotted decimal) or IPv6; IPv4 clients seen as IPv4-mapped IPv6 match IPv4 entries. Empty: any address. Another address gives 403 [FORBIDDEN_IP_NOT_ALLOWED]. X-Forwarded-For counts only from TRUSTED_PROXIES',
    }),
    corsOrigins: Type.Array(Type.String({ maxLength: 255 }), {
      maxItems: LIMITS.corsOrigins,
      description:
        "exact origins (scheme://host[:port]), `https://*.domain` (its subdomains at any depth) or `*`; case-insensitive; scheme and port must match. Empty: any origin. The operator's domain (OPERATOR_DOMAIN) and its subdomains are always allowed. A request from another Origin gets 403 [FORBIDDEN_ORIGIN_NOT_ALLOWED] without CORS headers",
    }),
    hiddenFrontendFeatures: Type.Array(Type.String({ maxLength: 100 }), {
      maxItems: LIMITS.hiddenFrontendFeatures,
      description: 'ids from availableFrontendFeatures; the frontend hides them',
    }),
  },
  { $id: 'AccessPolicyDTO', additionalProperties: false },
);

export const AccessPolicyWriteDTO = Type.Object(
  {
    enabled: AccessPolicyDTO.properties.enabled,
    fieldAccess: Type.Optional(AccessPolicyDTO.properties.fieldAccess),
    endpointAccess: Type.Optional(AccessPolicyDTO.properties.endpointAccess),
    ipWhitelist: Type.Optional(AccessPolicyDTO.properties.ipWhitelist),
    corsOrigins: Type.Optional(AccessPolicyDTO.properties.corsOrigins),
    hiddenFrontendFeatures: Type.Optional(AccessPolicyDTO.properties.hiddenFrontendFeatures),
  },
  {
    additionalProperties: false,
    title: 'AccessPolicyDTO (write)',
    description:
      'Replaces the whole policy; members left out are empty (restrict nothing). Invalid entries give 400 [ACCESS_POLICY_INVALID] with details.problems.',
  },
);

const apiKeyProperties = {
  id: Uuid,
  numericId: Type.Integer({
    format: 'int64',
    description: "the key's integer id, as AuditLogDTO.apiKeyId names the key (the reference's audit log types it int64); fixed at issue and never reused",
  }),
  name: Type.String(),
  level: Type.Union([Type.Literal('PROJECT'), Type.Literal('ACCOUNT')], {
    description: 'the permission type: PROJECT sees every account of the project; ACCOUNT sees only accountId and cannot create accounts or manage keys',
  }),
  projectId: Uuid,
  accountId: Nullable(Uuid),
  keyType: KeyType,
  keyPrefix: Nullable(
    Type.String({
      description:
        'the first characters of a value the service generated, to recognise it; null for a value the operator chose (BOOTSTRAP_API_KEY). The value itself is shown only when issued or rotated',
    }),
  ),
  expiresAt: Nullable(IsoDateTime),
  revokedAt: Nullable(IsoDateTime),
  revokedReason: Nullable(
    Type.Union(
      [
        Type.Literal('REVOKED'),
        Type.Literal('REPLACED_BY_NEW_AI_KEY'),
        Type.Literal('REPLACED_BY_NEW_BOOTSTRAP_KEY'),
        Type.Literal('PROJECT_DELETED'),
        Type.Literal('CUSTOMER_BLOCKED'),
      ],
      {
        description:
          'REVOKED: by a request; REPLACED_BY_NEW_AI_KEY: another key became the AI key; REPLACED_BY_NEW_BOOTSTRAP_KEY: the service started with another BOOTSTRAP_API_KEY; PROJECT_DELETED: its project was deleted (DELETE /projects/{projectId}); CUSTOMER_BLOCKED: the white-label customer owning its project was blocked (PUT .../whitelabel/customers/block)',
      },
    ),
  ),
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'last successful authentication, updated at most once per minute' })),
  rotatedAt: Nullable(IsoDateTime),
  created: IsoDateTime,
  active: Type.Boolean({ description: 'neither revoked nor expired' }),
  accessPolicy: Nullable(AccessPolicyDTO),
};

export const ApiKeyDTO = Type.Object(apiKeyProperties, {
  $id: 'ApiKeyDTO',
  additionalProperties: false,
  description: 'An API key; never its value.',
});

export const IssuedApiKeyDTO = Type.Object(
  {
    ...apiKeyProperties,
    key: Type.String({ description: 'the key value, for the X-API-KEY header. Shown only in this answer: only its hash is stored' }),
  },
  { $id: 'IssuedApiKeyDTO', additionalProperties: false },
);

export const ApiKeyCreateDTO = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    keyType: Type.Optional(KeyType),
    expiresAt: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description: 'after this time the key is rejected (at that very millisecond); must be in the future; null or left out: never',
        }),
      ),
    ),
    accountId: Type.Optional(Nullable({ ...Uuid, description: 'issue an account-level key for this account of the project; left out: a project-level key' })),
    accessPolicy: Type.Optional(Nullable(AccessPolicyWriteDTO)),
  },
  { additionalProperties: false, title: 'ApiKeyDTO (create)' },
);

export const ApiKeyUpdateDTO = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    keyType: Type.Optional(KeyType),
    expiresAt: Type.Optional(Nullable(Type.String({ format: 'date-time', description: 'must be in the future; null: never expires' }))),
  },
  { additionalProperties: false, minProperties: 1, title: 'ApiKeyDTO (update)', description: 'Members present are changed.' },
);

export const RestEndpointMetadataDTO = Type.Object(
  {
    method: Type.Union([Type.Literal('GET'), Type.Literal('POST'), Type.Literal('PUT'), Type.Literal('PATCH'), Type.Literal('DELETE')]),
    path: Type.String({ description: 'relative to /rest/api/v1, as a pathPattern would name it: `/accounts/{accountId}`' }),
    summary: Type.String(),
    tag: Type.String(),
    operationId: Type.String(),
  },
  { $id: 'RestEndpointMetadataDTO', additionalProperties: false },
);

export const FieldMetadataDTO = Type.Object(
  {
    fieldName: Type.String({ description: 'the member, e.g. balance' }),
    fieldType: Type.String({
      description:
        "the member's type as our document declares it: a JSON type (string, number, integer, boolean, object), a string format after a colon (string:uuid, string:date-time), a nested object by its schema name (RegionDTO), an array as array<item>. The reference answers Java class names (java.math.BigDecimal); this service has none to name",
    }),
    dtoClassName: Type.String({ description: 'AccountDTO, AccountInformationDTO or CopierDTO' }),
    description: Type.String({ description: "the member's description in our document, or empty" }),
    entry: Type.String({ description: 'ours: the access-policy entry naming this field of this DTO only, `DTO: field`' }),
  },
  {
    $id: 'FieldMetadataDTO',
    additionalProperties: false,
    description:
      "A restrictable member (the reference's FieldMetadataDTO; `entry` is ours). The reference lists only AccountInformationDTO; we list AccountDTO and CopierDTO too, which a policy can restrict as well",
  },
);

export const FrontendFeatureDTO = Type.Object(
  { id: Type.String(), name: Type.String(), description: Type.String() },
  { $id: 'FrontendFeatureDTO', additionalProperties: false },
);

export const ProjectKeyParams = Type.Object({ projectId: Uuid, apiKeyId: Uuid }, { additionalProperties: false });
export const ProjectParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });
