// POST /projects/{projectId}/closeAllPositions (the reference's "Close all open positions in all
// accounts"): every started account of the project closes its positions and cancels its pending
// orders, as POST /accounts/{accountId}/actions/closeAllPositions does for one.
import { Type } from '@sinclair/typebox';
import { AccountStatus } from '../../domain/account/enums.js';
import { DomainError } from '../../domain/shared/errors.js';
import { listAccounts } from '../../projections/accounts/queries.js';
import { openPositionsOf } from '../../projections/positions/queries.js';
import { tradingSession } from '../../app/trading/session.js';
import type { Services } from '../../app/services.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { ErrorDTO, errorResponses, Uuid } from '../shared/schemas.js';
import type { TradingRequests } from './requests.js';

const ProjectIdParams = Type.Object({ projectId: Uuid }, { additionalProperties: false });

export const projectTradingRoutes = (routes: Routes, services: Services, { closeEverything }: TradingRequests): void => {
  routes.add<{ projectId: string }, unknown, unknown>({
    method: 'post',
    path: '/projects/{projectId}/closeAllPositions',
    tag: 'Trading',
    operationId: 'closeAllProjectPositions',
    summary: 'Close all open positions in all accounts',
    description:
      "Every started account of the project closes its open positions and cancels its pending orders, one account after the other, each as POST /accounts/{accountId}/actions/closeAllPositions (recorded per account; the copy engine copies the masters' closes). Accounts that are not started hold nothing at a broker session and are left alone. When something stays open (the broker refused: a closed market; a started account without a session, [ACCOUNT_NOT_CONNECTED]; an account with trading disabled, [TRADING_DISABLED]), the rest is still closed and the answer is 409 [CLOSE_ALL_INCOMPLETE] with details listing, per account, what stayed open and why. Needs a project-level key of this project: another project's id gives 404 [PROJECT_NOT_FOUND], an account-level key 403 [PROJECT_LEVEL_API_KEY_REQUIRED].",
    params: ProjectIdParams,
    responses: {
      204: { description: 'everything closed and cancelled' },
      ...errorResponses(400, 401, 403, 404),
      409: { description: 'something stayed open ([CLOSE_ALL_INCOMPLETE]); details say what and why', schema: ErrorDTO },
    },
    async handler(input) {
      const { params, caller } = input;
      if (params.projectId !== caller.projectId) throw new ApiError(404, '[PROJECT_NOT_FOUND]', `project ${params.projectId} not found`);
      if (caller.level === 'ACCOUNT')
        throw new ApiError(403, '[PROJECT_LEVEL_API_KEY_REQUIRED]', 'closing the positions of a project needs a project-level API key');
      const accounts = (await listAccounts(services.db, caller.projectId, {})).filter((a) => a.account_status_id === AccountStatus.Active);
      const failures: { accountId: string; positionId: string | null; error: string; message: string }[] = [];
      for (const account of accounts) {
        let connection;
        try {
          connection = tradingSession(services, account.id, account, true);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          if ((await openPositionsOf(services.db, account.id)).length > 0) {
            failures.push({ accountId: account.id, positionId: null, error: error.code, message: error.message });
          }
          continue;
        }
        for (const failure of await closeEverything(account.id, connection, input as never)) failures.push({ accountId: account.id, ...failure });
      }
      if (failures.length > 0) throw new ApiError(409, '[CLOSE_ALL_INCOMPLETE]', `${failures.length} could not be closed`, failures);
      return { status: 204 };
    },
  });
};
