// The tables of the payouts read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

/** A customer's payout method (PayoutDTO), as its brand's operator last recorded it. */
export interface PayoutMethodsTable {
  customer_id: number;
  brand_feature_id: string;
  wise_emails: Json<string[]>;
  updated: Timestamp;
}

export interface PayoutsTables {
  payout_methods: PayoutMethodsTable;
}
