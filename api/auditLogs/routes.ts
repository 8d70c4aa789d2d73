// Audit logs (spec: GET /accounts/{accountId}/auditLogs, GET /projects/{projectId}/auditLogs): every change
// made through the API, newest first, with who (API key id), from where (client IP), what and when.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { listAuditLogs } from '../../projections/auditLogs/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { errorResponses, Int32, IsoDateOrDateTime, IsoDateTime, Nullable, Uuid } from '../shared/schemas.js';

export const AuditLogDTO = Type.Object(
  {
    id: Uuid,
    created: IsoDateTime,
    action: Type.String({
      description:
        'the event: AccountCreated, AccountUpdated, AccountStarted, AccountStopped, AccountReconnectRequested, AccountDeleted, CopierCreated, CopierUpdated, CopierResyncRequested, CopierSymbolMappingsSet, CopierDeleted, TradeRequested, ProjectCreated, ApiKeyIssued, ApiKeyRenamed, ApiKeyExpiryChanged, ApiKeyTypeChanged, ApiKeyRotated, ApiKeyRevoked, ApiKeyAccessPolicySet, ApiKeyAccessPolicyRemoved (key entries are in the project log only)',
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

const AuditLogQuery = Type.Object(
  {
    limit: Type.Optional(Int32({ minimum: 1, maximum: 1000, description: 'default 100' })),
    offset: Type.Optional(Int32({ minimum: 0, description: 'default 0' })),
    startDate: Type.Optional(IsoDateOrDateTime),
    endDate: Type.Optional(IsoDateOrDateTime),
  },
  { additionalProperties: false },
);
type Query = Static<typeof AuditLogQuery>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A date-time as given; a whole day as its first (start) or last (end) millisecond in UTC. */
const bound = (value: string | undefined, edge: 'start' | 'end'): string | undefined => {
  if (!value || !DAY.test(value)) return value;
  const day = DateTime.fromISO(value, { zone: 'utc' });
  return (edge === 'start' ? day.startOf('day') : day.endOf('day')).toISO()!;
};

const range = (q: Query): { startDate?: string; endDate?: string } => {
  const startDate = bound(q.startDate, 'start');
  const endDate = bound(q.endDate, 'end');
  if (startDate && endDate && new Date(startDate) > new Date(endDate)) {
    throw new ApiError(400, '[VALIDATION_FAILED]', 'startDate must not be after endDate');
  }
  return { ...(startDate ? { startDate } : {}), ...(endDate ? { endDate } : {}) };
};

const iso = (v: Date | string): string => new Date(v).toISOString();

export const auditLogRoutes = (routes: Routes, services: Services): void => {
  const list = async (projectId: string, q: Query, accountId?: string) => {
    const rows = await listAuditLogs(services.db, projectId, {
      ...(accountId ? { accountId } : {}),
      ...range(q),
      limit: q.limit ?? 100,
      offset: q.offset ?? 0,
    });
    return rows.map((r) => ({
      id: r.id,
      created: iso(r.created),
      action: r.action,
      changes: r.changes,
      accountId: r.account_id,
      accountAlias: r.account_alias ?? null,
      projectId: r.project_id,
      projectName: r.project_name,
      apiKeyId: r.api_key_id,
      clientIp: r.client_ip,
      method: r.method,
      path: r.path,
      correlationId: r.correlation_id,
    }));
  };
  const responses = { 200: { description: 'audit log entries, newest first', schema: Type.Array(AuditLogDTO) }, ...errorResponses(400, 401, 404) };

  routes.add<{ accountId: string }, Query, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/auditLogs',
    tag: 'Accounts',
    operationId: 'listAccountAuditLogs',
    summary: 'API modifications of the account',
    params: Type.Object({ accountId: Uuid }, { additionalProperties: false }),
    query: AuditLogQuery,
    responses,
    async handler({ params, query, caller }) {
      await loadAccount(services, caller, params.accountId);
      return { body: await list(caller.projectId, query, params.accountId) };
    },
  });

  routes.add<{ projectId: string }, Query, unknown>({
    method: 'get',
    path: '/projects/{projectId}/auditLogs',
    tag: 'Projects',
    operationId: 'listProjectAuditLogs',
    summary: 'API modifications of the project and all its accounts',
    description: 'Needs a project-level key of this project; another project id gives 404 [PROJECT_NOT_FOUND].',
    params: Type.Object({ projectId: Uuid }, { additionalProperties: false }),
    query: AuditLogQuery,
    responses: { ...responses, ...errorResponses(403) },
    async handler({ params, query, caller }) {
      if (params.projectId !== caller.projectId) {
        throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${params.projectId} not found`);
      }
      if (caller.level === 'ACCOUNT') {
        throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'project audit logs need a project-level API key');
      }
      return { body: await list(caller.projectId, query) };
    },
  });
};
