// The investor program's reads (domain/investor/program.ts says who sees what): the approved traders of
// every project for an investor, one trader, its closed positions. Performance metrics are computed by
// the caller from the trader's account as GET /accounts/{accountId}/performanceMetrics computes them.
import { checkHistoryPublic, checkInvestorRole, traderNotFound } from '../domain/investor/program.js';
import { findAccount } from '../projections/accounts/queries.js';
import { closedTradesBetween } from '../projections/history/queries.js';
import { approvedTrader, approvedTraders, investorAccounts, type TraderRow } from '../projections/investorProgram/queries.js';
import type { Services } from './services.js';

export interface InvestorCaller {
  readonly projectId: string;
  /** An account-level key's account; null for a project-level key. */
  readonly accountId: string | null;
}

const checkInvestor = async (services: Services, caller: InvestorCaller): Promise<void> =>
  checkInvestorRole(await investorAccounts(services.db, caller.projectId, caller.accountId));

export const listInvestorProgramTraders = async (services: Services, caller: InvestorCaller): Promise<TraderRow[]> => {
  await checkInvestor(services, caller);
  return approvedTraders(services.db);
};

/** The trader and its account's row (for its type and metrics). */
export const findInvestorProgramTrader = async (services: Services, caller: InvestorCaller, traderId: string) => {
  await checkInvestor(services, caller);
  const trader = await approvedTrader(services.db, traderId);
  const account = trader && (await findAccount(services.db, trader.project_id, trader.account_id));
  if (!trader || !account) throw traderNotFound(traderId);
  return { trader, account };
};

export const investorProgramTraderHistory = async (services: Services, caller: InvestorCaller, traderId: string, start: string, stop: string) => {
  const { trader } = await findInvestorProgramTrader(services, caller, traderId);
  checkHistoryPublic(traderId, trader.setting);
  return closedTradesBetween(services.db, trader.account_id, start, stop);
};
