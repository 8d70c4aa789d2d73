// Audit logs (spec: GET /accounts/{accountId}/auditLogs, GET /projects/{projectId}/auditLogs): every change
// made through the API, newest first, with who (API key id), from where (client IP), what and when.
import { type Static, Type } from '@sinclair/typebox';
import { DateTime } from 'luxon';
import { listAuditLogs } from '../../projections/auditLogs/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import { toAuditLogDTO } from './dto.js';
import { recorderOf } from './requestRecorder.js';
import { AuditLogDTO, AuditLogQuery } from './schemas.js';

type Query = Static<typeof AuditLogQuery>;

const RECORDS_WAIT_MS = 2000;

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

export const auditLogRoutes = (routes: Routes, services: Services): void => {
  const list = async (projectId: string, q: Query, accountId?: string) => {
    // The requests this instance answered so far are in the log (bounded: a slow database delays no read long).
    await Promise.race([recorderOf(services).flush(), new Promise((resolve) => setTimeout(resolve, RECORDS_WAIT_MS).unref())]);
    const rows = await listAuditLogs(services.db, projectId, {
      ...(accountId ? { accountId } : {}),
      ...range(q),
      limit: q.limit ?? 100,
      offset: q.offset ?? 0,
    });
    return rows.map(toAuditLogDTO);
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
