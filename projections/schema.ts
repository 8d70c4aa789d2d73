// Types of the read models as REST queries see them: public views over the active generation of each
// projection (see runner.ts for why views).
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface AccountsTable {
  id: string;
  project_id: string;
  alias: string | null;
  login_server: string;
  login_account_number: string;
  account_type_id: number;
  region_id: number;
  account_status_id: number;
  prop_firm: boolean;
  trading_disabled: boolean;
  native_mode: boolean;
  close_unmanaged_positions: boolean;
  dedicated_ip: string | null;
  my_home_ip: string | null;
  proxy: ColumnType<unknown, string | null, string | null>;
  created: Timestamp;
  updated: Timestamp;
  last_reconnect_at: Timestamp | null;
  revision: ColumnType<string, number | string, number | string>;
}

export interface AuditLogsTable {
  id: string;
  position_commit: ColumnType<string, string, string>;
  position_prepare: ColumnType<string, string, string>;
  project_id: string;
  account_id: string | null;
  action: string;
  changes: ColumnType<unknown, string, string>;
  api_key_id: string | null;
  client_ip: string | null;
  method: string | null;
  path: string | null;
  correlation_id: string | null;
  created: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  account_id: string | null;
  level: string;
  key_type: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created: Timestamp;
}

export interface ProjectsTable {
  id: string;
  name: string;
  owner: string | null;
  created: Timestamp;
}

export interface CopiersTable {
  id: string;
  project_id: string;
  from_account_id: string;
  to_account_id: string;
  active: boolean;
  monitor_only: boolean;
  settings: ColumnType<unknown, string, string>;
  symbol_mappings: ColumnType<unknown, string | undefined, string | undefined>;
  created: Timestamp;
  updated: Timestamp;
}

export interface PositionsTable {
  account_id: string;
  id: string;
  kind: 'position' | 'order';
  symbol: string;
  order_type: string;
  volume: number;
  open_price: number;
  open_time: Timestamp;
  stop_loss: number | null;
  take_profit: number | null;
  expiry: Timestamp | null;
  comment: string | null;
  magic_number: ColumnType<string | null, number | null, number | null>;
  client_order_id: string | null;
  updated: Timestamp;
}

export interface VenueActivityTable {
  account_id: string;
  last_change_at: Timestamp;
  connected: boolean;
}

export interface CopiesTable {
  copier_id: string;
  master_position_id: string;
  master_account_id: string;
  slave_account_id: string;
  slave_position_id: string;
  kind: 'position' | 'pendingOrder';
  symbol: string;
  order_type: string;
  volume: number;
  client_order_id: string;
  status: 'open' | 'closed';
  opened_at: Timestamp;
  closed_at: Timestamp | null;
  /** COPIER (the engine closed it) or SLAVE_VENUE (its own stop, a manual close, a cancel). */
  closed_by: string | null;
}

export interface CopierMartingaleTable {
  copier_id: string;
  consecutive_losses: number;
}

export interface CopyRetriesTable {
  client_order_id: string;
  copier_id: string;
  master_account_id: string;
  slave_account_id: string;
  action: ColumnType<unknown, string, string>;
  source: ColumnType<unknown, string, string>;
  retry_until: Timestamp;
}

export interface AccountLogsTable {
  id: string;
  account_id: string;
  position_commit: ColumnType<string, string, string>;
  position_prepare: ColumnType<string, string, string>;
  time: Timestamp;
  log_type_id: number;
  category: string;
  message: string;
  code: string | null;
  copier_id: string | null;
  position_id: string | null;
}

export interface ProjectionRegistryTable {
  name: string;
  version: number;
  generation: number;
  checkpoint: string | null;
  building_generation: number | null;
  updated: Generated<Date>;
}

export interface ReadModels {
  accounts: AccountsTable;
  audit_logs: AuditLogsTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  copiers: CopiersTable;
  positions: PositionsTable;
  venue_activity: VenueActivityTable;
  copies: CopiesTable;
  copier_martingale: CopierMartingaleTable;
  copy_retries: CopyRetriesTable;
  account_logs: AccountLogsTable;
  projection_registry: ProjectionRegistryTable;
}
