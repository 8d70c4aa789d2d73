// Performance metrics, their picture and the data collector (spec: "Accounts": performanceMetrics,
// dataCollector). Everything is computed from the read models of events (history, data_collector), so
// a rebuild gives the same numbers.
import { type Static, Type } from '@sinclair/typebox';
import { accountTypeOf } from '../../domain/account/enums.js';
import { type AccountFacts, performanceMetrics, type MetricsInput, type PerformanceMetrics } from '../../domain/analytics/metrics.js';
import { boundOf } from '../../domain/analytics/periods.js';
import { accountPerformance } from '../../domain/analytics/report.js';
import { SCORE_FORMULA } from '../../domain/analytics/score.js';
import { AccountStatus } from '../../domain/account/enums.js';
import { accountCurrencyOf, DEFAULT_ACCOUNT_CURRENCY } from '../../app/trading/session.js';
import { firstSampleOf, lastSamplesOf, samplesOf } from '../../projections/dataCollector/queries.js';
import { DATA_COLLECTOR_RETENTION_DAYS, normalizationFactor } from '../../domain/analytics/dataCollector.js';
import { dataCollectorSettingOf, hasDataCollectorFeature } from '../../projections/features/queries.js';
import { accountsAmong, accountsOfProject, featureTargets, type ReportAccountRow } from '../../projections/accounts/reportScope.js';
import { balanceOperationsOf, closedTradesBetween, tradesOf } from '../../projections/history/queries.js';
import { checkAccountScope, loadAccount } from '../shared/accounts.js';
import { checkProjectScope } from '../shared/projects.js';
import { AccountIdParams } from '../accounts/schemas.js';
import { ApiError } from '../errors.js';
import type { Routes } from '../route.js';
import type { Services } from '../../app/services.js';
import { errorResponses } from '../shared/schemas.js';
import { chartSubtitle, equityChartSvg, equityCurve } from './chart.js';
import { recordedValues, toDataCollectorRecordDTO, toHistoryPositionDTO } from './dto.js';
import {
  DataCollectorQuery,
  DataCollectorRecordDTO,
  MetricsQuery,
  PerformanceMetricsDTO,
  ReportPerformanceDTO,
  ReportPerformanceParametersDTO,
} from './schemas.js';

const DEFAULT_SAMPLE_LIMIT = 10_000;

const METRICS_DESCRIPTION = `Computed from the account's closed trades, balance operations and data-collector samples (the read models of its events). startDate and endDate (inclusive; a date means the whole day in the service's TIME_ZONE) bound trades by close time, balance operations and samples by time; without them, the whole history.

Definitions: a trade is one closed volume (a position closed in parts counts each part); its result is profit + swap + commission; a win is a result above 0, a loss below 0, break-even exactly 0. The balance curve is the balance after each trade and balance operation, from the balance at the start of the range; a drawdown episode runs from a peak until the balance reaches a new peak, its depth is (peak - balance) / peak, and deposits and withdrawals shift the peak instead of counting as results. Recovery time: hours from a peak to the new peak, over recovered episodes. Time in drawdown: the share of the range's time spent below the peak. Smoothness: R² of a straight line fitted to the equity curve (samples when at least two, else the balance curve). Volatility: standard deviation of day-to-day returns of end-of-day equity. Collector members come from the samples (equity drawdown from the running peak of equity, floating P&L). Days, weeks (ISO, from Monday) and months are those of the service's TIME_ZONE (default UTC); the reference's end-of-day UTC values are those of the default.

The reference's members: totalNetProfit = netProfit; expectancy = avgNetProfitPerTrade = the mean result per trade; largestWin and largestLoss are single results (0 when there is none); avgRiskReward = avgWin / |avgLoss| (0 without a win or a loss); streaks run in close order and a break-even ends them; avgHoldingTimeSeconds is open to close; firstTradeAt is the earliest opening and lastTradeAt the latest close of the range's trades (both left out without trades, as profitFactor is without losses: the reference has no null); monthsActive counts the calendar months from the one to the other; per month (YYYY-MM of the close): profitAmountPerMonth the net result, avgProfitPerMonth the mean result per trade, profitPercentagePerMonth the net result over the balance at the month's start plus its deposits; dailyBalance is the balance at the end of every day from the range's first to its last trade or balance operation; dailyEquity the last data-collector sample of each day when there are at least two samples, else the balance; broker is the loginServer; currency the broker's account currency (USD, the simulated venue's, while not connected).

${SCORE_FORMULA}`;

const REPORT_DESCRIPTION = `Where each account stood at stop and what it earned from start to stop, from the history read model (the same as performanceMetrics). idType ACCOUNT: the accounts themselves; PROJECT: every account of the project, deleted ones too (only the caller's own project, with a project-level key: another id gives 404 [PROJECT_NOT_FOUND], an account-level key 403 [PROJECT_LEVEL_API_KEY_REQUIRED]); FEATURE: the account a feature is attached to, a copier feature's slave account, or every account of the project for a project feature. An id the caller cannot reach gives 404 ([ACCOUNT_NOT_FOUND], [FEATURE_NOT_FOUND]) and no report; an account-level key reaches its own account only. An account reached twice is listed once, in the order of the ids. start after stop gives 400.

Per account (AccountPerformanceDTO): date = stop; balance = every balance operation and trade result up to stop; equity = the last data-collector sample within start..stop, else the balance; currentDrawdown = percent below the balance's peak at stop (deposits and withdrawals move the peak); history = the trades closed within start..stop as PositionDTO, mapped as history/positions maps them (the history read model keeps no comment, magic number or client order id: "", "0", "", placedType Manually unless the broker closed it); netProfits = net result by year, then month (1 = January) of the close in TIME_ZONE; currency as performanceMetrics; customerEmail is left out (no customer e-mail addresses are kept).`;

/** The account's own part of its metrics: type, broker, currency, and whether it is live (only known while connected). */
export const accountFacts = async (services: Services, account: Awaited<ReturnType<typeof loadAccount>>): Promise<AccountFacts> => {
  const connection = services.connections.connection(account.id);
  const info = connection ? await connection.accountInformation() : null;
  return {
    accountType: { id: account.account_type_id, name: accountTypeOf(account.account_type_id)?.name ?? String(account.account_type_id) },
    broker: account.login_server,
    currency: info?.currency ?? DEFAULT_ACCOUNT_CURRENCY,
    live: info?.environment === 'LIVE',
    propFirm: account.prop_firm,
  };
};

/** Everything performanceMetrics needs for one account and range. */
export const metricsInput = async (
  services: Services,
  account: Awaited<ReturnType<typeof loadAccount>>,
  from: string | null,
  to: string | null,
): Promise<MetricsInput> => {
  const accountId = account.id;
  const dataCollectorEnabled = await hasDataCollectorFeature(services.db, accountId);
  return {
    account: await accountFacts(services, account),
    trades: await tradesOf(services.db, accountId, to),
    balanceOperations: await balanceOperationsOf(services.db, accountId, to),
    samples: (await samplesOf(services.db, accountId, from, to)).map((s) => ({
      time: new Date(s.time).toISOString(),
      balance: s.balance,
      equity: s.equity,
      floating: s.floating_pnl,
    })),
    from,
    to,
    zone: services.config.timeZone,
    dataCollectorEnabled,
  };
};

export const analyticsRoutes = (routes: Routes, services: Services): void => {
  const range = (query: Static<typeof MetricsQuery>) => {
    const zone = services.config.timeZone;
    const from = query.startDate ? boundOf(query.startDate, false, zone) : null;
    const to = query.endDate ? boundOf(query.endDate, true, zone) : null;
    if (from && to && Date.parse(from) > Date.parse(to)) throw new ApiError(400, '[VALIDATION_FAILED]', 'startDate must not be after endDate');
    return { from, to };
  };
  const metricsOf = async (
    account: Awaited<ReturnType<typeof loadAccount>>,
    query: Static<typeof MetricsQuery>,
  ): Promise<{ input: MetricsInput; metrics: PerformanceMetrics }> => {
    const { from, to } = range(query);
    const input = await metricsInput(services, account, from, to);
    return { input, metrics: performanceMetrics(input) };
  };

  routes.add<{ accountId: string }, Static<typeof MetricsQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/performanceMetrics',
    tag: 'Analytics',
    operationId: 'performanceMetrics',
    summary: 'Performance metrics of the account',
    description: METRICS_DESCRIPTION,
    params: AccountIdParams,
    query: MetricsQuery,
    responses: { 200: { description: 'the metrics', schema: PerformanceMetricsDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, query }) {
      const account = await loadAccount(services, caller, params.accountId);
      return { body: (await metricsOf(account, query)).metrics };
    },
  });

  routes.add<{ accountId: string }, Static<typeof MetricsQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/performanceMetrics/chart.svg',
    tag: 'Analytics',
    operationId: 'performanceChart',
    summary: 'Equity and drawdown chart (SVG)',
    description:
      'An SVG picture to open in a browser: equity (and balance, dashed) over time, and the drawdown from the running peak beneath, for the same range as performanceMetrics. Drawn from the data-collector samples when there are at least two, else from the balance after each closed trade and balance operation.',
    params: AccountIdParams,
    query: MetricsQuery,
    responses: { 200: { description: 'the chart', contentType: 'image/svg+xml', schema: Type.String() }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, query }) {
      const account = await loadAccount(services, caller, params.accountId);
      const { input, metrics } = await metricsOf(account, query);
      const name = account.alias ?? `${account.login_server} / ${account.login_account_number}`;
      return { raw: { contentType: 'image/svg+xml', body: equityChartSvg(name, chartSubtitle(input, metrics), equityCurve(input)) } };
    },
  });

  routes.add<{ accountId: string }, Static<typeof DataCollectorQuery>, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/dataCollector',
    tag: 'Analytics',
    operationId: 'dataCollector',
    summary: 'The data collector time series (equity, balance, floating P&L)',
    description: `Samples taken while FeatureDataCollectorDTO is on (every collectionIntervalSeconds, default 60, unless activateDataCollector is false, while the account is connected), oldest first, of the last ${DATA_COLLECTOR_RETENTION_DAYS} days (the feature's read-only retentionDays). limit: the last N samples of the range (default 10000); -1 = all. startTime and endTime (inclusive) bound the range. A record leaves out balance, equity or floatingPnL when recordBalance, recordEquity or recordFloatingPnL was false as it was taken. With normalizeValues true every value is multiplied by one factor that makes the oldest kept record's balance (else equity, else floating P&L) 100000, whatever the range asked (so pages agree); a reference value of 0 leaves the values as recorded.`,
    params: AccountIdParams,
    query: DataCollectorQuery,
    responses: { 200: { description: 'samples, oldest first', schema: Type.Array(DataCollectorRecordDTO) }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller, query }) {
      await loadAccount(services, caller, params.accountId);
      const limit = query.limit ?? DEFAULT_SAMPLE_LIMIT;
      if (limit === 0)
        throw new ApiError(400, '[VALIDATION_FAILED]', 'query.limit must be -1 (all) or at least 1', [
          { field: 'query.limit', message: 'must be -1 or at least 1' },
        ]);
      if (query.startTime && query.endTime && Date.parse(query.startTime) > Date.parse(query.endTime)) {
        throw new ApiError(400, '[VALIDATION_FAILED]', 'startTime must not be after endTime');
      }
      // Records older than the retention (the reference's read-only retentionDays) are not answered.
      const kept = new Date(services.clock().getTime() - DATA_COLLECTOR_RETENTION_DAYS * 86_400_000);
      const startTime = query.startTime && Date.parse(query.startTime) > kept.getTime() ? query.startTime : kept.toISOString();
      const rows = await lastSamplesOf(services.db, params.accountId, { startTime, endTime: query.endTime, limit });
      const setting = await dataCollectorSettingOf(services.db, params.accountId);
      const first = setting?.normalizeValues ? await firstSampleOf(services.db, params.accountId, kept) : undefined;
      const factor = first ? normalizationFactor(recordedValues(first)) : 1;
      return { body: rows.map((row) => toDataCollectorRecordDTO(row, factor)) };
    },
  });
  /** The accounts a report covers, in the order of the ids, each once. */
  const reportAccounts = async (
    caller: Parameters<typeof loadAccount>[1],
    body: Static<typeof ReportPerformanceParametersDTO>,
  ): Promise<ReportAccountRow[]> => {
    const ids = [...new Set(body.id.map((id) => id.toLowerCase()))];
    const found: ReportAccountRow[] = [];
    if (body.idType === 'ACCOUNT') {
      for (const id of ids) checkAccountScope(caller, id);
      const rows = new Map((await accountsAmong(services.db, caller.projectId, ids)).map((a) => [a.id, a]));
      for (const id of ids) {
        const row = rows.get(id);
        if (!row) throw new ApiError(404, '[ACCOUNT_NOT_FOUND]', `account ${id} not found`);
        found.push(row);
      }
      return found;
    }
    if (body.idType === 'PROJECT') {
      for (const id of ids) checkProjectScope(caller, id, 'a project report');
      return ids.length === 0 ? [] : accountsOfProject(services.db, caller.projectId);
    }
    const features = new Map((await featureTargets(services.db, caller.projectId, ids)).map((f) => [f.id, f]));
    const project = await accountsOfProject(services.db, caller.projectId);
    const byId = new Map(project.map((a) => [a.id, a]));
    const notFound = (id: string) => new ApiError(404, '[FEATURE_NOT_FOUND]', `feature ${id} not found`);
    for (const id of ids) {
      const feature = features.get(id);
      if (!feature) throw notFound(id);
      const targets = feature.scope === 'project' ? project : [byId.get(feature.accountId ?? feature.slaveAccountId ?? '')].filter((a) => a !== undefined);
      if (caller.accountId && targets.some((a) => a.id !== caller.accountId)) throw notFound(id);
      for (const a of targets) if (!found.some((f) => f.id === a.id)) found.push(a);
    }
    return found;
  };

  routes.add<unknown, unknown, Static<typeof ReportPerformanceParametersDTO>>({
    method: 'post',
    path: '/reports/performance',
    tag: 'Analytics',
    operationId: 'createReportPerformance',
    summary: 'Performance report of accounts, of the accounts of a project, or of those a feature applies to',
    description: REPORT_DESCRIPTION,
    body: ReportPerformanceParametersDTO,
    bodyRequired: true,
    responses: { 200: { description: 'the report', schema: ReportPerformanceDTO }, ...errorResponses(400, 401, 403, 404) },
    async handler({ body, caller }) {
      if (Date.parse(body.start) > Date.parse(body.stop)) throw new ApiError(400, '[VALIDATION_FAILED]', 'start must not be after stop');
      const start = new Date(body.start).toISOString();
      const stop = new Date(body.stop).toISOString();
      const accounts = [];
      for (const account of await reportAccounts(caller, body)) {
        const samples = await samplesOf(services.db, account.id, start, stop);
        const figures = accountPerformance({
          trades: await tradesOf(services.db, account.id, stop),
          balanceOperations: await balanceOperationsOf(services.db, account.id, stop),
          samples: samples.map((x) => ({ time: new Date(x.time).toISOString(), balance: x.balance, equity: x.equity, floating: x.floating_pnl })),
          start,
          stop,
          zone: services.config.timeZone,
        });
        accounts.push({
          accountId: account.id,
          date: stop,
          balance: figures.balance,
          equity: figures.equity,
          currentDrawdown: figures.currentDrawdown,
          currency: await accountCurrencyOf(services, account.id),
          deleted: account.account_status_id === AccountStatus.Deleted,
          history: (await closedTradesBetween(services.db, account.id, start, stop)).map(toHistoryPositionDTO),
          netProfits: figures.netProfits,
        });
      }
      return { body: { accounts } };
    },
  });
};
