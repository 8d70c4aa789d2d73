// The account logs (spec: GET /accounts/{accountId}/logs) and a project's logs with their
// acknowledgement (GET /projects/{projectId}/logs, PUT .../logs/{id}/acknowledge, .../logs/acknowledge/bulk,
// .../logs/acknowledgeAll), newest first.
import { type Static, Type } from '@sinclair/typebox';
import { acknowledgeAllLogs, acknowledgeLogs } from '../../app/commands/acknowledgeLogs.js';
import { LogType } from '../../projections/accountLogs/logLine.js';
import { type AccountLogPage, accountLogPage, projectLogPage } from '../../projections/accountLogs/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Caller, Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { errorResponses } from '../shared/schemas.js';
import { toLogDTO } from './dto.js';
import { LogDTO, LogIdList, LogQuery, ProjectLogIdParams, ProjectLogParams } from './schemas.js';

const DEFAULT_LIMIT = 100;
const TAG = 'Logs';
const QUERY_WORDS =
  'limit: the last N entries (default 100, at most 1000); offset skips from the newest; start and stop bound the time; logTypeId 1 = errors, 2 = errors and warnings, 3 (default) = everything.';

const pageOf = (query: Static<typeof LogQuery>): AccountLogPage => ({
  maxLogTypeId: query.logTypeId ?? LogType.Info,
  start: query.start,
  stop: query.stop,
  limit: query.limit ?? DEFAULT_LIMIT,
  offset: query.offset ?? 0,
});

/** A project's logs are read and acknowledged with a project-level key of that project. */
const projectScope = (caller: Caller, projectId: string): void => {
  if (projectId !== caller.projectId) throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${projectId} not found`);
  if (caller.level === 'ACCOUNT') throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', "a project's logs need a project-level API key");
};

export const logRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ accountId: string }, Static<typeof LogQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/logs',
    tag: TAG,
    operationId: 'accountLogs',
    summary: 'What happened on the account, newest first',
    description: `Connection changes, positions and orders at the broker, trading requests the broker refused, and for a slave account every copy the engine made and every master trade it did not copy, with the reason (code) and in words (text). ${QUERY_WORDS}`,
    params: AccountIdParams,
    query: LogQuery,
    responses: { 200: { description: 'log entries', schema: Type.Array(LogDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, query }) {
      await loadAccount(services, caller, params.accountId);
      const rows = await accountLogPage(services.db, params.accountId, pageOf(query));
      return { body: rows.map((row) => toLogDTO(row, caller.projectId)) };
    },
  });

  routes.add<{ projectId: string }, Static<typeof LogQuery>, unknown>({
    method: 'get',
    path: '/projects/{projectId}/logs',
    tag: TAG,
    operationId: 'projectLogs',
    summary: 'The logs of every account of the project, newest first',
    description: `The entries of GET /accounts/{accountId}/logs of all the project's accounts (deleted ones too). ${QUERY_WORDS} start and stop are ours (the reference has them on the account logs only). Needs a project-level key of this project; another project id gives 404 [PROJECT_NOT_FOUND].`,
    params: ProjectLogParams,
    query: LogQuery,
    responses: { 200: { description: 'log entries', schema: Type.Array(LogDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, query }) {
      projectScope(caller, params.projectId);
      const rows = await projectLogPage(services.db, caller.projectId, pageOf(query));
      return { body: rows.map((row) => toLogDTO(row, caller.projectId)) };
    },
  });

  const acknowledged = { 200: { description: 'acknowledged (no body, as the reference)' } };

  routes.add<{ projectId: string; id: number }, unknown, unknown>({
    method: 'put',
    path: '/projects/{projectId}/logs/{id}/acknowledge',
    tag: TAG,
    operationId: 'acknowledgeLog',
    summary: 'Marks one entry of the project logs as seen',
    description:
      'Sets acknowledged on the entry (an event of the project, in its audit trail). Acknowledging an acknowledged entry changes nothing. The reference declares the id int32; ids are int64 (LogDTO.id), and every one is accepted here. An id that is not an entry of this project: 404 [LOG_NOT_FOUND].',
    params: ProjectLogIdParams,
    responses: { ...acknowledged, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, caller, context }) {
      projectScope(caller, params.projectId);
      await acknowledgeLogs(services, { projectId: caller.projectId, logIds: [params.id], context });
      return { status: 200 };
    },
  });

  routes.add<{ projectId: string }, unknown, readonly number[]>({
    method: 'put',
    path: '/projects/{projectId}/logs/acknowledge/bulk',
    tag: TAG,
    operationId: 'acknowledgeLogsBulk',
    summary: 'Marks entries of the project logs as seen',
    description:
      'The body is the list of LogDTO ids. One id that is not an entry of this project: 404 [LOG_NOT_FOUND], and none is acknowledged. Duplicates count once; an empty list changes nothing.',
    params: ProjectLogParams,
    body: LogIdList,
    bodyRequired: true,
    responses: { ...acknowledged, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, caller, context, body }) {
      projectScope(caller, params.projectId);
      await acknowledgeLogs(services, { projectId: caller.projectId, logIds: body, context });
      return { status: 200 };
    },
  });

  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'put',
    path: '/projects/{projectId}/logs/acknowledgeAll',
    tag: TAG,
    operationId: 'acknowledgeAllLogs',
    summary: 'Marks every entry of the project logs so far as seen',
    description: 'Entries written after the request are not acknowledged.',
    params: ProjectLogParams,
    responses: { ...acknowledged, ...errorResponses(400, 401, 403, 404, 409) },
    async handler({ params, caller, context }) {
      projectScope(caller, params.projectId);
      await acknowledgeAllLogs(services, { projectId: caller.projectId, context });
      return { status: 200 };
    },
  });
};
