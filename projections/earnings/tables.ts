// The tables of the earnings read model (projector.ts), joined into ReadModels (schema.ts): the facts
// the earnings and follower costs are computed from (domain/earnings/earnings.ts), as the events gave them.
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** A signal provider's terms set at creation. */
export interface EarningsProvidersTable {
  id: string;
  project_id: string;
  account_id: string;
  billing_model: string;
  cover_follower_costs: boolean;
  max_covered_accounts_per_project: number;
  created: Timestamp;
  removed: NullableTimestamp;
}

/** Every fee the provider's feature carried, as it was added or changed (decimal text). */
export interface EarningsFeesTable {
  provider_id: string;
  seq: number;
  at: Timestamp;
  monthly_subscription_fee: string;
  profit_sharing_fee: string;
}

/** A follower's subscription: from its feature's addition to its removal. */
export interface EarningsFollowersTable {
  id: string;
  provider_id: string;
  project_id: string;
  account_id: string;
  subscribed: Timestamp;
  removed: NullableTimestamp;
}

/** A position the follower's copier opened on the follower account. */
export interface EarningsPositionsTable {
  follower_id: string;
  account_id: string;
  position_id: string;
  /** CopyExecuted.slaveToMasterRate of the copy's opening (decimal text); null: none, the same currency. */
  rate: string | null;
}

/** A closed volume of such a position: its net result (profit + swap + commission, decimal text). */
export interface EarningsTradesTable {
  follower_id: string;
  account_id: string;
  trade_id: string;
  close_time: Timestamp;
  result: string;
  /** Its position's rate, which converts `result` to the provider's currency; null: none. */
  rate: string | null;
}

export interface EarningsTables {
  earnings_providers: EarningsProvidersTable;
  earnings_fees: EarningsFeesTable;
  earnings_followers: EarningsFollowersTable;
  earnings_positions: EarningsPositionsTable;
  earnings_trades: EarningsTradesTable;
}
