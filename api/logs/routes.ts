// GET /accounts/{accountId}/logs (spec: "Accounts"): the account logs, newest first.
import { type Static, Type } from '@sinclair/typebox';
import { LogType } from '../../projections/accountLogs/logLine.js';
import { accountLogPage } from '../../projections/accountLogs/queries.js';
import { loadAccount } from '../shared/accounts.js';
import { AccountIdParams } from '../accounts/schemas.js';
import type { Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { errorResponses } from '../shared/schemas.js';
import { LogDTO, LogQuery } from '../trading/schemas.js';
import { toLogDTO } from './dto.js';

const DEFAULT_LIMIT = 100;

export const logRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ accountId: string }, Static<typeof LogQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/logs',
    tag: 'Logs',
    operationId: 'accountLogs',
    summary: 'What happened on the account, newest first',
    description:
      'Connection changes, positions and orders at the broker, trading requests the broker refused, and for a slave account every copy the engine made and every master trade it did not copy, with the reason (code) and in words (message). limit: the last N entries (default 100, at most 1000); offset skips from the newest; start and stop bound the time; logTypeId 1 = errors, 2 = errors and warnings, 3 (default) = everything.',
    params: AccountIdParams,
    query: LogQuery,
    responses: { 200: { description: 'log entries', schema: Type.Array(LogDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, query }) {
      await loadAccount(services, caller, params.accountId);
      const rows = await accountLogPage(services.db, params.accountId, {
        maxLogTypeId: query.logTypeId ?? LogType.Info,
        start: query.start,
        stop: query.stop,
        limit: query.limit ?? DEFAULT_LIMIT,
        offset: query.offset ?? 0,
      });
      return { body: rows.map(toLogDTO) };
    },
  });
};
