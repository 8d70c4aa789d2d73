// A trader's public data (domain/investor/program.ts): InvestorProgramTraderDTO and closed positions
// without their labels.
import type { Static } from '@sinclair/typebox';
import { accountTypeOf } from '../../domain/account/enums.js';
import type { PerformanceMetrics } from '../../domain/analytics/metrics.js';
import { traderPublicName } from '../../domain/investor/program.js';
import type { findAccount } from '../../projections/accounts/queries.js';
import type { TraderRow } from '../../projections/investorProgram/queries.js';
import { toHistoryPositionDTO } from '../analytics/dto.js';
import type { PositionDTO } from '../trading/schemas.js';
import type { InvestorProgramTraderDTO } from './schemas.js';

type AccountRow = NonNullable<Awaited<ReturnType<typeof findAccount>>>;

/** The trader's score (scoreOfKept) and its account's currency. */
type TraderScore = Pick<PerformanceMetrics, 'score' | 'scoreBreakdown'> & { readonly currency: string };

export const toInvestorProgramTraderDTO = (trader: TraderRow, account: AccountRow, metrics: TraderScore): Static<typeof InvestorProgramTraderDTO> => ({
  id: trader.trader_id,
  name: traderPublicName(trader.trader_id, trader.setting),
  description: trader.setting.description,
  since: new Date(trader.since).toISOString(),
  accountType: { id: account.account_type_id, name: accountTypeOf(account.account_type_id)?.name ?? String(account.account_type_id) },
  currency: metrics.currency,
  makeHistoryPublic: trader.setting.makeHistoryPublic,
  score: metrics.score,
  scoreBreakdown: metrics.scoreBreakdown,
});

/** A closed volume as investors see it: the labels that could tell the trader's own workings are blanked. */
export const toPublicHistoryPositionDTO = (row: Parameters<typeof toHistoryPositionDTO>[0]): Static<typeof PositionDTO> =>
  toHistoryPositionDTO({ ...row, comment: null, magic_number: null, client_order_id: null });
