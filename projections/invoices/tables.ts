// The tables of the invoices read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType, Generated } from 'kysely';
import type { UsageLine } from '../../domain/billing/usage.js';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

/** An invoice as issued, and where its state went. */
export interface InvoicesTable {
  invoice_number: string;
  party_kind: string;
  customer_id: string | null;
  customer_email: string | null;
  brand_feature_id: string | null;
  project_id: string;
  project_ids: Json<string[]>;
  year: number;
  month: number;
  currency: string;
  amount: string;
  lines: Json<UsageLine[]>;
  status: string;
  issued: Timestamp;
  due_date: Timestamp;
  manual_collection: boolean;
  payment_instructions: string | null;
  paid_at: NullableTimestamp;
  external_reference: string | null;
  note: string | null;
  voided_at: NullableTimestamp;
  refunded_at: NullableTimestamp;
  reason: string | null;
}

/** A project's money movement (TransactionDTO): an invoice's charge, its payment, a void or a refund. */
export interface InvoiceTransactionsTable {
  id: Generated<number>;
  project_id: string;
  invoice_number: string;
  date: Timestamp;
  currency: string;
  /** Decimal text: negative a charge, positive a payment or a cancelled charge. */
  amount: string;
  reference: string;
  remark: string;
}

export interface InvoicesTables {
  invoices: InvoicesTable;
  invoice_transactions: InvoiceTransactionsTable;
}
