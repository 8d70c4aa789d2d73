// The tables of the customers read model (projector.ts), joined into ReadModels (schema.ts).
import type { ColumnType } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export type CustomerStatus = 'ACTIVE' | 'BLOCKED';

/** What the block job did (CustomerBlockCompleted), null while it runs or before any block. */
export interface BlockSummary {
  readonly projectIds: readonly string[];
  /** Live keys of its projects, refused while the customer is blocked (not revoked: unblocking restores them). */
  readonly suspendedKeys: number;
  readonly stoppedAccounts: number;
  readonly stoppedCopiers: number;
}

export interface CustomersTable {
  customer_id: number;
  brand_feature_id: string;
  brand_project_id: string;
  email: string;
  status: CustomerStatus;
  created: Timestamp;
  last_sign_in: Timestamp | null;
  blocked_at: Timestamp | null;
  blocked_reason: string | null;
  block_job_id: string | null;
  block_completed_at: Timestamp | null;
  block_summary: Json<BlockSummary | null>;
  /** The unblock job not finished yet, and the accounts it starts again; null when none runs. */
  unblock_job_id: string | null;
  unblock_account_ids: Json<string[] | null>;
  unblocked_at: Timestamp | null;
}

/** The project → customer map: one row per project a customer owns. `blocked` follows the customer's status. */
export interface CustomerProjectsTable {
  project_id: string;
  customer_id: number;
  brand_feature_id: string;
  blocked: boolean;
  created: Timestamp;
}

/** Live sessions only: signing out and blocking delete them. */
export interface CustomerSessionsTable {
  token_hash: string;
  session_id: string;
  customer_id: number;
  expires_at: Timestamp;
}

/** Sign-in codes sent (the code's hash lives in the events only): what the sending limit counts. */
export interface CustomerCodesTable {
  code_id: string;
  brand_feature_id: string;
  email: string;
  purpose: string;
  created: Timestamp;
  expires_at: Timestamp;
  attempts: number;
  used: boolean;
}

export interface CustomerTables {
  customers: CustomersTable;
  customer_projects: CustomerProjectsTable;
  customer_sessions: CustomerSessionsTable;
  customer_codes: CustomerCodesTable;
}
