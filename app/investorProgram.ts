// The investor program's reads (domain/investor/program.ts says who sees what): the approved traders of
// every project for an investor, one trader, its closed positions. A trader's score is that of GET
// /accounts/{accountId}/performanceMetrics over the account's whole history, from the facts the
// marketplace read model keeps per trader (projections/marketplace) and the account's own (live while its
// venue says so, prop firm; the caller's scoreOfKept); its full performance metrics are computed by the
// caller from the trader's account.
import { checkHistoryPublic, checkInvestorRole, traderNotFound } from '../domain/investor/program.js';
import type { KeptScoreFacts } from '../domain/analytics/metrics.js';
import { findAccount } from '../projections/accounts/queries.js';
import { closedTradesBetween } from '../projections/history/queries.js';
import { approvedTrader, approvedTraders, investorAccounts, type TraderRow } from '../projections/investorProgram/queries.js';
import { keptScoresOf } from '../projections/marketplace/queries.js';
import type { Services } from './services.js';

export interface InvestorCaller {
  readonly projectId: string;
  /** An account-level key's account; null for a project-level key. */
  readonly accountId: string | null;
}

const checkInvestor = async (services: Services, caller: InvestorCaller): Promise<void> =>
  checkInvestorRole(await investorAccounts(services.db, caller.projectId, caller.accountId));

type AccountRow = NonNullable<Awaited<ReturnType<typeof findAccount>>>;

export interface InvestorProgramTrader {
  readonly trader: TraderRow;
  readonly account: AccountRow;
  /** The kept score facts of the account's whole history. */
  readonly kept: KeptScoreFacts;
}

/** The traders' accounts and kept facts; a trader whose account row is gone is left out. */
const withFacts = async (services: Services, traders: readonly TraderRow[]): Promise<InvestorProgramTrader[]> => {
  const kept = await keptScoresOf(
    services.db,
    traders.map((t) => t.trader_id),
  );
  const out: InvestorProgramTrader[] = [];
  for (const trader of traders) {
    const account = await findAccount(services.db, trader.project_id, trader.account_id);
    if (account) out.push({ trader, account, kept: kept.get(trader.trader_id)! });
  }
  return out;
};

/** Every approved trader of every project, oldest approval first. */
export const listInvestorProgramTraders = async (services: Services, caller: InvestorCaller): Promise<InvestorProgramTrader[]> => {
  await checkInvestor(services, caller);
  return withFacts(services, await approvedTraders(services.db));
};

/** The trader, its account's row (for its type and metrics) and its kept facts. */
export const findInvestorProgramTrader = async (services: Services, caller: InvestorCaller, traderId: string): Promise<InvestorProgramTrader> => {
  await checkInvestor(services, caller);
  const trader = await approvedTrader(services.db, traderId);
  const [found] = trader ? await withFacts(services, [trader]) : [];
  if (!found) throw traderNotFound(traderId);
  return found;
};

export const investorProgramTraderHistory = async (services: Services, caller: InvestorCaller, traderId: string, start: string, stop: string) => {
  const { trader } = await findInvestorProgramTrader(services, caller, traderId);
  checkHistoryPublic(traderId, trader.setting);
  return closedTradesBetween(services.db, trader.account_id, start, stop);
};
