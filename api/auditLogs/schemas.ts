// AuditLogDTO (spec: GET .../auditLogs) and the query of both audit log routes. One entry per change (an
// event), as before, carrying the reference's request members from the API request that made it.
import { Type } from '@sinclair/typebox';
import { Int32, IsoDateOrDateTime, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

const Int64 = (description: string) => Type.Integer({ format: 'int64', minimum: 0, description });
const fromRequest = 'present when an API request made the change (absent for what the system did by itself)';

export const AuditLogDTO = Type.Object(
  {
    id: Uuid,
    created: IsoDateTime,
    timestamp: Type.String({
      format: 'date-time',
      description: 'when the request that made the change was received; for a change the system made by itself, when it was made (= created)',
    }),
    action: Type.String({
      description:
        'ours: the event: AccountCreated, AccountUpdated, AccountStarted, AccountStopped, AccountReconnectRequested, AccountDeleted, CopierCreated, CopierUpdated, CopierResyncRequested, CopierSymbolMappingsSet, CopierDeleted, TradeRequested, ProjectCreated, ProjectUpdated, SymbolMappingCreated, SymbolMappingUpdated, SymbolMappingDeleted, ApiKeyIssued, ApiKeyRenamed, ApiKeyExpiryChanged, ApiKeyTypeChanged, ApiKeyRotated, ApiKeyRevoked, ApiKeyAccessPolicySet, ApiKeyAccessPolicyRemoved, LogsAcknowledged, AllLogsAcknowledged (key and acknowledgement entries are in the project log only); for a request that changed nothing: ApiRequestRefused (answered 400 or above) or ApiRequestWithoutChange (accepted, nothing to change)',
    }),
    changes: Type.Unknown({
      description:
        "ours: members set or changed (null for a request that changed nothing); status changes as { accountStatusId: { from, to } }; account passwords shown as ***, webhook secrets (authentication.secret, authentication.token) as ********, as in the feature's own answers",
    }),
    accountId: Type.Optional(Uuid),
    accountAlias: Type.Optional(Type.String({ readOnly: true, description: 'current alias of the account; absent for a project entry' })),
    projectId: Uuid,
    projectName: Type.String({ readOnly: true }),
    apiKeyId: Type.Optional(Int64("the integer id of the key that made the request (ApiKeyDTO.numericId); absent for the system's own changes")),
    apiKeyAlias: Type.Optional(Type.String({ description: 'the current name of that key' })),
    apiKeyUuid: Nullable(Uuid),
    clientIp: Nullable(Type.String({ description: 'ours: the client address as the change recorded it' })),
    method: Type.Optional(Type.String({ description: `the HTTP method; ${fromRequest}` })),
    path: Nullable(Type.String({ description: 'ours: the path without /rest/api/v1 and the query' })),
    correlationId: Nullable(Type.String()),
    requestId: Type.Optional(Uuid),
    endpoint: Type.Optional(Type.String({ description: `the path called, with /rest/api/v1; ${fromRequest}` })),
    queryString: Type.Optional(Type.String({ description: 'the query, when there was one' })),
    statusCode: Type.Optional(Type.Integer({ description: `the HTTP status of the answer; ${fromRequest}` })),
    success: Type.Optional(Type.Boolean({ description: 'statusCode is 2xx' })),
    durationMs: Type.Optional(Int64('from the request reaching the API to the answer sent')),
    ipAddress: Type.Optional(Type.String({ description: 'the client address (behind TRUSTED_PROXIES, from X-Forwarded-For)' })),
    userAgent: Type.Optional(Type.String()),
    serverHost: Type.Optional(Type.String({ description: 'the host name of the instance that answered' })),
    requestHeaders: Type.Optional(
      Type.String({ description: 'the request headers as a JSON object; X-API-KEY, Authorization, Cookie and every header naming a secret as ********' }),
    ),
    requestBody: Type.Optional(
      Type.String({
        description:
          'the request body as JSON, every member whose name says password, secret, token, key, credential or signature as ******** at any depth; cut after 64 KiB',
      }),
    ),
    requestBodySize: Type.Optional(Int64('bytes of the request body as sent')),
    responseBody: Type.Optional(Type.String({ description: 'the answer, only of a failed request (as the reference), secrets masked' })),
    responseBodySize: Type.Optional(Int64('bytes of the answer')),
    errorMessage: Type.Optional(Type.String({ description: "the error's message, only of a failed request" })),
  },
  {
    $id: 'AuditLogDTO',
    additionalProperties: false,
    description:
      'One change (an event) with the API request that made it, or one API request that changed nothing (refused with 4xx or 5xx, or a no-op; action ApiRequestRefused or ApiRequestWithoutChange, id = requestId, changes null), so who tried what is listed too. Every POST, PUT and DELETE is recorded off the request path (it never slows or fails a request): its members appear once the record is written, which a read of the audit log waits for on the instance that answered the request; records still queued are written when the service stops gracefully. Secrets are masked before a record is made: X-API-KEY, Authorization, Cookie and every header, query parameter or body member (at any depth) whose name says password, secret, token, key, credential or signature. Request records are kept API_REQUEST_RETENTION_DAYS days (default 90): the changes themselves stay, without their request members, after that.',
  },
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
