// The investor program (spec "Operations known by path and purpose": GET /investorProgram/traders,
// /investorProgram/traders/{traderId}, .../history/positions, .../performanceMetrics): approved traders
// (accounts with FeatureTraderDTO) of every project, read by investors (FeatureInvestorDTO). Who sees
// what: domain/investor/program.ts; the reads: app/investorProgram.ts.
import { type Static, Type } from '@sinclair/typebox';
import { performanceMetrics, scoreOfKept } from '../../domain/analytics/metrics.js';
import { boundOf } from '../../domain/analytics/periods.js';
import { SCORE_FORMULA } from '../../domain/analytics/score.js';
import { findInvestorProgramTrader, type InvestorProgramTrader, investorProgramTraderHistory, listInvestorProgramTraders } from '../../app/investorProgram.js';
import type { Services } from '../../app/services.js';
import { accountFacts, metricsInput } from '../analytics/routes.js';
import { MetricsQuery, PerformanceMetricsDTO } from '../analytics/schemas.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import { errorResponses } from '../shared/schemas.js';
import { HistoryQuery, PositionDTO } from '../trading/schemas.js';
import { toInvestorProgramTraderDTO, toPublicHistoryPositionDTO } from './dto.js';
import { InvestorProgramTraderDTO, TraderIdParams } from './schemas.js';

const TAG = 'Investor program';

const WHO =
  'Needs the investor role: a project-level key of a project with an account carrying FeatureInvestorDTO (not deleted), or the account-level key of such an account; otherwise 403 [INVESTOR_ROLE_REQUIRED]. An investor sees the approved traders of every project (accounts carrying FeatureTraderDTO, given by their project), public data only: never the account id, login, alias or project, nor open positions.';

export const investorProgramRoutes = (routes: Routes, services: Services): void => {
  /** The trader's public data, its score from the kept facts and its account's own (live, prop firm, currency). */
  const dtoOf = async ({ trader, account, kept }: InvestorProgramTrader) => {
    const facts = await accountFacts(services, account);
    return toInvestorProgramTraderDTO(trader, account, { currency: facts.currency, ...scoreOfKept(kept, facts, services.config.timeZone) });
  };

  routes.add<unknown, unknown, unknown>({
    method: 'get',
    path: '/investorProgram/traders',
    tag: TAG,
    operationId: 'getInvestorProgramTraders',
    summary: 'The approved traders, best score first',
    description: `${WHO} Ordered by score (highest first; the score of GET /accounts/{accountId}/performanceMetrics over the whole history, from the facts the marketplace read model keeps per trader: a trade shows once the read model has it), then by approval time, then id.`,
    responses: { 200: { description: 'the traders', schema: Type.Array(InvestorProgramTraderDTO) }, ...errorResponses(401, 403) },
    async handler({ caller }) {
      const traders = [];
      for (const found of await listInvestorProgramTraders(services, caller)) traders.push(await dtoOf(found));
      // A stable sort: equal scores keep the approval order of the query.
      return { body: traders.sort((a, b) => b.score - a.score) };
    },
  });

  routes.add<{ traderId: string }, unknown, unknown>({
    method: 'get',
    path: '/investorProgram/traders/{traderId}',
    tag: TAG,
    operationId: 'getInvestorProgramTrader',
    summary: 'One approved trader',
    description: `${WHO} An id that is no approved trader (never was, its role was removed, its account or project deleted) gives 404 [TRADER_NOT_FOUND].`,
    params: TraderIdParams,
    responses: { 200: { description: 'the trader', schema: InvestorProgramTraderDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller }) {
      return { body: await dtoOf(await findInvestorProgramTrader(services, caller, params.traderId)) };
    },
  });

  routes.add<{ traderId: string }, Static<typeof HistoryQuery>, unknown>({
    method: 'get',
    path: '/investorProgram/traders/{traderId}/history/positions',
    tag: TAG,
    operationId: 'getInvestorProgramTraderHistoryPositions',
    summary: "The trader's closed positions between start and stop",
    description: `${WHO} From the history read model, as POST /reports/performance lists them (one entry per closed volume, by close time), without their comment, magic number and client order id (answered "", "0" and ""). Only while the trader's FeatureTraderDTO has makeHistoryPublic (the default): otherwise 403 [TRADER_HISTORY_NOT_PUBLIC]. start and stop are required; start after stop gives 400.`,
    params: TraderIdParams,
    query: HistoryQuery,
    responses: { 200: { description: 'closed positions', schema: Type.Array(PositionDTO) }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, query }) {
      if (Date.parse(query.start) > Date.parse(query.stop)) throw new ApiError(400, '[VALIDATION_FAILED]', 'start must not be after stop');
      const start = new Date(query.start).toISOString();
      const stop = new Date(query.stop).toISOString();
      return { body: (await investorProgramTraderHistory(services, caller, params.traderId, start, stop)).map(toPublicHistoryPositionDTO) };
    },
  });

  routes.add<{ traderId: string }, Static<typeof MetricsQuery>, unknown>({
    method: 'get',
    path: '/investorProgram/traders/{traderId}/performanceMetrics',
    tag: TAG,
    operationId: 'getInvestorProgramTraderPerformanceMetrics',
    summary: "The trader's performance metrics",
    description: `${WHO} Exactly what GET /accounts/{accountId}/performanceMetrics answers for the trader's account (the same computation, the same startDate and endDate), whether or not the trader makes its history public.\n\n${SCORE_FORMULA}`,
    params: TraderIdParams,
    query: MetricsQuery,
    responses: { 200: { description: 'the metrics', schema: PerformanceMetricsDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ params, caller, query }) {
      const zone = services.config.timeZone;
      const from = query.startDate ? boundOf(query.startDate, false, zone) : null;
      const to = query.endDate ? boundOf(query.endDate, true, zone) : null;
      if (from && to && Date.parse(from) > Date.parse(to)) throw new ApiError(400, '[VALIDATION_FAILED]', 'startDate must not be after endDate');
      const { account } = await findInvestorProgramTrader(services, caller, params.traderId);
      return { body: performanceMetrics(await metricsInput(services, account, from, to)) };
    },
  });
};
