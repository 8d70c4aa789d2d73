// AuditLogDTO (spec: GET .../auditLogs) and the query of both audit log routes.
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateOrDateTime, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const AuditLogDTO = Type.Object(
  {
    id: Uuid,
    created: IsoDateTime,
    action: Type.String({
      description:
        'the event: AccountCreated, AccountUpdated, AccountStarted, AccountStopped, AccountReconnectRequested, AccountDeleted, CopierCreated, CopierUpdated, CopierResyncRequested, CopierSymbolMappingsSet, CopierDeleted, TradeRequested, ProjectCreated, ProjectUpdated, SymbolMappingCreated, SymbolMappingUpdated, SymbolMappingDeleted, ApiKeyIssued, ApiKeyRenamed, ApiKeyExpiryChanged, ApiKeyTypeChanged, ApiKeyRotated, ApiKeyRevoked, ApiKeyAccessPolicySet, ApiKeyAccessPolicyRemoved, LogsAcknowledged, AllLogsAcknowledged (key and acknowledgement entries are in the project log only)',
    }),
    changes: Type.Unknown({
      description:
        "members set or changed; status changes as { accountStatusId: { from, to } }; account passwords shown as ***, webhook secrets (authentication.secret, authentication.token) as ********, as in the feature's own answers",
    }),
    accountId: Nullable(Uuid),
    accountAlias: Nullable(Type.String({ readOnly: true, description: 'current alias of the account' })),
    projectId: Uuid,
    projectName: Type.String({ readOnly: true }),
    apiKeyId: Nullable(Uuid),
    clientIp: Nullable(Type.String()),
    method: Nullable(Type.String()),
    path: Nullable(Type.String()),
    correlationId: Nullable(Type.String()),
  },
  { $id: 'AuditLogDTO', additionalProperties: false },
);

export const AuditLogQuery = Type.Object(
  {
    limit: Type.Optional(Int32({ minimum: 1, maximum: 1000, description: 'default 100' })),
    offset: Type.Optional(Int32({ minimum: 0, description: 'default 0' })),
    startDate: Type.Optional(IsoDateOrDateTime),
    endDate: Type.Optional(IsoDateOrDateTime),
  },
  { additionalProperties: false },
);
