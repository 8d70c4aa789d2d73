// The charting data of an account (spec: GET /webhooks/charting/accounts/{accountId}/data, GET and DELETE
// .../data/{dataId}): every alert its charting webhook received, with what it did, newest first.
import { type Static, Type } from '@sinclair/typebox';
import { deleteChartingData } from '../../../app/chartingWebhook/data.js';
import type { Services } from '../../../app/services.js';
import { chartingDataOf, findChartingData } from '../../../projections/chartingData/queries.js';
import { AccountIdParams } from '../../accounts/schemas.js';
import { ApiError } from '../../errors.js';
import type { Caller, Routes } from '../../route.js';
import { loadAccount } from '../../shared/accounts.js';
import { errorResponses } from '../../shared/schemas.js';
import { toChartingDataDTO } from './dto.js';
import { ChartingDataDTO, ChartingDataParams, ChartingDataQuery } from './schemas.js';

const TAG = 'Charting webhook';
const DEFAULT_LIMIT = 100;

export const chartingDataRoutes = (routes: Routes, services: Services): void => {
  const rowOf = async (caller: Caller, accountId: string, dataId: string) => {
    await loadAccount(services, caller, accountId);
    const row = await findChartingData(services.db, caller.projectId, accountId, dataId);
    if (!row) throw new ApiError(404, '[CHARTING_DATA_NOT_FOUND]', `charting data ${dataId} not found`);
    return row;
  };

  routes.add<{ accountId: string }, Static<typeof ChartingDataQuery>, unknown>({
    method: 'get',
    path: '/webhooks/charting/accounts/{accountId}/data',
    tag: TAG,
    operationId: 'listChartingData',
    summary: "The alerts the account's charting webhook received, newest first",
    description:
      "Every alert POSTed to the address of the account's FeatureChartingWebhookDTO (rate-limited ones excepted), with the message as received, what it was read as, and what every attempt did (opened, placed, modified, closed, refused and why, retried, given up). limit (default 100, at most 1000) and offset page from the newest. An account of another project: 404 [ACCOUNT_NOT_FOUND].",
    params: AccountIdParams,
    query: ChartingDataQuery,
    responses: { 200: { description: 'charting data', schema: Type.Array(ChartingDataDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, query, caller }) {
      await loadAccount(services, caller, params.accountId);
      const rows = await chartingDataOf(services.db, caller.projectId, params.accountId, { limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 });
      return { body: rows.map(toChartingDataDTO) };
    },
  });

  routes.add<{ accountId: string; dataId: string }, unknown, unknown>({
    method: 'get',
    path: '/webhooks/charting/accounts/{accountId}/data/{dataId}',
    tag: TAG,
    operationId: 'getChartingData',
    summary: 'One alert and what it did',
    params: ChartingDataParams,
    responses: { 200: { description: 'the charting data', schema: ChartingDataDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      return { body: toChartingDataDTO(await rowOf(caller, params.accountId, params.dataId)) };
    },
  });

  routes.add<{ accountId: string; dataId: string }, unknown, unknown>({
    method: 'delete',
    path: '/webhooks/charting/accounts/{accountId}/data/{dataId}',
    tag: TAG,
    operationId: 'deleteChartingData',
    summary: 'Delete one alert from the charting data',
    description: 'An alert still being retried is no longer retried; what it opened stays open. Unknown id: 404 [CHARTING_DATA_NOT_FOUND].',
    params: ChartingDataParams,
    responses: { 200: { description: 'deleted' }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, context }) {
      await rowOf(caller, params.accountId, params.dataId);
      await deleteChartingData(services, { accountId: params.accountId, dataId: params.dataId }, context);
      return { status: 200 };
    },
  });
};
