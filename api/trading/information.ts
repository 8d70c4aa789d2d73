// GET /accounts/{accountId}/information (Trading API): balance, equity, margin, results and state of
// an account, with or without a broker session.
import { netProfitSince, performanceMetrics } from '../../domain/analytics/metrics.js';
import { periodStart } from '../../domain/analytics/periods.js';
import { balanceOperationsOf, tradesOf } from '../../projections/history/queries.js';
import { otherAccountWithSameLogin } from '../../projections/accounts/queries.js';
import { pendingApprovals } from '../../projections/approvals/queries.js';
import { positionMismatchOf } from '../../projections/copies/queries.js';
import { openPositionsOf } from '../../projections/positions/queries.js';
import { accountProtections } from '../riskLimits/views.js';
import type { OpenPosition } from '../../app/trading/session.js';
import { loadAccount } from '../shared/accounts.js';
import { AccountIdParams } from '../accounts/schemas.js';
import type { Routes } from '../route.js';
import { type Services, settle } from '../../app/services.js';
import { errorResponses } from '../shared/schemas.js';
import { AccountInformationDTO } from './schemas.js';
import { knownPositionView, positionView } from './views.js';

const HYPERACTIVE_TRADES_PER_DAY = 500;
/** How long account information waits for the copy engine to finish what it has in hand. */
const ENGINE_IDLE_WAIT_MS = 2000;

export const informationRoutes = (routes: Routes, services: Services): void => {
  const resultsOf = (accountId: string) => accountResults(services, accountId);

  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/information',
    tag: 'Trading',
    operationId: 'accountInformation',
    summary: 'Balance, equity, margin, results and state of the account',
    description: "Works for every account: while it has no broker session, the broker's figures are null and the counts come from the last known book.",
    params: AccountIdParams,
    responses: { 200: { description: 'the account information', schema: AccountInformationDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      const account = await loadAccount(services, caller, params.accountId);
      const connection = services.connections.connection(params.accountId);
      const duplicates = await otherAccountWithSameLogin(services.db, caller.projectId, account);
      // positionMismatch reads the engine's outcomes (CopyExecuted), which it appends after the slave's
      // venue reported the fill: a close of that copy right after could otherwise be judged before the
      // copy was known (the race behind copierFeatures "resync reopens on the slave"). Bounded wait.
      await Promise.race([services.engine.idle(), new Promise((r) => setTimeout(r, ENGINE_IDLE_WAIT_MS).unref())]);
      await settle(services);
      const mismatch = await positionMismatchOf(services.db, params.accountId);
      const results = await resultsOf(params.accountId);
      const protections = await accountProtections(services, params.accountId);
      const common = {
        ...results,
        ...protections,
        connected: connection !== null,
        status: account.account_status_id,
        isNative: account.native_mode,
        historyDeactivated: false,
        accountDuplicationInProjectDetected: duplicates !== undefined,
        pendingApprovals: (await pendingApprovals(services.db, params.accountId, services.clock())).length,
        positionMismatch: mismatch,
      };
      if (!connection) {
        const known = await openPositionsOf(services.db, params.accountId);
        return {
          body: {
            ...common,
            currency: null,
            leverage: null,
            balance: null,
            equity: null,
            credit: null,
            usedMargin: null,
            freeMargin: null,
            unrealizedProfit: null,
            marginLevel: null,
            marginMode: null,
            environment: null,
            openPositionsCount: known.filter((r) => r.kind === 'position').length,
            pendingOrdersCount: known.filter((r) => r.kind === 'order').length,
            openPositions: known.filter((r) => r.kind === 'position').map(knownPositionView),
          },
        };
      }
      const info = await connection.accountInformation();
      const book = await connection.positions();
      return {
        body: {
          ...common,
          currency: info.currency,
          leverage: info.leverage,
          balance: info.balance,
          equity: info.equity,
          credit: info.credit,
          usedMargin: info.margin,
          freeMargin: info.freeMargin,
          unrealizedProfit: info.unrealizedProfit,
          marginLevel: info.marginLevel,
          marginMode: info.marginMode,
          environment: info.environment,
          openPositionsCount: info.openPositionsCount,
          pendingOrdersCount: info.pendingOrdersCount,
          openPositions: book.filter((p): p is OpenPosition => p.kind === 'position').map(positionView),
        },
      };
    },
  });
};

/**
 * The results members of AccountInformationDTO, from the same history and formulas as the performance
 * metrics (domain/analytics/metrics.ts), in the service's time zone.
 */
const accountResults = async (services: Services, accountId: string) => {
  const zone = services.config.timeZone;
  const now = services.clock();
  const trades = await tradesOf(services.db, accountId);
  const balanceOperations = await balanceOperationsOf(services.db, accountId);
  const { maxDrawdown, avgDrawdown } = performanceMetrics({ trades, balanceOperations, samples: [], from: null, to: null, zone, dataCollectorEnabled: false });
  const dayAgo = now.getTime() - 86_400_000;
  return {
    profitToday: netProfitSince(trades, periodStart('day', now, zone)),
    profitThisWeek: netProfitSince(trades, periodStart('week', now, zone)),
    profitThisMonth: netProfitSince(trades, periodStart('month', now, zone)),
    avgDrawdown,
    maxDrawdown,
    isHyperactive: trades.filter((t) => Date.parse(t.closeTime) >= dayAgo).length > HYPERACTIVE_TRADES_PER_DAY,
  };
};
