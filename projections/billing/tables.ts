// The tables of the billing read model (projector.ts), joined into ReadModels (schema.ts): the usage
// facts metering prices (domain/billing/usage.ts), as the events gave them.
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** An account from its creation to its deletion. */
export interface BillingAccountsTable {
  account_id: string;
  project_id: string;
  alias: string | null;
  created: Timestamp;
  deleted: NullableTimestamp;
}

/** The account's type, as it was at creation (seq 0) and as it changed. */
export interface BillingAccountTypesTable {
  account_id: string;
  seq: number;
  at: Timestamp;
  account_type_id: number;
}

/** A feature (any scope) from its addition to its removal; the messaging connector's aiTier. */
export interface BillingFeaturesTable {
  feature_id: string;
  project_id: string;
  feature_dto: string;
  ai_tier: string | null;
  added: Timestamp;
  removed: NullableTimestamp;
}

export interface BillingTables {
  billing_accounts: BillingAccountsTable;
  billing_account_types: BillingAccountTypesTable;
  billing_features: BillingFeaturesTable;
}
