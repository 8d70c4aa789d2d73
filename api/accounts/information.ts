// AccountInformationDTO (reference: GET /accounts/{accountId}/information, and AccountDTO.accountInformation):
// the broker's figures of the account's session, its results from the trade history, and its state.
// The state is read with the accounts, in the same query (projections/accounts/withState.ts: every
// account answer embeds it, the list of 1,000 included); the broker figures, results and protections
// only for the one account the information endpoint asks about. The schema is in informationSchemas.ts.
import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import { netProfitSince, performanceMetrics } from '../../domain/analytics/metrics.js';
import { periodStart } from '../../domain/analytics/periods.js';
import { accountStatuses } from '../../domain/account/enums.js';
import { settle, type Services } from '../../app/services.js';
import { accountsAmongWithState, type Alongside, type AccountStateColumns, type AccountWithState } from '../../projections/accounts/withState.js';
import { balanceOperationsOf, tradesOf } from '../../projections/history/queries.js';
import type { AccountsTable } from '../../projections/schema.js';
import { accountProtections } from '../riskLimits/dto.js';
import type { Routes } from '../route.js';
import { loadAccount } from '../shared/accounts.js';
import { errorResponses, Uuid } from '../shared/schemas.js';
import { type AccountInformation, AccountInformationDTO, HYPERACTIVE_TRADES_PER_DAY } from './informationSchemas.js';

/** How long account information waits for the copy engine to finish what it has in hand. */
const ENGINE_IDLE_WAIT_MS = 2000;

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

/** The state of an account the read models know nothing more of (a new one). */
export const noState: AccountStateColumns = {
  has_active_copiers: false,
  has_monitor_only_copiers: false,
  has_disabled_copiers: false,
  open_positions_count: 0,
  pending_orders_count: 0,
  duplicated: false,
  pending_approvals: [],
  position_mismatch: false,
  last_connection_code: null,
  applied_template: null,
};

/** What AccountDTO.accountInformation carries: the state of the account, without broker figures, results and protections. */
export type AccountState = Omit<
  AccountInformation,
  | 'currency'
  | 'leverage'
  | 'accountMode'
  | 'balance'
  | 'equity'
  | 'credit'
  | 'usedMargin'
  | 'freeMargin'
  | 'unrealizedProfit'
  | 'drawdown'
  | 'environment'
  | 'marginLevel'
  | 'profitToday'
  | 'profitThisWeek'
  | 'profitThisMonth'
  | 'avgDrawdown'
  | 'maxDrawdown'
  | 'isHyperactive'
  | 'riskLimitsStatus'
  | 'profitTargetsStatus'
  | 'riskLimitsHit'
  | 'profitTargetsLocked'
>;

/**
 * The state of an account (AccountDTO.accountInformation) from its read-model row with state
 * (projections/accounts/withState.ts) and its live session. The counts of open positions and pending
 * orders are those of the last known book (the positions read model follows the venue).
 */
export const accountStateOf = (services: Services, account: AccountWithState): AccountState => {
  const connected = services.connections.isConnected(account.id);
  return {
    connected,
    status: accountStatuses.find((s) => s.id === account.account_status_id)?.name ?? String(account.account_status_id),
    // The reference: native mode is a choice of MetaTrader connectors only, every other connector is
    // native. An account type routed to a real venue (ACCOUNT_TYPE_VENUES) trades at its platform itself.
    isNative: account.native_mode || services.config.venues.routes.some((route) => route.accountTypeId === account.account_type_id),
    historyDeactivated: false,
    openPositions: account.open_positions_count > 0,
    openPositionsCount: account.open_positions_count,
    pendingOrders: account.pending_orders_count > 0,
    pendingOrdersCount: account.pending_orders_count,
    accountDuplicationInProjectDetected: account.duplicated,
    pendingApprovals: account.pending_approvals.map((a) => ({
      accountFromId: a.master_account_id,
      ticket: ticketOf(a.master_position_id),
      volume: a.volume,
      approvalId: a.id,
      copierId: a.copier_id,
      symbol: a.symbol,
    })),
    positionMismatch: account.position_mismatch,
    // A live session means the last connection attempt succeeded.
    wrongCredentials: !connected && account.last_connection_code === '[INVALID_CREDENTIALS]',
    missingSymbolMappings: [],
    brokeTimeOffsetToUtc: 0,
    fallbackMode: false,
    isInvestorPassword: false,
    latencyInMs: 0,
    walletBalances: [],
  };
};

/** The accounts with a live session among those asked for (all of this instance's when `among` is left out): their last connection log is not read. */
export const connectedAmong = (services: Services, among?: readonly string[]): string[] =>
  among ? among.filter((id) => services.connections.isConnected(id)) : services.connections.connectedAccountIds();

/** The project's accounts among `ids` (deleted ones too) with their state, in one query. */
export const accountsWithStateAmong = (services: Services, projectId: string, ids: readonly string[], alongside?: Alongside) =>
  accountsAmongWithState(services.db, projectId, ids, services.clock(), connectedAmong(services, ids), alongside);

/** The AccountInformationDTO of an account (its read-model row): its state, results and protections, and the broker's figures while it has a session. */
export const accountInformationOf = async (services: Services, projectId: string, account: Selectable<AccountsTable>): Promise<AccountInformation> => {
  const accountId = account.id;
  const connection = services.connections.connection(accountId);
  // positionMismatch reads the engine's outcomes (CopyExecuted), which it appends after the slave's
  // venue reported the fill: a close of that copy right after could otherwise be judged before the
  // copy was known (the race behind copierFeatures "resync reopens on the slave"). Bounded wait.
  await Promise.race([services.engine.idle(), new Promise((r) => setTimeout(r, ENGINE_IDLE_WAIT_MS).unref())]);
  await settle(services);
  const [withState] = await accountsWithStateAmong(services, projectId, [accountId]);
  // Read after settling; rows are never removed from the accounts read model, so it is there (else: no state).
  const state = accountStateOf(services, withState ?? { ...account, ...noState });
  const common = { ...state, ...(await accountResults(services, accountId)), ...(await accountProtections(services, accountId)) };
  if (!connection) return common;
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
    // The live session's counts, not the last known book's.
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
      "Works for every account: while it has no broker session, the broker's figures are left out and the counts come from the last known book. Every account answer embeds the account's state as accountInformation, without the broker figures, results and protections (see AccountInformationDTO); this endpoint answers them all.",
    params: Type.Object({ accountId: Uuid }, { additionalProperties: false }),
    responses: { 200: { description: 'the account information', schema: AccountInformationDTO }, ...errorResponses(400, 401, 404) },
    async handler({ params, caller }) {
      const account = await loadAccount(services, caller, params.accountId);
      return { body: await accountInformationOf(services, caller.projectId, account) };
    },
  });
};
