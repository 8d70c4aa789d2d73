// AccountInformationDTO (reference: GET /accounts/{accountId}/information, and AccountDTO.accountInformation):
// the broker's figures of the account's session, its results from the trade history, and its state.
// Every member of the reference is here with the reference's type; where this service has no such
// thing, the member is a documented constant. Our extras sit beside them.
import { type Static, Type } from '@sinclair/typebox';
import { netProfitSince, performanceMetrics } from '../../domain/analytics/metrics.js';
import { periodStart } from '../../domain/analytics/periods.js';
import { accountStatuses } from '../../domain/account/enums.js';
import { settle, type Services } from '../../app/services.js';
import { lastConnectionCode, otherAccountWithSameLogin } from '../../projections/accounts/queries.js';
import { pendingApprovals } from '../../projections/approvals/queries.js';
import { positionMismatchOf } from '../../projections/copies/queries.js';
import { balanceOperationsOf, tradesOf } from '../../projections/history/queries.js';
import { openPositionsOf } from '../../projections/positions/queries.js';
import type { AccountsTable } from '../../projections/schema.js';
import type { Selectable } from 'kysely';
import { accountProtections } from '../riskLimits/dto.js';
import { ProfitTargetLockDTO, ProfitTargetStatusDTO, RiskLimitHitDTO, RiskLimitStatusDTO } from '../riskLimits/schemas.js';
import type { Routes } from '../route.js';
import { loadAccount } from '../shared/accounts.js';
import { errorResponses, Nullable, Uuid } from '../shared/schemas.js';
import { ProxyRegionDTO } from '../types/schemas.js';

const HYPERACTIVE_TRADES_PER_DAY = 500;
/** How long account information waits for the copy engine to finish what it has in hand. */
const ENGINE_IDLE_WAIT_MS = 2000;

const Int = (description: string) => Type.Integer({ minimum: -2147483648, maximum: 2147483647, description });
const brokerFigure = (description: string) => Type.Optional(Type.Number({ description: `${description}; left out while the account has no broker session` }));

const PendingApprovalItem = Type.Object(
  {
    accountFromId: Uuid,
    ticket: Type.Integer({ description: 'the ticket (position id) of the master position waiting for a decision' }),
    volume: Type.Number({ description: "the master's lots (the copy is sized when approved)" }),
    approvalId: Type.String({ description: 'ours: the id to decide it with (POST /accounts/{accountId}/approvals; GET .../approvals lists them)' }),
    copierId: Uuid,
    symbol: Type.String(),
  },
  { description: 'ApprovalDTO: a master open FeatureApprovalDTO holds back on this account, not decided yet.' },
);

const MissingSymbolMappingDTO = Type.Object(
  {
    symbol: Type.String(),
    copierId: Uuid,
    fromAccountId: Uuid,
    fromAccount: Type.String(),
    lastTimestampDetected: Type.Integer(),
  },
  { description: 'MissingSymbolMappingDTO' },
);

const ProxyDTO = Type.Object(
  {
    id: Type.Integer(),
    ipAddress: Type.String(),
    region: ProxyRegionDTO,
    usedByAccounts: Type.Array(Uuid),
  },
  {
    description:
      "ProxyDTO: a proxy server of the reference's pool. Never answered: this service reserves no proxy servers (AccountDTO.proxy is the one an account is configured with).",
  },
);

export const AccountInformationDTO = Type.Object(
  {
    currency: Type.Optional(Type.String({ description: 'ISO 4217 code of the account currency; left out while the account has no broker session' })),
    leverage: Type.Optional(Int('account leverage (100 = 1:100); left out while the account has no broker session')),
    connected: Type.Boolean({ description: 'the account has a live session with its broker' }),
    status: Type.String({ description: 'the account status in words, as AccountDTO.status.name: New, Active, Stopped or Deleted' }),
    accountMode: Type.Optional(
      Type.Union([Type.Literal('NETTING'), Type.Literal('HEDGING'), Type.Literal('EXCHANGE')], {
        description: "the account's margin mode at the broker; left out while the account has no broker session",
      }),
    ),
    openPositions: Type.Boolean({ description: 'there is an open position (GET .../positions lists them)' }),
    openPositionsCount: Int('open positions; without a broker session, from the last known book'),
    pendingOrders: Type.Boolean({ description: 'there is a pending order' }),
    pendingOrdersCount: Int('pending orders; without a broker session, from the last known book'),
    balance: brokerFigure('balance'),
    equity: brokerFigure('balance + credit + floating profit and swap of open positions'),
    credit: brokerFigure('credit from the broker'),
    usedMargin: brokerFigure('margin held by open positions'),
    freeMargin: brokerFigure('equity - used margin'),
    unrealizedProfit: brokerFigure('floating profit and swap of open positions'),
    drawdown: brokerFigure('percent: how far equity is below balance now, (balance - equity) / balance x 100, 0 when equity is not below'),
    profitToday: Type.Number({ description: 'net result (profit + swap + commission) of the trades closed since 00:00 today in the service TIME_ZONE' }),
    profitThisWeek: Type.Number({ description: 'the same since Monday 00:00 (TIME_ZONE)' }),
    profitThisMonth: Type.Number({ description: 'the same since the first of the month 00:00 (TIME_ZONE)' }),
    avgDrawdown: Type.Number({
      description:
        'percent: the mean depth of the drawdown episodes of the balance curve of closed trades (an episode runs from a peak until a new peak; depth = (peak - balance) / peak; deposits and withdrawals shift the peak and are not results)',
    }),
    maxDrawdown: Type.Number({ description: 'percent: the deepest drawdown episode, as avgDrawdown defines them' }),
    isNative: Type.Boolean({ description: 'the account runs in native mode (AccountDTO.nativeMode)' }),
    isHyperactive: Type.Boolean({ description: `more than ${HYPERACTIVE_TRADES_PER_DAY} trades closed in the last 24 hours` }),
    accountDuplicationInProjectDetected: Type.Boolean({
      description: 'another account of the project (not deleted) has the same loginServer (case-insensitive), loginAccountNumber and type',
    }),
    pendingApprovals: Type.Array(PendingApprovalItem, {
      description: 'master opens waiting for a decision on this account (FeatureApprovalDTO), oldest first; [] without that feature',
    }),
    positionMismatch: Type.Boolean({
      description: 'as a slave: a live copy whose master position is closed, or a master position still open whose copy the slave closed by itself',
    }),
    riskLimitsStatus: Type.Array(RiskLimitStatusDTO, {
      description: 'every risk limit of the account (GET .../riskLimits): whether it is hit, and the reference it measures from now',
    }),
    profitTargetsStatus: Type.Array(ProfitTargetStatusDTO, {
      description: 'every profit target feature of the account: whether it is locked, and the reference it measures from now',
    }),
    wrongCredentials: Type.Boolean({ description: 'the last connection attempt was refused with [INVALID_CREDENTIALS]' }),
    missingSymbolMappings: Type.Array(MissingSymbolMappingDTO, {
      description: 'always []: a copy this service cannot map is skipped and logged on the slave (SYMBOL_NOT_MAPPED in GET .../logs) instead',
    }),
    brokeTimeOffsetToUtc: Int('hours between broker time and UTC: always 0, the simulated venue keeps UTC'),
    fallbackMode: Type.Boolean({ description: 'always false: this service has no fallback connection mode' }),
    isInvestorPassword: Type.Boolean({ description: 'always false: the simulated venue has no read-only investor logins' }),
    latencyInMs: Type.Integer({ description: 'always 0: the simulated venue runs in-process' }),
    configuredProxy: Type.Optional(ProxyDTO),
    proxy: Type.Optional(ProxyDTO),
    walletBalances: Type.Array(Type.Object({ asset: Type.String(), balance: Type.Number() }, { description: 'WalletDTO' }), {
      description: 'always []: exchange wallets do not exist at the simulated venue',
    }),
    // Ours.
    environment: Type.Optional(
      Type.Union([Type.Literal('LIVE'), Type.Literal('DEMO')], {
        description: 'ours: left out when detection is unsupported for the broker type or not connected',
      }),
    ),
    historyDeactivated: Type.Boolean({ description: 'ours: history fetching is switched off for this account; this service never does' }),
    marginLevel: Type.Optional(
      Nullable(Type.Number({ description: 'ours: equity / used margin x 100; null without margin in use; left out while not connected' })),
    ),
    riskLimitsHit: Type.Array(RiskLimitHitDTO, {
      description:
        'ours: the risk limits hit in force (GET .../riskLimits): while any is, no new trade is copied to the account; each lasts until its period ends (until) or PUT .../riskLimits/{riskLimitId}/reset',
    }),
    profitTargetsLocked: Type.Array(ProfitTargetLockDTO, {
      description:
        'ours: the profit targets locked (account features FeatureDaily/Weekly/MonthlyProfitTargetDTO, FeatureOverallTargetDTO): while any is, no new trade is copied to the account (a per-symbol one: on that symbol)',
    }),
  },
  {
    $id: 'AccountInformationDTO',
    additionalProperties: false,
    description:
      'Computed when asked (the reference syncs it every minute). Members the reference declares that this service has no such thing for are documented constants; the broker figures are left out while the account has no broker session.',
  },
);

export type AccountInformation = Static<typeof AccountInformationDTO>;

/** Results from the same history and formulas as the performance metrics (domain/analytics/metrics.ts), in the service's time zone. */
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

/** A position id as the reference's int64 ticket (the simulated venue's ids are numbers; another id gives 0). */
const ticketOf = (positionId: string): number => (Number.isSafeInteger(Number(positionId)) ? Number(positionId) : 0);

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** The AccountInformationDTO of an account (its read-model row). */
export const accountInformationOf = async (services: Services, projectId: string, account: Selectable<AccountsTable>): Promise<AccountInformation> => {
  const accountId = account.id;
  const connection = services.connections.connection(accountId);
  // positionMismatch reads the engine's outcomes (CopyExecuted), which it appends after the slave's
  // venue reported the fill: a close of that copy right after could otherwise be judged before the
  // copy was known (the race behind copierFeatures "resync reopens on the slave"). Bounded wait.
  await Promise.race([services.engine.idle(), new Promise((r) => setTimeout(r, ENGINE_IDLE_WAIT_MS).unref())]);
  await settle(services);
  const protections = await accountProtections(services, accountId);
  const approvals = await pendingApprovals(services.db, accountId, services.clock());
  const common = {
    ...(await accountResults(services, accountId)),
    ...protections,
    connected: connection !== null,
    status: accountStatuses.find((s) => s.id === account.account_status_id)?.name ?? String(account.account_status_id),
    isNative: account.native_mode,
    historyDeactivated: false,
    accountDuplicationInProjectDetected: (await otherAccountWithSameLogin(services.db, projectId, account)) !== undefined,
    pendingApprovals: approvals.map((a) => ({
      accountFromId: a.master_account_id,
      ticket: ticketOf(a.master_position_id),
      volume: a.volume,
      approvalId: a.id,
      copierId: a.copier_id,
      symbol: a.symbol,
    })),
    positionMismatch: await positionMismatchOf(services.db, accountId),
    wrongCredentials: (await lastConnectionCode(services.db, accountId)) === '[INVALID_CREDENTIALS]',
    missingSymbolMappings: [],
    brokeTimeOffsetToUtc: 0,
    fallbackMode: false,
    isInvestorPassword: false,
    latencyInMs: 0,
    walletBalances: [],
  };
  if (!connection) {
    const known = await openPositionsOf(services.db, accountId);
    const positions = known.filter((r) => r.kind === 'position').length;
    const orders = known.filter((r) => r.kind === 'order').length;
    return { ...common, openPositions: positions > 0, openPositionsCount: positions, pendingOrders: orders > 0, pendingOrdersCount: orders };
  }
  const info = await connection.accountInformation();
  return {
    ...common,
    currency: info.currency,
    leverage: Math.round(info.leverage),
    accountMode: info.marginMode === 'netting' ? 'NETTING' : 'HEDGING',
    balance: info.balance,
    equity: info.equity,
    credit: info.credit,
    usedMargin: info.margin,
    freeMargin: info.freeMargin,
    unrealizedProfit: info.unrealizedProfit,
    drawdown: info.balance > 0 && info.equity < info.balance ? round2(((info.balance - info.equity) / info.balance) * 100) : 0,
    marginLevel: info.marginLevel,
    ...(info.environment ? { environment: info.environment } : {}),
    openPositions: info.openPositionsCount > 0,
    openPositionsCount: info.openPositionsCount,
    pendingOrders: info.pendingOrdersCount > 0,
    pendingOrdersCount: info.pendingOrdersCount,
  };
};

export const informationRoutes = (routes: Routes, services: Services): void => {
  routes.add<{ accountId: string }, unknown, unknown>({
    method: 'get',
    path: '/accounts/{accountId}/information',
    tag: 'Trading',
    operationId: 'accountInformation',
    summary: 'Balance, equity, margin, results and state of the account',
    description:
      "Works for every account: while it has no broker session, the broker's figures are left out and the counts come from the last known book. GET /accounts/{accountId} embeds the same object as accountInformation.",
    params: Type.Object({ accountId: Uuid }, { additionalProperties: false }),
    responses: { 200: { description: 'the account information', schema: AccountInformationDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      const account = await loadAccount(services, caller, params.accountId);
      return { body: await accountInformationOf(services, caller.projectId, account) };
    },
  });
};
